#!/usr/bin/python3
"""Tiering is exactly once across crashes: a node is killed (SIGKILL) ten times at random points
while writers keep two tiered tables busy and the tiering worker commits a snapshot every few
hundred milliseconds; each time it restarts on the same SQLite file and object store.

  lake.events  a log table over two buckets, numbered rows with a payload (each tiering round
               writes a sizeable Parquet file, so kills often land inside one)
  lake.kv      a primary-key table: upserts and deletes of 500 keys

Afterwards, once the lake has caught up with the logs:
  - the log table's log read has every acknowledged row once; the union read equals it; the lake
    alone (read by icebird, an Iceberg reader from npm) has every row of the log exactly once;
  - the primary-key table's union read and icebird's read of the lake equal its KV snapshot read;
  - no Parquet file of a round a kill cut short is left once the restarted node has committed a
    round (the orphan sweep).
The random seed is printed (MINK_TEST_SEED repeats a run).

Usage: lake_crash_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import json
import os
import random
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

KILLS = 10
T0 = time.monotonic()


def log(msg):
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


class Writers:
    """Writes batches to both tables until stopped; remembers what the node acknowledged."""

    def __init__(self, node, rng):
        self.node, self.rng = node, rng
        self.next_seq = 0
        self.acked_events = set()
        self.attempts = self.failures = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def write(self, table, lines, *args):
        self.attempts += 1
        r = self.node.mink("write", table, *args, check=False, timeout=30,
                           input="".join(json.dumps(x) + "\n" for x in lines))
        if r.returncode != 0:
            self.failures += 1
            time.sleep(0.05)
        return r.returncode == 0

    def run(self):
        while not self.stopping.is_set():
            seqs = range(self.next_seq, self.next_seq + 3000)
            self.next_seq += 3000   # never reused, acknowledged or not
            # Payloads that do not compress away: each round's Parquet file is a few MB.
            if self.write("lake.events", [{"seq": s, "payload": self.rng.randbytes(120).hex()}
                                          for s in seqs]):
                self.acked_events.update(seqs)
            keys = [self.rng.randrange(500) for _ in range(200)]
            self.write("lake.kv", [{"k": k, "v": self.next_seq + i} for i, k in enumerate(keys)])
            self.write("lake.kv", [{"k": self.rng.randrange(500)} for _ in range(20)], "--delete")

    def start(self):
        self.thread.start()

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=120)


def committed_files(table_dir):
    """Every data and delete file that the current snapshot's manifests name (python3-avro)."""
    script = r"""
import json, sys, avro.datafile, avro.io
def read(path):
    with open(path, 'rb') as f:
        return list(avro.datafile.DataFileReader(f, avro.io.DatumReader()))
meta = json.load(open(sys.argv[1]))
snap = [s for s in meta['snapshots'] if s['snapshot-id'] == meta['current-snapshot-id']][0]
files = []
for m in read(snap['manifest-list'].replace('file://', '', 1)):
    files += [e['data_file']['file_path'].replace('file://', '', 1)
              for e in read(m['manifest_path'].replace('file://', '', 1))]
print(json.dumps(files))
"""
    with open(os.path.join(table_dir, "metadata", "version-hint.text")) as f:
        version = f.read().strip()
    r = subprocess.run(["/usr/bin/python3", "-c", script,
                        os.path.join(table_dir, "metadata", f"v{version}.metadata.json")],
                       capture_output=True, text=True, timeout=60, check=True)
    return set(json.loads(r.stdout))


def parquet_files(table_dir):
    return {os.path.join(d, f) for d, _, fs in os.walk(os.path.join(table_dir, "data"))
            for f in fs if f.endswith(".parquet")}


