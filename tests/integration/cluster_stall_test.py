#!/usr/bin/python3
"""A slow database does not fake a dead node: three `mink serve` nodes, each reaching
PostgreSQL through a proxy of this test's own (pg_proxy.py), with the default session timeout
(9 s). While numbered writes go through every node, the database stalls for every node at once
(all proxies black-holed, mid-traffic) for STALL_S = 5 s, then comes back. Then another session
holds the metadata log's append lock for 12 s, longer than the session timeout: every append
waits, but heartbeats and leases have a connection of their own and go on.

What it proves:
- no bucket moves: every table's owners are the same after the stall and the lock as before, and
  no node logs that it lost a bucket;
- the writes pause and resume: every write acknowledged is read back exactly once, and the
  writes through every node succeed again after the stall (the pause is printed, the figure of
  docs/performance.md).

Before heartbeats had a connection of their own, an append waiting behind the stall held the
heartbeat up past the session timeout and the coordinator moved live nodes' buckets.

Usage: cluster_stall_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_helpers  # noqa: E402
import minktest  # noqa: E402
import pg_proxy  # noqa: E402

STALL_S = 5
LOCK_HOLD_S = 12  # past the 9 s session timeout
APPEND_LOCK_KEY = 0x6d696e6b00000001  # the metadata log's append lock (postgres_log_store.cc)
TABLE = "stall.numbers"
BUCKETS = 6
log = minktest.log


class Writers:
    """Numbered writes (batches of 10) through each node in turn until stopped; remembers every
    write's numbers, node, start, end and outcome."""

    def __init__(self, nodes):
        self.nodes = nodes
        self.lock = threading.Lock()
        self.next = 0
        self.writes = []
        self.stopping = False
        self.threads = [threading.Thread(target=self.run, args=(n,), daemon=True) for n in nodes]

    def run(self, node):
        while not self.stopping:
            with self.lock:
                numbers = list(range(self.next, self.next + 10))
                self.next += 10
            started = time.monotonic()
            text = "".join(json.dumps({"n": k, "via": node.node_id}) + "\n" for k in numbers)
            r = node.mink("write", TABLE, input=text, check=False, timeout=120)
            with self.lock:
                self.writes.append({"via": node.node_id, "numbers": numbers, "start": started,
                                    "end": time.monotonic(), "rc": r.returncode,
                                    "err": r.stderr.strip()})
            time.sleep(0.2)

    def start(self):
        for t in self.threads:
            t.start()

    def succeeded_through_all_since(self, t):
        """Whether a write started after monotonic time t succeeded through every node."""
        with self.lock:
            return {w["via"] for w in self.writes if w["start"] > t and w["rc"] == 0} \
                == {n.node_id for n in self.nodes}

    def stop(self):
        self.stopping = True
        for t in self.threads:
            t.join(150)


def lost_buckets(node):
    total = 0
    with open(node.log_path, errors="replace") as f:
        for line in f:
            if "buckets moved:" in line and "lost " in line:
                total += int(line.rsplit("lost ", 1)[1].split()[0].strip(","))
    return total


