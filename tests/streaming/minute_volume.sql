CREATE SOURCE trades (
    symbol VARCHAR NOT NULL,
    price  DOUBLE NOT NULL,
    volume BIGINT NOT NULL,
    ts     TIMESTAMP NOT NULL,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) FROM KAFKA (
    'bootstrap.servers' = 'kafka:9092',
    'topic' = 'trades',
    'group.id' = 'minute-volume',
    'startup.mode' = 'earliest'
) FORMAT JSON;

CREATE STREAM minute_volume AS
    SELECT symbol,
           tumble(ts, INTERVAL '1' MINUTE) AS minute,
           SUM(volume) AS volume,
           MAX(price) AS high
    FROM trades
    GROUP BY symbol, tumble(ts, INTERVAL '1' MINUTE)
    EMIT ON WINDOW CLOSE;

CREATE SINK minute_volume_out FROM minute_volume
    INTO KAFKA ('bootstrap.servers' = 'kafka:9092', 'topic' = 'minute-volume')
    FORMAT JSON;