def main():
    minktest.hard_deadline(420)
    minktest.require_modules("avro")
    minktest.require_node_modules("icebird")
    seed = int(os.environ.get("MINK_TEST_SEED", str(int(time.time()))))
    log(f"seed {seed} (MINK_TEST_SEED={seed} repeats this run)")
    rng = random.Random(seed)
    checks = minktest.Checks()
    node = minktest.MinkNode(sys.argv[1], "lake-crash")
    writers = None
    try:
        node.start()
        node.mink("db", "create", "lake")
        node.mink("table", "create", "lake.events", "-C", "seq BIGINT NOT NULL", "-C", "payload STRING",
                  "--bucket-count", "2", "--lake", "iceberg", "--lake-freshness", "200ms")
        node.mink("table", "create", "lake.kv", "-C", "k INT NOT NULL", "-C", "v BIGINT",
                  "--primary-key", "k", "--bucket-count", "2", "--lake", "iceberg",
                  "--lake-freshness", "200ms")
        writers = Writers(node, random.Random(seed + 1))
        writers.start()
        for i in range(KILLS):
            time.sleep(rng.uniform(0.3, 2.0))
            node.kill()
            log(f"kill {i + 1}: SIGKILL after {len(writers.acked_events)} acknowledged events")
            node.restart()
        writers.stop()
        log(f"writers: {writers.attempts} writes, {writers.failures} failed while the node was down")
        checks.ok("the lake catches up with both logs after the last restart",
                  minktest.wait_until(60, lambda: minktest.lake_caught_up(node, "lake.events") and minktest.lake_caught_up(node, "lake.kv"),
                                      interval=0.3))

        log_rows = minktest.sorted_rows(node.mink("read", "lake.events", timeout=300).stdout)
        seqs = [r["seq"] for r in log_rows]
        checks.expect("lake.events: the log has no row twice", len(seqs), len(set(seqs)))
        checks.expect("lake.events: every acknowledged row is in the log", set(),
                      writers.acked_events - set(seqs))
        union = minktest.sorted_rows(node.mink("read", "lake.events", "--mode", "union", timeout=300).stdout)
        checks.ok("lake.events: the union read equals the log read", union == log_rows,
                  f"{len(union)} rows against {len(log_rows)}")
        lake_rows, events_dir = minktest.icebird_read(node, "lake.events")
        lake_seqs = [r["seq"] for r in lake_rows]
        checks.expect("lake.events: the lake (icebird) has no row twice", len(lake_seqs), len(set(lake_seqs)))
        checks.expect("lake.events: the lake (icebird) misses no row of the log", set(),
                      set(seqs) - set(lake_seqs))
        checks.ok("lake.events: the lake (icebird) equals the log read", lake_rows == log_rows,
                  f"{len(lake_rows)} rows against {len(log_rows)}")

        snapshot = minktest.sorted_rows(node.mink("read", "lake.kv", "--mode", "snapshot").stdout)
        checks.ok("lake.kv: the union read equals the KV snapshot read",
                  minktest.sorted_rows(node.mink("read", "lake.kv", "--mode", "union").stdout) == snapshot)
        kv_rows, kv_dir = minktest.icebird_read(node, "lake.kv")
        checks.ok("lake.kv: the lake (icebird) equals the KV snapshot read", kv_rows == snapshot,
                  f"{len(kv_rows)} rows against {len(snapshot)}")

        orphans = sum(len(parquet_files(d) - committed_files(d)) for d in (events_dir, kv_dir))
        log(f"{orphans} Parquet files of tiering rounds that a kill cut short (in no manifest) not yet swept")
        # The first commit after the last restart sweeps them; tier once more to be sure there is one.
        node.mink("write", "lake.events", input=json.dumps({"seq": -1, "payload": "sweep"}) + "\n")
        checks.ok("the files of rounds a kill cut short are removed",
                  minktest.wait_until(30, lambda: all(parquet_files(d) == committed_files(d)
                                                      for d in (events_dir, kv_dir)), interval=0.5),
                  str([sorted(parquet_files(d) - committed_files(d)) for d in (events_dir, kv_dir)]))
        rc = node.stop()
        checks.expect("the node stops cleanly", 0, rc)
    except Exception as e:  # noqa: BLE001
        import traceback
        traceback.print_exc()
        checks.fail(f"lake crash: {type(e).__name__}: {e}")
    finally:
        if writers:
            writers.stopping.set()
        try:
            checks.finish(node)
        finally:
            node.cleanup()


if __name__ == "__main__":
    main()
