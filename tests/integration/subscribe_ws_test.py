#!/usr/bin/python3
"""SUBSCRIBE over WebSocket (docs/streaming-sql.md, Subscriptions) with a real client: Debian's
python3-websockets against the HTTP API of a `mink serve` of the test's own (--http-listen).

  - The quick start (tests/streaming/quick_start.sql) created with POST /api/v1/sql.
  - ws://<http-listen>/ws/tick_totals: at least 10 change frames within 10 s, each a JSON
    object {"change", "data"}; applied in order (-U/-D remove a row, +I/+U add one) they leave
    the view's one row, whose rows_seen grows from the first answer to the last and whose
    last_seq is rows_seen - 1; 64-bit integers are JSON strings.
  - ws://.../ws/nothing: one {"error": ...} frame, then Close 1008.
  - The node stops on SIGINT with a subscriber connected, within 15 s, exit status 0; the
    subscriber gets Close 1001.

Usage: subscribe_ws_test.py path/to/mink   (Debian's /usr/bin/python3, with python3-websockets)
"""

import asyncio
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402
from streaming_checks import http_sql  # noqa: E402

(websockets,) = minktest.require_modules("websockets")

QUICK_START = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "streaming", "quick_start.sql")


async def receive(uri, frames, seconds, count):
    """At least `count` text frames from `uri` within `seconds`, parsed, into `frames`: up to one
    that leaves the answer whole (an update's -U comes with its +U, which follows it)."""
    deadline = time.monotonic() + seconds
    async with websockets.connect(uri, open_timeout=10, close_timeout=5) as ws:
        while (len(frames) < count or frames[-1].get("change") == "-U") and time.monotonic() < deadline:
            try:
                text = await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                break
            frames.append(json.loads(text))


async def refused(uri):
    """(the frames, the close code) of a subscription the node refuses."""
    frames = []
    async with websockets.connect(uri, open_timeout=10, close_timeout=5) as ws:
        try:
            for _ in range(10):
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), timeout=10)))
        except websockets.exceptions.ConnectionClosed:
            pass
        except asyncio.TimeoutError:
            return frames, "no close within 10 s"
        return frames, ws.close_code


def apply(checks, frames):
    """The rows left by the changes in order, and rows_seen after each addition."""
    rows, seen = [], []
    for f in frames:
        change, data = f.get("change"), f.get("data")
        if change in ("-U", "-D"):
            if data in rows:
                rows.remove(data)
            else:
                checks.fail("a retraction names a row that is there", json.dumps(f))
        elif change in ("+I", "+U", "+A"):
            rows.append(data)
            seen.append(data.get("rows_seen"))
        else:
            checks.fail("each frame has a known change kind", json.dumps(f))
    return rows, seen


def follow(checks, listen):
    frames = []
    asyncio.run(receive(f"ws://{listen}/ws/tick_totals", frames, 10, 10))
    if not checks.ok("ws /ws/tick_totals: at least 10 change frames within 10 s", len(frames) >= 10,
                     f"{len(frames)} frames: {frames[:4]}"):
        return
    checks.ok("every frame is {change, data}", all(set(f) == {"change", "data"} for f in frames), repr(frames[:3]))
    checks.expect("the first change inserts the view's row", "+I", frames[0]["change"])
    checks.ok("64-bit integers are JSON strings",
              all(isinstance(v, str) for f in frames for v in f["data"].values()), repr(frames[:3]))
    rows, seen = apply(checks, frames)
    if not checks.expect("the changes leave one row", 1, len(rows)):
        return
    (row,) = rows
    checks.expect("the view's columns", ["rows_seen", "last_seq"], list(row))
    counts = [int(s) for s in seen]
    checks.ok("rows_seen grows", counts[-1] > counts[0] and counts == sorted(counts), repr(counts))
    checks.expect("last_seq == rows_seen - 1 in the latest row", int(row["rows_seen"]) - 1, int(row["last_seq"]))


def stop_with_subscriber(checks, node, listen):
    state = {"frames": 0, "code": None}
    connected = threading.Event()

    async def hold():
        async with websockets.connect(f"ws://{listen}/ws/tick_totals", open_timeout=10, close_timeout=5) as ws:
            try:
                for _ in range(100000):
                    await asyncio.wait_for(ws.recv(), timeout=30)
                    state["frames"] += 1
                    connected.set()
            except (websockets.exceptions.ConnectionClosed, asyncio.TimeoutError):
                pass
            state["code"] = ws.close_code

    def run():
        try:
            asyncio.run(hold())
        except Exception as e:  # noqa: BLE001 - reported as the state's code
            state["code"] = f"{type(e).__name__}: {e}"
            connected.set()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    checks.ok("a subscriber is connected and receiving", connected.wait(15) and state["frames"] > 0, repr(state))
    start = time.monotonic()
    rc = node.stop(timeout=30)
    took = time.monotonic() - start
    checks.expect("the node stops cleanly on SIGINT with a subscriber connected", 0, rc)
    checks.ok("and within 15 s", took < 15, f"{took:.1f} s")
    t.join(15)
    checks.expect("the subscriber gets Close 1001 (going away)", 1001, state["code"])


def main():
    node = minktest.node_from_argv("subscribe-ws", 150, http=True)
    listen = node.http_listen

    def body(checks):
        node.start(extra=["--http-listen", listen])
        with open(QUICK_START) as f:
            status, answer = http_sql(listen, f.read())
        checks.expect("POST /api/v1/sql creates the quick start", 200, status)
        checks.ok("one answer per statement", isinstance(answer, list) and len(answer) == 2, repr(answer))
        follow(checks, listen)
        frames, code = asyncio.run(refused(f"ws://{listen}/ws/nothing"))
        checks.ok("/ws/nothing: one {\"error\": ...} frame",
                  len(frames) == 1 and isinstance(frames[0].get("error"), str), repr(frames))
        checks.expect("/ws/nothing: then Close 1008", 1008, code)
        stop_with_subscriber(checks, node, listen)
    minktest.run_on_node(node, body, "subscribe_ws")


if __name__ == "__main__":
    main()
