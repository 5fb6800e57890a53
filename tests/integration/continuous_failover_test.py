#!/usr/bin/python3
"""Continuous SQL pipelines move with their buckets (docs/streaming-sql.md, "Pipelines and
delivery", "Where"): three `mink serve` nodes sharing one PostgreSQL database and one S3 bucket
(the harness's servers, scripts/with-test-services), --session-timeout 3s, each with its HTTP
API (--http-listen).

On node 1: a log table shop.events (k, n, ts; 3 buckets, bucket key k, so every round touches
every node's bucket) made with `mink table create`, then over HTTP a MINK source `events` on it
(watermark 1 s behind ts), a materialized view `totals` (count and sum of n per k) and a stream
`per_window` (10-s tumbling windows per k, EMIT ON WINDOW CLOSE). Rounds of rows are written
with `mink write`, each through the next live node; the node whose log says "pipeline totals
runs here" gets kill -9 and the rounds go on through the two survivors (a write that fails while
buckets move is retried, a bounded number of times, with only the rows of it the table does not
hold yet, so no row is written twice). Then the killed node is started again (buckets move back
to it), and the node that runs per_window by then gets kill -9 while rounds go on. Checks:

  - a survivor's log says "pipeline totals runs here" within 20 s of the first kill; after the
    second, a survivor says "pipeline per_window runs here" (and "pipeline totals runs here",
    when the second victim ran totals too) within 20 s;
  - after rows an hour later (one per key) close every window, within 30 s:
    - shop.events holds every acknowledged row exactly once;
    - SELECT * FROM totals over HTTP on a survivor has c and total per key of every row;
    - `mink read continuous.per_window` has every closed (k, window) exactly once with its count,
      and none of the closers' open windows.

No row is ever late: a round's rows lie within 0.5 s of event time (less than the watermark's
1 s), each round starts after the one before was acknowledged, and rounds go forward in time, so
the expected answer does not depend on where epochs fall.

Usage: continuous_failover_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import collections
import datetime
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_helpers  # noqa: E402
import minktest  # noqa: E402
from streaming_checks import T0, http_sql, listed, micros, pipeline_log, read_rows, window_name  # noqa: E402

SESSION_TIMEOUT_S = 3
TABLE = "shop.events"
KEYS = ["a", "b", "c", "d", "e"]
ROUNDS_BEFORE = 6     # rounds before the kill
ROUNDS_AFTER = 8      # rounds after it, through the survivors
ROUNDS_REJOIN = 4     # rounds after the killed node is back
ROUNDS_AFTER2 = 6     # rounds after the second kill (of the node running per_window)
PER_ROUND = 25
ROUND_MS = 3000       # rounds start this far apart in event time
BAND_MS = 500         # a round's rows lie within this much event time (< the watermark's 1 s)
WINDOW_MS = 10_000
CLOSER_MS = 3_600_000  # the closers, an hour after T0
WRITE_ATTEMPTS = 10
TAKEOVER_S = 20
SETTLE_S = 30
START = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - START:6.1f}s] {msg}", flush=True)


def iso(t_ms):
    return (T0 + datetime.timedelta(milliseconds=t_ms)).strftime("%Y-%m-%dT%H:%M:%S") + ".%03d" % (t_ms % 1000)


def starts(node, pipeline):
    """The node log's "pipeline <name> runs here" lines."""
    return [x for x in pipeline_log(node) if f"pipeline {pipeline} runs here" in x]


def bucket_counts(node):
    """{node id: buckets owned} of the live nodes as `mink cluster nodes` on `node` lists them."""
    r = node.mink("cluster", "nodes", "--format", "json", check=False, timeout=20)
    if r.returncode != 0:
        return {}
    return {m["node"]: m["buckets"] for m in map(json.loads, r.stdout.splitlines()) if m["live"]}


def balanced(nodes):
    """Every node live and owning buckets, the counts within one of each other."""
    counts = bucket_counts(nodes[0])
    return (sorted(counts) == sorted(n.node_id for n in nodes)
            and min(counts.values()) > 0 and max(counts.values()) - min(counts.values()) <= 1)


