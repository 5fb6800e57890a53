#!/usr/bin/python3
"""SQL reads no file for a stranger (issue: a node on an open network). A `mink serve` of the
test's own with --http-listen and its defaults (auth off, as the quick start runs it): POST
/api/v1/sql as anyone on the network would.

  - Reading the node's files is refused with 403 and the file's content is not in the answer:
    read_csv of /etc/passwd and of the node's metadata database (which holds the cluster's token
    secret), read_blob, read_text, glob, a file named in FROM, a URL.
  - Writing is refused and nothing is written: COPY ... TO, ATTACH of a file, EXPORT DATABASE.
  - Extensions and configuration are refused: INSTALL, LOAD, SET, PRAGMA; and a materialized
    view over a file.
  - What is left works: a query over the view of the quick start, created through the same
    endpoint.
  - A query past --sql-timeout (2 s here) is stopped, and the node answers the next one.

Usage: security_sql_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402
from streaming_checks import http_sql  # noqa: E402


def body(node, checks):
    node.start(extra=["--http-listen", node.http_listen, "--sql-timeout", "2s"])
    meta_db = os.path.join(node.work, "meta.db")
    pwned = os.path.join(node.work, "pwned")

    def refused(name, sql, secret=None):
        status, answer = http_sql(node.http_listen, sql)
        checks.expect(f"{name}: refused with 403", 403, status)
        text = str(answer)
        checks.ok(f"{name}: the answer says what was refused", "not allowed here" in text or
                  "only queries" in text, text[:300])
        if secret is not None:
            checks.ok(f"{name}: no byte of the file in the answer", secret not in text, text[:300])

    refused("read_csv of /etc/passwd", "SELECT * FROM read_csv('/etc/passwd', sep=':', header=false)", "root")
    # DuckDB does not even look for a file named in FROM: no such table.
    status, answer = http_sql(node.http_listen, "SELECT * FROM '/etc/passwd'")
    checks.ok("a file named in FROM is no table", status == 400 and "does not exist" in str(answer), str(answer)[:300])
    checks.ok("  and nothing of it is in the answer", "root:" not in str(answer), str(answer)[:300])
    refused("read_blob of the metadata database", f"SELECT content FROM read_blob('{meta_db}')", "SQLite")
    refused("read_text of the metadata database", f"SELECT content FROM read_text('{meta_db}')", "SQLite")
    refused("read_csv of the metadata database", f"SELECT * FROM read_csv('{meta_db}')", "SQLite")
    refused("glob of the node's directory", f"SELECT * FROM glob('{node.work}/*')", "meta.db")
    refused("a URL", "SELECT * FROM read_parquet('http://127.0.0.1:9/x.parquet')")
    refused("COPY TO a file", f"COPY (SELECT 42 AS answer) TO '{pwned}.csv'")
    refused("a COPY hidden behind a query", f"SELECT 1; COPY (SELECT 42) TO '{pwned}2.csv'")
    refused("ATTACH of the metadata database", f"ATTACH '{meta_db}' AS meta")
    refused("ATTACH of a new file", f"ATTACH '{pwned}.db' AS p")
    refused("EXPORT DATABASE", f"EXPORT DATABASE '{pwned}-export'")
    refused("INSTALL", "INSTALL httpfs")
    refused("LOAD", "LOAD httpfs")
    refused("SET", "SET enable_external_access = true")
    refused("PRAGMA", "PRAGMA enable_profiling")
    # Continuous SQL binds its query on the same DuckDB: a view over a file is refused too.
    status, answer = http_sql(node.http_listen,
                              "CREATE MATERIALIZED VIEW leak AS SELECT * FROM read_csv('/etc/passwd')")
    checks.ok("a materialized view over a file is refused", status in (400, 403), f"{status} {answer}")
    checks.ok("  and shows nothing of it", "root" not in str(answer), str(answer)[:300])
    written = [f for f in os.listdir(node.work) if f.startswith("pwned")]
    checks.expect("nothing was written in the node's directory", [], written)

    with open(QUICK_START) as f:
        status, answer = http_sql(node.http_listen, f.read())
    checks.expect("the quick start's source and view are created through the same endpoint", 200, status)
    seen = []

    def counted():
        status, answer = http_sql(node.http_listen, "SELECT rows_seen FROM tick_totals")
        seen[:] = [status, answer]
        return status == 200 and isinstance(answer, dict) and answer.get("data") and \
            int(answer["data"][0]["rows_seen"]) > 0
    checks.ok("a query over the view answers its rows", minktest.wait_until(20, counted), str(seen)[:300])
    status, answer = http_sql(node.http_listen, "SELECT 1 + 1 AS two")
    checks.expect("a query that reads nothing runs", (200, [{"two": 2}]),
                  (status, answer.get("data") if isinstance(answer, dict) else answer))

    started = time.monotonic()
    status, answer = http_sql(node.http_listen,
                              "SELECT count(*) FROM range(1000000) a, range(1000000) b")
    took = time.monotonic() - started
    checks.expect("a query past --sql-timeout fails", 400, status)
    checks.ok("its error names sql.timeout", "sql.timeout" in str(answer), str(answer)[:300])
    checks.ok("it was stopped near the limit (2 s), not run for hours", took < 30, f"{took:.1f} s")
    status, answer = http_sql(node.http_listen, "SELECT 40 + 2 AS answer")
    checks.expect("the node answers the next query", (200, [{"answer": 42}]),
                  (status, answer.get("data") if isinstance(answer, dict) else answer))


QUICK_START = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "streaming", "quick_start.sql")

if __name__ == "__main__":
    node = minktest.node_from_argv("security-sql", 240, http=True)
    minktest.run_on_node(node, lambda checks: body(node, checks), "security_sql")
