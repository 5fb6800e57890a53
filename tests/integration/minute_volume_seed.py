"""The seed's per-minute volume example (tests/streaming/minute_volume.sql): its five trades,
values exactly as the seed writes them (no key), and the windows it prints, byte for byte."""

TRADES = [
    b'{"symbol": "AAPL", "price": 189.50, "volume": 100, "ts": "2026-10-18T09:30:05Z"}',
    b'{"symbol": "AAPL", "price": 189.70, "volume": 50, "ts": "2026-10-18T09:30:40Z"}',
    b'{"symbol": "MSFT", "price": 411.20, "volume": 30, "ts": "2026-10-18T09:30:41Z"}',
    b'{"symbol": "AAPL", "price": 189.60, "volume": 70, "ts": "2026-10-18T09:31:10Z"}',
    b'{"symbol": "MSFT", "price": 411.90, "volume": 20, "ts": "2026-10-18T09:32:30Z"}',
]
# The three windows the five trades close, in the order the seed prints them.
CLOSED = [
    b'{"symbol":"AAPL","minute":"2026-10-18T09:30:00","volume":150,"high":189.7}',
    b'{"symbol":"AAPL","minute":"2026-10-18T09:31:00","volume":70,"high":189.6}',
    b'{"symbol":"MSFT","minute":"2026-10-18T09:30:00","volume":30,"high":411.2}',
]
# Moves the watermark past 09:33:00: MSFT's 09:32 minute closes.
LATE_TRADE = b'{"symbol": "MSFT", "price": 412.00, "volume": 5, "ts": "2026-10-18T09:33:05Z"}'
CLOSED_LATER = b'{"symbol":"MSFT","minute":"2026-10-18T09:32:00","volume":20,"high":411.9}'