class Writer:
    """Rounds of rows into TABLE through the live nodes in turn. A round's write that fails is
    retried (bounded) with only the rows the table does not hold yet; `stored` is every row
    the table holds by the writer's account, by n."""

    def __init__(self):
        self.next_n = 1
        self.stored = {}   # n -> row
        self.turn = 0
        self.retries = []  # (round, attempt, node id, stderr)

    def round_rows(self, r):
        rows = []
        for i in range(PER_ROUND):
            t = r * ROUND_MS + (i * BAND_MS) // PER_ROUND
            rows.append({"k": KEYS[(r + i) % len(KEYS)], "n": self.next_n, "ts": iso(t)})
            self.next_n += 1
        return rows

    def write(self, live, rows, what):
        pending = list(rows)
        for attempt in range(WRITE_ATTEMPTS):
            node = live[self.turn % len(live)]
            self.turn += 1
            r = node.mink("write", TABLE, input="".join(json.dumps(x) + "\n" for x in pending),
                          check=False, timeout=60)
            if r.returncode == 0:
                self.stored.update((x["n"], x) for x in pending)
                return True
            self.retries.append((what, attempt, node.node_id, r.stderr.strip()[-300:]))
            log(f"{what}: write through node {node.node_id} failed (attempt {attempt + 1}): "
                f"{r.stderr.strip()[-200:]}")
            time.sleep(1)
            # Which of them did land? Only the others are written again.
            try:
                held = {row["n"] for row in read_rows(live[(self.turn) % len(live)], TABLE)}
            except Exception as e:  # noqa: BLE001 - not readable yet: ask again next attempt
                log(f"{what}: reading {TABLE} back failed: {e}")
                continue
            landed = [x for x in pending if int(x["n"]) in held]
            self.stored.update((x["n"], x) for x in landed)
            pending = [x for x in pending if int(x["n"]) not in held]
            if not pending:
                return True
        return False