def main():
    cluster_helpers.start_test(300, "path/to/mink")
    meta_url, storage = minktest.cluster_stores()
    pg = urllib.parse.urlsplit(meta_url)
    proxies = {i: pg_proxy.PgProxy(pg.hostname, pg.port, f"pg{i}") for i in (1, 2, 3)}
    nodes = cluster_helpers.make_nodes(sys.argv[1], "cstall",
                                       lambda i: pg_proxy.proxied_url(meta_url, proxies[i].port), storage)
    checks = minktest.Checks()
    writers = Writers(nodes)
    try:
        for n in nodes:
            n.start()
        nodes[0].mink("db", "create", "stall")
        nodes[0].mink("table", "create", TABLE, "-C", "n BIGINT NOT NULL", "-C", "via INT",
                      "--bucket-key", "n", "--bucket-count", str(BUCKETS))
        spread = minktest.wait_until(30, lambda: cluster_helpers.spread(nodes, TABLE, 2), 0.3)
        checks.ok("6 buckets spread 2/2/2", spread)
        before = cluster_helpers.owners(nodes[0], TABLE)
        lost_before = {n.node_id: lost_buckets(n) for n in nodes}
        writers.start()
        time.sleep(3)

        stall_at = time.monotonic()
        for p in proxies.values():
            p.cut("blackhole")
        log(f"database stalled for every node for {STALL_S} s")
        time.sleep(STALL_S)
        healed_at = time.monotonic()
        for p in proxies.values():
            p.heal()
        log("database back")

        checks.ok("writes through every node succeed after the stall",
                  minktest.wait_until(60, lambda: writers.succeeded_through_all_since(healed_at), 0.2))
        time.sleep(12)  # past the session timeout after the stall: a takeover would show now

        # ---- the metadata log's append lock held by another session for longer than the
        # session timeout: appends wait, heartbeats and leases (a connection of their own) do not
        held_at = time.monotonic()
        log(f"the append lock held by another session for {LOCK_HOLD_S} s")
        r = subprocess.run(["psql", meta_url, "-q", "-c",
                            f"BEGIN; SELECT pg_advisory_xact_lock({APPEND_LOCK_KEY});"
                            f" SELECT pg_sleep({LOCK_HOLD_S}); COMMIT;"],
                           capture_output=True, text=True, timeout=LOCK_HOLD_S + 30)
        checks.ok("the append lock was held", r.returncode == 0, r.stderr.strip())
        released_at = time.monotonic()
        checks.ok("writes through every node succeed after the lock is released",
                  minktest.wait_until(60, lambda: writers.succeeded_through_all_since(released_at), 0.2))
        time.sleep(5)
        writers.stop()

        after = cluster_helpers.owners(nodes[0], TABLE)
        checks.expect("no bucket moved: the owners are those before the stall", before, after)
        for n in nodes:
            checks.expect(f"node {n.node_id} lost no bucket", lost_before[n.node_id], lost_buckets(n))
        for n in nodes[1:]:
            checks.expect(f"node {n.node_id} names the same owners",
                          after, cluster_helpers.owners(n, TABLE))

        with writers.lock:
            writes = list(writers.writes)
        acked = {k for w in writes if w["rc"] == 0 for k in w["numbers"]}
        failed = [w for w in writes if w["rc"] != 0]
        rows = nodes[1].mink("read", TABLE, "--format", "json").stdout.splitlines()
        count = {}
        for row in map(json.loads, rows):
            count[row["n"]] = count.get(row["n"], 0) + 1
        checks.ok(f"every acknowledged number is read back ({len(acked)})",
                  acked <= set(count), str(sorted(acked - set(count))[:10]))
        checks.ok("no number is stored twice", all(c == 1 for c in count.values()),
                  str([k for k, c in count.items() if c > 1][:10]))
        in_stall = [w for w in failed if w["end"] < stall_at or
                    (w["start"] > healed_at + 30 and w["end"] < held_at) or w["start"] > released_at + 30]
        checks.ok("writes failed only around the stall and the lock (a mink write retries for 30 s)",
                  not in_stall, str([(w["via"], w["err"]) for w in in_stall][:3]))
        pause = max((w["end"] for w in writes if w["rc"] == 0 and w["start"] < healed_at
                     and w["end"] > stall_at), default=healed_at) - stall_at
        first_after = min((w["end"] for w in writes if w["rc"] == 0 and w["start"] >= stall_at),
                          default=None)
        log(f"stall {STALL_S} s: {len(failed)} writes failed, buckets moved 0 expected,"
            f" longest acknowledged write across the stall ended {pause:.1f} s after it began;"
            f" first write started in the stall acknowledged"
            f" {(first_after - stall_at) if first_after else float('nan'):.1f} s after it began")
    except Exception as e:  # noqa: BLE001
        cluster_helpers.failed(checks, "cluster stall", e)
    finally:
        writers.stopping = True
        for p in proxies.values():
            p.heal()
        cluster_helpers.finish(checks, nodes)  # exits


if __name__ == "__main__":
    main()
