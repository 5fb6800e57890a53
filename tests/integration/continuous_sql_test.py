#!/usr/bin/python3
"""Continuous SQL's statements through mink-query (docs/streaming-sql.md): the seed's quick start
and per-minute volume statements become catalog objects of the node, kept across a restart.

  - `mink-query exec` with the quick start's two statements and a plain SELECT in one script:
    one JSON answer per continuous statement ({"result_type": "CREATE SOURCE", "object_name":
    "ticks"}, ...) and the SELECT's row, in order.
  - The per-minute volume statements (the seed's, with `kafka.trades` and `kafka.minute-volume`
    created first as Mink's Kafka topics): three answers.
  - SHOW SOURCES / STREAMS / MATERIALIZED VIEWS / SINKS list them; DESCRIBE names what an object
    reads.
  - Refused, exit 1 or 2 with the reason, nothing written: a view over a source that does not
    exist, a Kafka topic the cluster does not have, dropping a source a view reads.
  - After a restart of the node, SHOW answers the same.

Usage: continuous_sql_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

QUERY = None

SEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "streaming")


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


def run(checks, node):
    rc, out, err = query(node, seed_sql("quick_start.sql") + "\nSELECT 6 * 7 AS answer;\n")
    checks.expect("the quick start's statements and a SELECT: one answer each, in order",
                  (0, [{"result_type": "CREATE SOURCE", "object_name": "ticks"},
                       {"result_type": "CREATE MATERIALIZED VIEW", "object_name": "tick_totals"},
                       {"answer": 42}]),
                  (rc, out if rc == 0 else err))
    node.mink("db", "create", "kafka")
    for topic in ("trades", "minute-volume"):
        node.mink("table", "create", f"kafka.{topic}", "-C", "id BIGINT NOT NULL", "-C", "v STRING")
    rc, out, err = query(node, seed_sql("minute_volume.sql"))
    checks.expect("the per-minute volume statements: three answers",
                  (0, ["CREATE SOURCE", "CREATE STREAM", "CREATE SINK"]),
                  (rc, [o.get("result_type") for o in out] if rc == 0 else err))
    want = {"SOURCES": ["ticks", "trades"], "STREAMS": ["minute_volume"], "MATERIALIZED VIEWS": ["tick_totals"],
            "SINKS": ["minute_volume_out"]}
    checks.expect("SHOW lists every object by kind", want, listing(node))
    rc, out, err = query(node, "DESCRIBE minute_volume_out")
    checks.expect("DESCRIBE names what a sink reads", (0, "sink", "minute_volume"),
                  (rc, out[0]["data"][0]["kind"] if out else err, out[0]["data"][0]["reads"] if out else None))

    for sql, status, reason in [
            ("CREATE MATERIALIZED VIEW v AS SELECT COUNT(*) FROM nowhere", 1,
             "view v reads nowhere, which is not a source or stream"),
            ("CREATE SOURCE elsewhere FROM KAFKA ('topic' = 'elsewhere')", 2,
             "topic elsewhere is not a topic of this Mink cluster"),
            ("DROP SOURCE ticks", 1, "view tick_totals reads ticks: drop it first")]:
        rc, out, err = query(node, sql)
        checks.ok(f"refused with exit {status}: {sql}", rc == status and reason in err, f"status {rc}: {err}")
    checks.expect("after the refusals nothing changed", want, listing(node))

    checks.expect("the node stops cleanly", 0, node.stop())
    node.restart()
    checks.expect("after a restart SHOW lists the same", want, listing(node))


def main():
    minktest.hard_deadline(120)
    global QUERY
    if len(sys.argv) < 3:
        print(f"usage: {sys.argv[0]} path/to/mink path/to/mink-query", file=sys.stderr)
        sys.exit(2)
    QUERY = os.path.abspath(sys.argv[2])
    node = minktest.MinkNode(sys.argv[1], "continuous-sql")

    def body(checks):
        node.start()
        run(checks, node)
        checks.expect("the node stops cleanly", 0, node.stop())
    minktest.run_on_node(node, body, "continuous_sql")


if __name__ == "__main__":
    main()
