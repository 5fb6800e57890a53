#!/usr/bin/env python3
"""Runs the SQL test corpus (tests/sql/*.test) against a node of its own through mink-query.

Starts `mink serve` on a temporary directory and a free loopback port, then runs every .test
file given (or every one next to this script). A file is a list of records separated by blank
lines:

    # a comment
    mink <args>                 a `mink` CLI command (shell-quoted arguments); the lines that
    <stdin line>                follow it, up to the blank line, are its standard input
                                (rows for `mink write`). It must succeed.

    statement ok                the SQL (up to the blank line) runs without error
    <sql>

    statement error <text>      the SQL fails with exit status 2 and <text> in the message
    <sql>

    query [rowsort]             the SQL returns exactly these rows (in order, or sorted when
    <sql>                       `rowsort` is given); values are separated by " | ", NULL is
    ----                        null, decimals keep their scale, nested values print as JSON
    <row>                       without spaces; numbers print as JSON lines have them (DOUBLE
    <row>                       in the shortest form: -1, 2.5; DECIMAL with its scale)

Each SQL record runs as one `mink-query exec` process (piped: JSON lines, read here).

Usage: run_sql_tests.py path/to/mink path/to/mink-query [file.test ...]
"""

import decimal
import glob
import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def fmt(value, nested=False):
    if value is None:
        return "null" if nested else "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value) if nested else value
    if isinstance(value, list):
        return "[" + ",".join(fmt(v, True) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + fmt(v, True) for k, v in value.items()) + "}"
    return str(value)  # int, or Decimal holding the printed digits


def parse_records(path):
    """Yields (line number, header line, body lines, expected lines or None)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        start = i
        header = line
        i += 1
        body = []
        expected = None
        while i < len(lines) and lines[i].strip():
            if lines[i] == "----" and expected is None:
                expected = []
            elif expected is not None:
                expected.append(lines[i])
            else:
                body.append(lines[i])
            i += 1
        yield start + 1, header, body, expected


class Runner:
    def __init__(self, mink, query, env):
        self.mink = mink
        self.query = query
        self.env = env
        self.failures = 0
        self.checks = 0

    def fail(self, where, message):
        self.failures += 1
        print(f"FAIL {where}: {message}", file=sys.stderr)

    def run_file(self, path):
        name = os.path.basename(path)
        for line_no, header, body, expected in parse_records(path):
            where = f"{name}:{line_no}"
            words = header.split()
            self.checks += 1
            if words[0] == "mink":
                args = shlex.split(header)[1:]
                stdin = "".join(l + "\n" for l in body)
                r = subprocess.run([self.mink] + args, input=stdin, capture_output=True,
                                   text=True, env=self.env, timeout=60)
                if r.returncode != 0:
                    self.fail(where, f"`{header}` failed ({r.returncode}): {r.stderr.strip()}")
                continue
            sql = "\n".join(body)
            r = subprocess.run([self.query, "exec", "--format", "json", "-e", sql],
                               capture_output=True, text=True, env=self.env, timeout=60)
            if r.returncode not in (0, 1, 2):
                self.fail(where, f"mink-query crashed (status {r.returncode}): {r.stderr.strip()}")
                continue
            if words[0] == "statement" and words[1] == "ok":
                if r.returncode != 0:
                    self.fail(where, f"expected success, got: {r.stderr.strip()}")
            elif words[0] == "statement" and words[1] == "error":
                text = header.split("error", 1)[1].strip()
                if r.returncode != 2:
                    self.fail(where, f"expected a SQL error (status 2), got status "
                                     f"{r.returncode}: {r.stdout.strip()} {r.stderr.strip()}")
                elif text not in r.stderr:
                    self.fail(where, f"error '{r.stderr.strip()}' does not contain '{text}'")
            elif words[0] == "query":
                if r.returncode != 0:
                    self.fail(where, f"query failed: {r.stderr.strip()}")
                    continue
                rows = []
                for out_line in r.stdout.splitlines():
                    obj = json.loads(out_line, parse_float=decimal.Decimal,
                                     object_pairs_hook=lambda pairs: dict(pairs))
                    rows.append(" | ".join(fmt(v) for v in obj.values()))
                want = list(expected or [])
                if "rowsort" in words[1:]:
                    rows.sort()
                    want.sort()
                if rows != want:
                    self.fail(where, "rows differ\n--- expected\n" + "\n".join(want) +
                              "\n--- actual\n" + "\n".join(rows))
            else:
                self.fail(where, f"unknown record '{header}'")


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    mink, query = sys.argv[1], sys.argv[2]
    files = sys.argv[3:] or sorted(glob.glob(os.path.join(os.path.dirname(__file__), "*.test")))
    work = tempfile.mkdtemp(prefix="mink-sql-test.")
    port = free_port()
    env = dict(os.environ, MINK_BOOTSTRAP=f"grpc://127.0.0.1:{port}")
    log = open(os.path.join(work, "node.log"), "w")
    node = subprocess.Popen([mink, "serve", "--listen", f"127.0.0.1:{port}",
                             "--meta-url", f"sqlite:{work}/meta.db",
                             "--storage-uri", f"-2@file://{work}/objects"],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 30
        while True:
            if subprocess.run([mink, "db", "list"], capture_output=True, env=env).returncode == 0:
                break
            if node.poll() is not None or time.time() > deadline:
                print("the node did not start; its log:\n" + open(log.name).read(),
                      file=sys.stderr)
                return 1
            time.sleep(0.1)
        runner = Runner(mink, query, env)
        for path in files:
            print(f"running {os.path.basename(path)}")
            runner.run_file(path)
        print(f"{runner.checks} records, {runner.failures} failed")
        return 1 if runner.failures else 0
    finally:
        node.kill()
        node.wait()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
