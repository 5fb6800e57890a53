#!/usr/bin/python3
"""A primary-key table's state survives kill -9 during writes and KV snapshots: ten times a node
is killed (SIGKILL) at a random moment while idempotent writes of sums (an aggregation table
over two buckets, 2,000 keys) keep it busy and a snapshot is taken every 300 changelog records;
each time it restarts on the same SQLite file and object store, and every third time its cache
directory (the RocksDB working copies and the snapshot files it fetched) is deleted first.

After each restart the write the kill cut short is sent again with its writer id and sequence
until acknowledged, and then:
  - the snapshot read equals the sums of the acknowledged writes: none lost, none applied twice
    (a retry of a write that had landed is answered, not applied again);
  - at the end, the changelog holds for each key one +I or +U per acknowledged increment of it,
    each with the running sum after it, in order: no changelog record lost or doubled either.
A restart with the cache directory deleted changes nothing but the time to open. The random seed
is printed (MINK_TEST_SEED repeats a run).

Usage: kv_crash_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

KILLS = 10
TABLE = "crash.sums"
KEYS = 2000
ROWS_PER_WRITE = 300
PUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flight_idempotent_put.js")
T0 = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


def put(node, writer, seq, rows):
    """One idempotent DoPut of `rows` ((id, qty) pairs); whether it was acknowledged."""
    try:
        r = subprocess.run(["node", PUT, str(node.flight_port), "put-ints", TABLE, str(writer), str(seq),
                            "id,qty", ";".join(f"{k},{q}" for k, q in rows)],
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return False
    return r.returncode == 0


def read_sums(node):
    r = node.mink("read", TABLE, "--mode", "snapshot", "--format", "json", timeout=120)
    return {row["id"]: row["qty"] for row in map(json.loads, r.stdout.splitlines())}


def main():
    node = minktest.node_from_argv("kv-crash", 900)
    seed = int(os.environ.get("MINK_TEST_SEED") or random.randrange(1 << 30))
    print(f"seed {seed} (MINK_TEST_SEED={seed} repeats it)", flush=True)
    rng = random.Random(seed)
    minktest.require_node_modules("@grpc/grpc-js", "@grpc/proto-loader", "apache-arrow")

    def body(checks):
        node.start(extra=["--kv-snapshot-records", "300", "--kv-snapshot-interval", "2s",
                          "--kv-memory", "8MiB"])
        node.mink("db", "create", "crash")
        node.mink("table", "create", TABLE, "-C", "id BIGINT NOT NULL", "-C", "qty BIGINT",
                  "--primary-key", "id", "--bucket-count", "2",
                  "--option", "table.merge-engine=aggregation", "--option", "fields.qty.agg=sum")
        r = subprocess.run(["node", PUT, str(node.flight_port), "init-writer"], capture_output=True,
                           text=True, timeout=60, check=True)
        writer = json.loads(r.stdout)["writer_id"]
        model = {}
        history = {}  # key -> the running sums after each acknowledged increment, in order
        seq = 0
        retried = 0

        def apply(rows):
            for k, q in rows:
                model[k] = model.get(k, 0) + q
                history.setdefault(k, []).append(model[k])

        for kill in range(KILLS):
            # The kill lands at a random moment of the writes (and of the snapshots they cause).
            timer = threading.Timer(rng.uniform(0.5, 4.0), node.kill)
            timer.start()
            pending = None
            while timer.is_alive():
                rows = [(rng.randrange(KEYS), rng.randrange(1, 100)) for _ in range(ROWS_PER_WRITE)]
                if put(node, writer, seq, rows):
                    apply(rows)
                    seq += 1
                else:
                    pending = rows
                    break
            timer.join()
            node.kill()
            wiped = kill % 3 == 2
            if wiped:
                shutil.rmtree(node.cache_dir, ignore_errors=True)
            started = time.monotonic()
            node.restart()
            opened = time.monotonic() - started
            if pending is not None:
                # The write whose answer the kill lost: sent again until acknowledged, applied once.
                deadline = time.monotonic() + 60
                while not put(node, writer, seq, pending):
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"the retry of sequence {seq} was never acknowledged")
                    time.sleep(0.3)
                apply(pending)
                seq += 1
                retried += 1
            got = read_sums(node)
            log(f"kill {kill + 1}: {seq} writes acknowledged, restart in {opened:.1f} s"
                f"{' with the cache directory deleted' if wiped else ''}")
            checks.expect(f"after kill {kill + 1}: every sum is the sum of its acknowledged writes",
                          model, got)
        # The changelog: +I at a key's first increment, then -U/+U at each next one.
        r = node.mink("read", TABLE, "--meta", "--format", "json", timeout=300)
        logged = {}
        for row in map(json.loads, r.stdout.splitlines()):
            if row["__change"] in ("+I", "+U"):
                logged.setdefault(row["id"], []).append(row["qty"])
        checks.expect("the changelog has each acknowledged increment once, in order", history, logged)
        log(f"{seq} acknowledged writes, {retried} retried after a kill")

    minktest.run_on_node(node, body, "kv crash")


if __name__ == "__main__":
    main()
