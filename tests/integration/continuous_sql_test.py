#!/usr/bin/python3
"""Continuous SQL end to end on a node (docs/streaming-sql.md): the seed's two examples,
tests/streaming/quick_start.sql and minute_volume.sql, run as pipelines of a `mink serve` of the
test's own, with its Kafka listener in place of Apache Kafka and its HTTP API (--http-listen).

  - Quick start over HTTP: POST /api/v1/sql with the two statements answers 200 and one result
    per statement; `SELECT * FROM tick_totals` answers the view's row once its first epoch is in
    (64-bit integers as JSON strings), last_seq == rows_seen - 1, growing as the generator makes
    rows. A refused statement answers 400 {"error": the reason}, as do a statement that does not
    parse and a body that is not JSON; a wrong path 404.
  - Per-minute volume: `trades` and `minute-volume` created as topics with confluent_kafka's
    AdminClient; the three statements (bootstrap.servers the node's listener) through
    `mink-query exec`, with a plain SELECT in the same script (answered in order); the seed's five trades
    produced; the sink topic has exactly the three closed windows, in order, byte for byte, and
    no fourth while MSFT's 09:32 minute is open. A record that is not JSON does not stop the
    pipeline: the trade after it moves the watermark and the fourth window comes out.
  - The stream's output is the log table continuous.minute_volume (`mink read`: the four windows,
    in order; a query over HTTP reads them too), the view's the primary-key table
    continuous.tick_totals (its one row).
  - SHOW SOURCES / STREAMS / MATERIALIZED VIEWS / SINKS list the objects; DESCRIBE names what a
    sink reads.
  - Refused through mink-query, exit 1 or 2 with the reason, nothing written: a view over a source that does not
    exist, a Kafka topic the cluster does not have, dropping a source a view reads.
  - A second stream with LATE DATA TO: a trade of a closed minute lands once in its table
    continuous.late_trades, as it came; it changes no window, and DESCRIBE counts it as late.
  - After a restart: SHOW answers the same, the view goes on counting (its row at once, never
    below what it had, and growing), the sink topic still has exactly the four messages and the output table the
    four windows (no duplicates).

Usage: continuous_sql_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

(ck,) = minktest.require_modules("confluent_kafka")
from confluent_kafka import Consumer, KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

QUERY = None

SEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "streaming")

from minute_volume_seed import CLOSED, CLOSED_LATER, LATE_TRADE, TRADES  # noqa: E402

LATE_STREAM = """CREATE STREAM minute_trades AS
    SELECT symbol, tumble(ts, INTERVAL '1' MINUTE) AS minute, COUNT(*) AS trades
    FROM trades GROUP BY symbol, tumble(ts, INTERVAL '1' MINUTE)
    EMIT ON WINDOW CLOSE LATE DATA TO late_trades"""
# Of 09:30, once the watermark is past 09:33.
VERY_LATE_TRADE = b'{"symbol": "AAPL", "price": 190.00, "volume": 10, "ts": "2026-10-18T09:30:30Z"}'

# Refused with their reasons, nothing written.
REFUSALS = [
    ("CREATE MATERIALIZED VIEW v AS SELECT COUNT(*) FROM nowhere",
     "view v reads nowhere, which is not a source or stream"),
    ("CREATE SOURCE elsewhere FROM KAFKA ('topic' = 'elsewhere')",
     "topic elsewhere is not a topic of this Mink cluster"),
    ("DROP SOURCE ticks", "view tick_totals reads ticks: drop it first"),
]

CONSUMER_DEFAULTS = {
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 500,
    "max.poll.interval.ms": 20000,
    "fetch.wait.max.ms": 100,
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "topic.metadata.refresh.interval.ms": 1000,
}


def seed_sql(name):
    with open(os.path.join(SEEDS, name)) as f:
        return f.read()


def query(node, sql):
    r = subprocess.run([QUERY, "exec", "-e", sql], env=dict(os.environ, MINK_BOOTSTRAP=node.flight),
                       capture_output=True, text=True, timeout=120)
    return r.returncode, [json.loads(line) for line in r.stdout.splitlines() if line.strip()], r.stderr.strip()


def names(node, what):
    rc, out, err = query(node, f"SHOW {what}")
    return [row["name"] for row in out[0]["data"]] if rc == 0 and out else f"status {rc}: {err}"


def listing(node):
    return {what: names(node, what) for what in ("SOURCES", "STREAMS", "MATERIALIZED VIEWS", "SINKS")}


def http(node, path, body):
    """POSTs `body` (bytes, or an object sent as JSON) to the node's HTTP API: (status, the answer
    parsed as JSON, or its text when it is not JSON)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(f"http://{node.http_listen}{path}", data=data, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, text = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def sql(node, statement):
    return http(node, "/api/v1/sql", {"sql": statement})


def tick_totals(node):
    """The view's row over HTTP as (rows_seen, last_seq); None for an answer without its row
    (the view has none until its first epoch commits, a moment after its creation); raises on an
    answer that is not a query's."""
    status, answer = sql(node, "SELECT * FROM tick_totals")
    if status != 200 or not isinstance(answer, dict) or answer.get("result_type") != "query":
        raise RuntimeError(f"SELECT * FROM tick_totals: {status} {answer!r}")
    rows = answer.get("data")
    if rows == []:
        return None
    try:
        (row,) = rows
        if not isinstance(row["rows_seen"], str) or not isinstance(row["last_seq"], str):
            raise TypeError("64-bit integers are JSON strings")
        return int(row["rows_seen"]), int(row["last_seq"])
    except (KeyError, TypeError, ValueError) as e:
        raise RuntimeError(f"SELECT * FROM tick_totals: {e}: {answer!r}")


def view_grows(checks, node, what, at_once=False):
    """The view's row (at once, or once it has one: within 10 s of its creation), then a larger
    count within 10 s; the first row."""
    latest = [None]

    def counted():
        latest[0] = tick_totals(node)
        return latest[0] is not None and latest[0][0] > 0
    if at_once:
        if not checks.ok(f"{what}: SELECT * FROM tick_totals answers the view's row", counted(), repr(latest[0])):
            return None
    elif not checks.ok(f"{what}: SELECT * FROM tick_totals answers the view's row within 10 s",
                       minktest.wait_until(10, counted, 0.2), repr(latest[0])):
        return None
    first = latest[0]
    checks.ok(f"{what}: last_seq == rows_seen - 1", first[1] == first[0] - 1, repr(first))

    def grown():
        latest[0] = tick_totals(node)
        return latest[0] is not None and latest[0][0] > first[0]
    checks.ok(f"{what}: the view's count grows (10 rows/s)", minktest.wait_until(10, grown, 0.5),
              f"first {first}, then {latest[0]}")
    checks.ok(f"{what}: still last_seq == rows_seen - 1", latest[0] is not None and latest[0][1] == latest[0][0] - 1,
              repr(latest[0]))
    return first


def create_topics(checks, node):
    admin = AdminClient({"bootstrap.servers": node.broker})
    futures = admin.create_topics([NewTopic(t, num_partitions=1, replication_factor=1)
                                   for t in ("trades", "minute-volume")],
                                  operation_timeout=10, request_timeout=15)
    for name, f in futures.items():
        try:
            f.result(timeout=20)
            checks.ok(f"AdminClient creates the topic {name}", True)
        except KafkaException as e:
            checks.fail(f"AdminClient creates the topic {name}", str(e))


def produce(checks, node, values, what):
    errors = []
    p = Producer({"bootstrap.servers": node.broker, "linger.ms": 0})
    for v in values:
        p.produce("trades", value=v, on_delivery=lambda err, msg: err and errors.append(str(err)))
    left = p.flush(20)
    checks.ok(f"{what}: produced to trades", left == 0 and not errors, f"{left} undelivered, errors {errors}")


class SinkReader:
    """A consumer of minute-volume in a group of its own, from the beginning."""

    def __init__(self, node):
        self.consumer = Consumer(dict(CONSUMER_DEFAULTS, **{"bootstrap.servers": node.broker,
                                                            "group.id": f"check-{uuid.uuid4().hex}"}))
        self.consumer.subscribe(["minute-volume"])
        self.values = []
        self.errors = []

    def read(self, until_count, seconds):
        """Polls until `until_count` values in all or `seconds` have passed; the values so far."""
        deadline = time.monotonic() + seconds
        while len(self.values) < until_count and time.monotonic() < deadline:
            m = self.consumer.poll(0.2)
            if m is None:
                continue
            if m.error():
                self.errors.append(str(m.error()))
                continue
            self.values.append(m.value())
        return list(self.values)

    def close(self):
        self.consumer.close()


def output_rows(node, table, *args):
    r = node.mink("read", table, "--format", "json", *args)
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


def wait_for_rows(node, table, count, seconds):
    """The rows of `table` once it has `count` (or what it has after `seconds`)."""
    deadline = time.monotonic() + seconds
    rows = output_rows(node, table)
    while len(rows) < count and time.monotonic() < deadline:
        time.sleep(0.2)
        rows = output_rows(node, table)
    return rows


def window_rows(node):
    """continuous.minute_volume's rows, in log order."""
    return output_rows(node, "continuous.minute_volume")


# The sink's messages as the output table's rows.
WINDOWS = [json.loads(v) for v in CLOSED + [CLOSED_LATER]]


def run(checks, node):
    # Quick start over HTTP.
    status, answer = sql(node, seed_sql("quick_start.sql"))
    checks.expect("HTTP: the quick start's statements, one result each, in order",
                  (200, [{"object_name": "ticks", "result_type": "CREATE SOURCE"},
                         {"object_name": "tick_totals", "result_type": "CREATE MATERIALIZED VIEW"}]),
                  (status, answer))
    view_grows(checks, node, "HTTP")
    for statement, reason in REFUSALS:
        status, answer = sql(node, statement)
        checks.ok(f"HTTP: refused with 400 and the reason: {statement}",
                  status == 400 and isinstance(answer, dict) and reason in str(answer.get("error")),
                  f"{status} {answer!r}")
    status, answer = sql(node, "SELEC 1")
    checks.ok("HTTP: a statement that does not parse answers 400 with an error",
              status == 400 and isinstance(answer, dict) and answer.get("error"), f"{status} {answer!r}")
    status, answer = http(node, "/api/v1/sql", b"not json")
    checks.ok("HTTP: a body that is not JSON answers 400 with an error",
              status == 400 and isinstance(answer, dict) and answer.get("error"), f"{status} {answer!r}")
    status, answer = http(node, "/api/v1/nowhere", {"sql": "SHOW SOURCES"})
    checks.expect("HTTP: a wrong path answers 404", 404, status)

    # Per-minute volume from Kafka: the topics, then the statements through mink-query with a
    # plain query in the same script.
    create_topics(checks, node)
    statements = seed_sql("minute_volume.sql").replace("'kafka:9092'", f"'{node.broker}'")
    rc, out, err = query(node, statements + "\nSELECT 6 * 7 AS answer;\n")
    checks.expect("mink-query: the per-minute volume statements and a SELECT, one answer each, in order",
                  (0, [{"result_type": "CREATE SOURCE", "object_name": "trades"},
                       {"result_type": "CREATE STREAM", "object_name": "minute_volume"},
                       {"result_type": "CREATE SINK", "object_name": "minute_volume_out"},
                       {"answer": 42}]),
                  (rc, out if rc == 0 else err))
    want = {"SOURCES": ["ticks", "trades"], "STREAMS": ["minute_volume"], "MATERIALIZED VIEWS": ["tick_totals"],
            "SINKS": ["minute_volume_out"]}
    checks.expect("SHOW lists every object by kind", want, listing(node))
    rc, out, err = query(node, "DESCRIBE minute_volume_out")
    checks.expect("DESCRIBE names what a sink reads", (0, "sink", "minute_volume"),
                  (rc, out[0]["data"][0]["kind"] if out else err, out[0]["data"][0]["reads"] if out else None))
    shell = subprocess.run([QUERY, "shell"], input="SHOW STREAMS;\nSELECT 6 * 7 AS answer;\n", text=True,
                           env=dict(os.environ, MINK_BOOTSTRAP=node.flight), capture_output=True, timeout=60)
    lines = [json.loads(line) for line in shell.stdout.splitlines() if line.strip().startswith("{")]
    checks.expect("mink-query shell sends a streaming statement to the node and a query to DuckDB",
                  (0, ["minute_volume"], {"answer": 42}),
                  (shell.returncode, [r["name"] for r in lines[0].get("data", [])] if lines else shell.stderr,
                   lines[1] if len(lines) > 1 else None))

    # A second stream over the trades keeps its late rows in a table (LATE DATA TO).
    status, answer = sql(node, LATE_STREAM)
    checks.expect("HTTP: a stream with LATE DATA TO is created", 200, status)
    want["STREAMS"] = ["minute_trades", "minute_volume"]

    produce(checks, node, TRADES, "the five trades")
    reader = SinkReader(node)
    try:
        got = reader.read(3, 20)
        checks.expect("minute-volume has the three closed windows, in order", CLOSED, got)
        got = reader.read(4, 3)
        checks.expect("no fourth window while MSFT's 09:32 minute is open", CLOSED, got)
        produce(checks, node, [b"not json", LATE_TRADE], "a record that is not JSON, then a later trade")
        got = reader.read(4, 20)
        checks.expect("past the record that is not JSON, the later trade closes MSFT's 09:32 minute",
                      CLOSED + [CLOSED_LATER], got)
        produce(checks, node, [VERY_LATE_TRADE], "a trade of a minute that has closed")
        late = wait_for_rows(node, "continuous.late_trades", 1, 20)
        checks.expect("the late trade is in continuous.late_trades as it came, once",
                      [("AAPL", 190.0, 10, "2026-10-18 09:30:30")],
                      [(r.get("symbol"), r.get("price"), int(r.get("volume", 0)),
                        str(r.get("ts", "")).replace("T", " ")[:19]) for r in late])
        got = reader.read(5, 3)
        checks.expect("the late trade closes no window and changes none", CLOSED + [CLOSED_LATER], got)
        checks.expect("the sink reader saw no errors", [], reader.errors)
    finally:
        reader.close()
    rc, out, err = query(node, "DESCRIBE minute_volume")
    checks.ok("DESCRIBE counts the late trade the stream dropped",
              rc == 0 and int(out[0]["data"][0]["late_rows"]) >= 1, repr(out if rc == 0 else err))

    # The outputs as Mink tables.
    checks.expect("the stream's output table continuous.minute_volume lists the four closed windows",
                  WINDOWS, window_rows(node))
    checks.expect("HTTP: a query over the stream reads its output (BIGINT as strings)",
                  (200, {"result_type": "query", "data": [
                      {"symbol": w["symbol"], "minute": w["minute"], "volume": str(w["volume"])} for w in WINDOWS]}),
                  sql(node, "SELECT symbol, minute, volume FROM minute_volume ORDER BY symbol, minute"))
    totals = output_rows(node, "continuous.tick_totals", "--mode", "snapshot")
    checks.ok("the view's output table continuous.tick_totals has its one row",
              len(totals) == 1 and int(totals[0]["rows_seen"]) > 0 and
              int(totals[0]["last_seq"]) == int(totals[0]["rows_seen"]) - 1, repr(totals))

    for (statement, reason), status in zip(REFUSALS, (1, 2, 1)):
        rc, out, err = query(node, statement)
        checks.ok(f"refused with exit {status}: {statement}", rc == status and reason in err, f"status {rc}: {err}")
    checks.expect("after the refusals nothing changed", want, listing(node))

    before = tick_totals(node)
    checks.expect("the node stops cleanly", 0, node.stop())
    node.restart()
    checks.expect("after a restart SHOW lists the same", want, listing(node))
    after = view_grows(checks, node, "after a restart", at_once=True)
    checks.ok("after a restart the view's count is not below what it was",
              before is not None and after is not None and after[0] >= before[0],
              f"before {before}, after {after}")
    reader = SinkReader(node)
    try:
        got = reader.read(4, 20)
        got = reader.read(5, 3)
        checks.expect("after a restart minute-volume still has exactly the four windows",
                      CLOSED + [CLOSED_LATER], got)
    finally:
        reader.close()
    checks.expect("after a restart continuous.minute_volume still lists the four windows, once each",
                  WINDOWS, window_rows(node))


def main():
    global QUERY
    node = minktest.node_from_argv("continuous-sql", 120, http=True, usage="path/to/mink path/to/mink-query")
    QUERY = os.path.abspath(sys.argv[2])

    def body(checks):
        node.start(extra=["--http-listen", node.http_listen])
        run(checks, node)
        checks.expect("the node stops cleanly", 0, node.stop())
    minktest.run_on_node(node, body, "continuous_sql")


if __name__ == "__main__":
    main()