def main():
    cluster_helpers.start_test(200, "path/to/mink")
    nodes = cluster_helpers.shared_cluster(sys.argv[1], "cfo")
    checks = minktest.Checks()
    flags = ["--session-timeout", f"{SESSION_TIMEOUT_S}s"]
    try:
        taken = set()
        for n in nodes:
            port = minktest.free_port()
            while port in taken or port in (n.flight_port, n.kafka_port):
                port = minktest.free_port()
            taken.add(port)
            n.http_listen = f"127.0.0.1:{port}"
            n.start(extra=[*flags, "--http-listen", n.http_listen])
        n1 = nodes[0]
        log("three nodes answer")
        n1.mink("db", "create", "shop")
        n1.mink("table", "create", TABLE, "-C", "k STRING NOT NULL", "-C", "n BIGINT NOT NULL",
                "-C", "ts TIMESTAMP(6) NOT NULL", "--bucket-key", "k", "--bucket-count", "3")
        status, answer = http_sql(n1.http_listen, """
            CREATE SOURCE events (WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) FROM MINK ('table' = 'shop.events');
            CREATE MATERIALIZED VIEW totals AS SELECT k, COUNT(*) AS c, SUM(n) AS total FROM events GROUP BY k;
            CREATE STREAM per_window AS SELECT k, tumble(ts, INTERVAL '10' SECOND) AS w, COUNT(*) AS c
                FROM events GROUP BY k, tumble(ts, INTERVAL '10' SECOND) EMIT ON WINDOW CLOSE""")
        if not checks.expect("the source, view and stream created over HTTP", 200, status):
            raise RuntimeError(f"CREATE over HTTP: {status} {answer}")

        def runners(pipeline):
            return [n for n in nodes if n.proc is not None and starts(n, pipeline)]

        checks.ok("a node runs the pipelines totals and per_window within 20 s",
                  minktest.wait_until(20, lambda: runners("totals") and runners("per_window"), interval=0.2),
                  f"totals: {[n.node_id for n in runners('totals')]}, "
                  f"per_window: {[n.node_id for n in runners('per_window')]}")
        w = Writer()
        for r in range(ROUNDS_BEFORE):
            checks.ok(f"round {r} written", w.write(nodes, w.round_rows(r), f"round {r}"))
        # Some epochs committed before the kill, so the new node starts from one after 0.
        time.sleep(1.5)
        totals_nodes = runners("totals")
        per_window_nodes = runners("per_window")
        log(f"pipeline totals runs on {[n.node_id for n in totals_nodes]}, "
            f"per_window on {[n.node_id for n in per_window_nodes]}")
        for n in nodes:
            for x in starts(n, "totals") + starts(n, "per_window"):
                log(f"  node {n.node_id}: {x}")
        checks.expect("exactly one node has started the pipeline totals", 1, len(totals_nodes))
        victim = totals_nodes[0]
        survivors = [n for n in nodes if n is not victim]
        before = {n.node_id: len(starts(n, "totals")) for n in survivors}
        before_pw = {n.node_id: len(starts(n, "per_window")) for n in survivors}
        log(f"owners of {TABLE} before the kill: {cluster_helpers.owners(victim, TABLE, timeout=20)}")
        victim.kill()
        killed_at = time.monotonic()
        log(f"kill -9 of node {victim.node_id}")

        for r in range(ROUNDS_BEFORE, ROUNDS_BEFORE + ROUNDS_AFTER):
            checks.ok(f"round {r} written through the survivors", w.write(survivors, w.round_rows(r), f"round {r}"))
        log(f"{ROUNDS_AFTER} rounds after the kill written, {len(w.retries)} retries")

        def took_over(pipeline, counts):
            return [n for n in survivors if len(starts(n, pipeline)) > counts[n.node_id]]

        remaining = max(0.0, TAKEOVER_S - (time.monotonic() - killed_at))
        ok = minktest.wait_until(remaining, lambda: took_over("totals", before), interval=0.2)
        new_nodes = took_over("totals", before)
        checks.ok(f"a survivor says 'pipeline totals runs here' within {TAKEOVER_S} s of the kill", ok,
                  f"survivors' stream/pipeline lines: "
                  f"{ {n.node_id: pipeline_log(n)[-10:] for n in survivors} }")
        if new_nodes:
            for n in new_nodes:
                log(f"takeover on node {n.node_id}: {starts(n, 'totals')[-1]}")
        pw_new = took_over("per_window", before_pw)
        if victim in per_window_nodes:
            checks.ok("a survivor says 'pipeline per_window runs here' after the kill",
                      minktest.wait_until(max(0.0, TAKEOVER_S - (time.monotonic() - killed_at)),
                                          lambda: took_over("per_window", before_pw), interval=0.2))
            pw_new = took_over("per_window", before_pw)
        log(f"per_window after the kill: {[n.node_id for n in pw_new] or 'not moved'}")
        next_round = ROUNDS_BEFORE + ROUNDS_AFTER

        # Phase 2: the killed node comes back (buckets move to it: a planned hand-off), then the
        # node that runs per_window now gets kill -9 while rounds go on through the other two.
        victim.restart()
        log(f"node {victim.node_id} restarted")
        spread_ok = minktest.wait_until(40, lambda: balanced(nodes), interval=0.5)
        log(f"after the restart, buckets per node {bucket_counts(nodes[1])} (balanced: {spread_ok}), "
            f"owners of {TABLE}: {cluster_helpers.owners(nodes[1], TABLE, timeout=20)}")
        for r in range(next_round, next_round + ROUNDS_REJOIN):
            checks.ok(f"round {r} written after the restart", w.write(nodes, w.round_rows(r), f"round {r}"))
        next_round += ROUNDS_REJOIN
        time.sleep(1.5)

        def latest_start(pipeline):
            """The live node whose log has the latest "pipeline <name> runs here" line."""
            best = None
            for n in nodes:
                if n.proc is None:
                    continue
                for x in starts(n, pipeline):
                    if best is None or x.split(" ", 1)[0] > best[1]:
                        best = (n, x.split(" ", 1)[0])
            return best[0] if best else None

        victim2 = latest_start("per_window")
        if victim2 is None:
            raise RuntimeError("no live node has started per_window")
        log(f"phase 2: per_window runs on node {victim2.node_id}, totals on "
            f"{getattr(latest_start('totals'), 'node_id', None)}")
        totals_on_victim2 = latest_start("totals") is victim2
        survivors = [n for n in nodes if n is not victim2]
        before_pw = {n.node_id: len(starts(n, "per_window")) for n in survivors}
        before = {n.node_id: len(starts(n, "totals")) for n in survivors}
        victim2.kill()
        killed_at = time.monotonic()
        log(f"kill -9 of node {victim2.node_id}")
        for r in range(next_round, next_round + ROUNDS_AFTER2):
            checks.ok(f"round {r} written through the survivors of the second kill",
                      w.write(survivors, w.round_rows(r), f"round {r}"))
        next_round += ROUNDS_AFTER2
        ok = minktest.wait_until(max(0.0, TAKEOVER_S - (time.monotonic() - killed_at)),
                                 lambda: took_over("per_window", before_pw), interval=0.2)
        checks.ok(f"a survivor says 'pipeline per_window runs here' within {TAKEOVER_S} s of the second kill", ok,
                  f"survivors' stream/pipeline lines: "
                  f"{ {n.node_id: pipeline_log(n)[-10:] for n in survivors} }")
        for n in took_over("per_window", before_pw):
            log(f"per_window takeover on node {n.node_id}: {starts(n, 'per_window')[-1]}")
        if totals_on_victim2:
            ok = minktest.wait_until(max(0.0, TAKEOVER_S - (time.monotonic() - killed_at)),
                                     lambda: took_over("totals", before), interval=0.2)
            checks.ok(f"totals too ran there: a survivor says 'pipeline totals runs here' within {TAKEOVER_S} s "
                      f"of the second kill", ok)
            for n in took_over("totals", before):
                log(f"totals takeover on node {n.node_id}: {starts(n, 'totals')[-1]}")

        # Rows an hour later close every window.
        closers = [{"k": k, "n": w.next_n + i, "ts": iso(CLOSER_MS + i)} for i, k in enumerate(KEYS)]
        w.next_n += len(closers)
        checks.ok("the closers written", w.write(survivors, closers, "closers"))

        expected_totals = {}
        for x in w.stored.values():
            c, t = expected_totals.get(x["k"], (0, 0))
            expected_totals[x["k"]] = (c + 1, t + x["n"])
        expected_windows = collections.Counter()
        for x in w.stored.values():
            t_us = micros(x["ts"])
            if t_us < CLOSER_MS * 1000:
                expected_windows[(x["k"], t_us - t_us % (WINDOW_MS * 1000))] += 1

        reader = survivors[0]

        def http_totals():
            status, answer = http_sql(reader.http_listen, "SELECT * FROM totals")
            if status != 200 or not isinstance(answer, dict):
                return (status, answer)
            return (status, {r["k"]: (int(r["c"]), int(r["total"])) for r in answer.get("data", [])})

        def settled():
            try:
                return (http_totals() == (200, expected_totals)
                        and len(read_rows(reader, "continuous.per_window")) >= len(expected_windows))
            except Exception:  # noqa: BLE001 - not readable yet
                return False

        waited = time.monotonic()
        if minktest.wait_until(SETTLE_S, settled, interval=0.5):
            log(f"the outputs caught up {time.monotonic() - waited:.1f} s after the closers")
            time.sleep(2)
        else:
            checks.fail(f"the outputs catch up within {SETTLE_S} s of the closers")
            for n in survivors:
                log(f"node {n.node_id}'s last stream/pipeline lines:")
                for line in pipeline_log(n)[-15:]:
                    print(f"    {line}", flush=True)

        inputs = collections.Counter(int(x["n"]) for x in read_rows(reader, TABLE))
        dup = {n: c for n, c in inputs.items() if c > 1}
        missing = set(w.stored) - set(inputs)
        extra = set(inputs) - set(w.stored)
        checks.ok(f"{TABLE}: every one of the {len(w.stored)} acknowledged rows exactly once",
                  not dup and not missing and not extra,
                  f"duplicated {listed(dup)}; missing {listed(missing)}; not acknowledged {listed(extra)}")

        checks.expect(f"SELECT * FROM totals over HTTP on node {reader.node_id}: c and total per key "
                      f"of every acknowledged row", (200, expected_totals), http_totals())

        rows = read_rows(reader, "continuous.per_window")
        got = collections.defaultdict(list)
        for x in rows:
            got[(x["k"], micros(x["w"]))].append(int(x["c"]))
        dups = {key: v for key, v in got.items() if len(v) > 1}
        missing_w = set(expected_windows) - set(got)
        extra_w = set(got) - set(expected_windows)
        checks.ok(f"continuous.per_window: the {len(expected_windows)} closed windows, each exactly once "
                  f"({len(rows)} rows)", not dups and not missing_w and not extra_w,
                  f"duplicated: [{listed(f'{window_name(*k)} x{len(v)} {v}' for k, v in dups.items())}]; "
                  f"missing: [{listed(f'{window_name(*k)} {expected_windows[k]}' for k in missing_w)}]; "
                  f"not expected: [{listed(f'{window_name(*k)} {got[k]}' for k in extra_w)}]")
        wrong = [f"{window_name(*k)}: expected c {expected_windows[k]}, got {v}"
                 for k, v in got.items() if k in expected_windows and any(c != expected_windows[k] for c in v)]
        checks.ok("continuous.per_window: the count of every window", not wrong, listed(wrong))

        for n in nodes:
            lines = pipeline_log(n)
            for x in lines:
                print(f"    node {n.node_id}: {x}", flush=True)
            trouble = [x for x in lines if re.search(r"fail|cannot|error|warn", x, re.I)]
            log(f"node {n.node_id}: {len(lines)} stream/pipeline lines, {len(trouble)} look like trouble")
            for x in trouble[:8]:
                print(f"    {x}", flush=True)
        log(f"write retries: {len(w.retries)}")
    except Exception as e:  # noqa: BLE001
        cluster_helpers.failed(checks, "continuous failover", e)
    finally:
        if checks.failures:
            for n in nodes:
                print(f"---- node {n.node_id} stream/pipeline lines:\n" + "\n".join(pipeline_log(n)[-30:]),
                      file=sys.stderr)
        log(f"runtime {time.monotonic() - START:.1f} s")
        cluster_helpers.finish(checks, nodes)


if __name__ == "__main__":
    main()
