#!/usr/bin/python3
"""cluster_bench: the cluster's figures (docs/performance.md, "Cluster"), with three `mink serve`
nodes on loopback sharing one PostgreSQL database and one S3 server, driven by librdkafka
(python3-confluent-kafka, Debian's /usr/bin/python3).

Phases (--phases, comma-separated; bench/README.md says more):
  failover   kill -9 the leader of a partition that an idempotent producer writes every 5 ms;
             the figure is the time from the kill to the first acknowledgement of a record sent
             after it (which only the new owner can give). The killed node restarts and the
             cluster rebalances before the next kill. --kills times.
  planned    SIGTERM a node, then start it again (it joins and takes buckets back), --moves
             times each, under a producer writing every partition; the figure of an event is
             the longest acknowledgement wait of a record sent within it (the write pause).
  metadata   commands appended to the metadata log per second, cluster-wide, while a producer
             writes a fixed rate to a topic of 3 partitions and then to one of --buckets.
  per-core   the most a producer gets acknowledged from one node and from three, and the CPU
             time the nodes used: MB per CPU-second of the nodes, three against one.
  idle       --idle-buckets (10,000) buckets on three nodes and nothing written: each node's
             CPU, and the coordinator's as a share of one core, over --seconds.
  latency    the object store as it is, then delayed as S3 Express One Zone and as S3
             Standard are (`latency=` of the storage URI): the most a producer gets
             acknowledged in 5 s, then produce acknowledgement p50/p99 at half of it and at
             --light-rate, over --seconds each.

Every loop is bounded by a count and a deadline; nodes and their directories are removed at
exit. Needs MINK_TEST_PG_URL and MINK_TEST_S3_URI: run it under scripts/with-test-services.

Usage: ./scripts/with-test-services /usr/bin/python3 bench/cluster_bench.py build/bin/mink \
           [--phases failover,planned,metadata,per-core,latency] [--kills 20] [--json]
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "integration"))
import minktest  # noqa: E402

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

VALUE = b"x" * 1024


def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def log(*args):
    print(*args, file=sys.stderr, flush=True)


class Cluster:
    """`count` nodes on a fresh PostgreSQL database and S3 bucket of the harness."""

    def __init__(self, mink, count, session_timeout_s, storage_suffix=""):
        meta, storage = minktest.cluster_stores()
        storage += storage_suffix
        self.flags = ["--session-timeout", f"{session_timeout_s}s"]
        self.nodes = [minktest.MinkNode(mink, f"bench-n{i}", node_id=i, meta_url=meta,
                                        storage_uri=storage) for i in (1, 2, 3)][:count]
        self.meta = meta
        for n in self.nodes:
            n.start(extra=self.flags)

    def live(self):
        return [n for n in self.nodes if n.proc is not None]

    def bootstrap(self):
        return ",".join(n.broker for n in self.live())

    def by_id(self, node_id):
        return next(n for n in self.nodes if n.node_id == node_id)

    def leaders(self, topic):
        """{partition: leader id} as a live node answers Metadata ({} on failure)."""
        for n in self.live():
            try:
                md = AdminClient({"bootstrap.servers": n.broker}).list_topics(topic, timeout=5)
                return {p.id: p.leader for p in md.topics[topic].partitions.values()
                        if p.error is None}
            except Exception:  # noqa: BLE001 - try the next node
                continue
        return {}

    def spread(self, topic, partitions):
        """Whether every partition has a live leader and the live nodes share them evenly."""
        leaders = self.leaders(topic)
        live = {n.node_id for n in self.live()}
        if len(leaders) != partitions or not set(leaders.values()) <= live:
            return False
        counts = [list(leaders.values()).count(i) for i in live]
        return max(counts) - min(counts) <= 1

    def create_topic(self, topic, partitions):
        admin = AdminClient({"bootstrap.servers": self.bootstrap()})
        for f in admin.create_topics([NewTopic(topic, partitions)]).values():
            f.result(timeout=120)
        if not minktest.wait_until(120, lambda: self.spread(topic, partitions), interval=0.5):
            raise RuntimeError(f"{topic}: partitions not spread: {self.leaders(topic)}")

    def commands(self):
        r = subprocess.run(["psql", self.meta, "-At", "-c", "SELECT coalesce(max(seq), 0) FROM commands"],
                           capture_output=True, text=True, timeout=30, check=True)
        return int(r.stdout.strip())

    def commands_by_kind(self, after_seq):
        r = subprocess.run(["psql", self.meta, "-At", "-F", " ", "-c",
                            f"SELECT kind, count(*) FROM commands WHERE seq > {after_seq} "
                            "GROUP BY kind ORDER BY 2 DESC"],
                           capture_output=True, text=True, timeout=30, check=True)
        return dict((k, int(v)) for k, v in (line.split() for line in r.stdout.splitlines()))

    def cpu_seconds(self):
        """User + system CPU time of the live nodes' processes so far."""
        tick = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for n in self.live():
            with open(f"/proc/{n.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        return total

    @staticmethod
    def machine_cpu_seconds():
        """Busy CPU time of the whole machine so far (every process: nodes, the S3 server,
        PostgreSQL, the client)."""
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        idle = fields[3] + fields[4]  # idle + iowait
        return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")

    def close(self):
        for n in self.nodes:
            n.cleanup()


class TimedProducer:
    """An idempotent producer that records, per record, when it was produced and acknowledged."""

    def __init__(self, bootstrap, topic, **conf):
        config = {"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                  "linger.ms": 1, "message.timeout.ms": 120000,
                  "topic.metadata.refresh.interval.ms": 1000, "reconnect.backoff.ms": 50,
                  "reconnect.backoff.max.ms": 500, "retry.backoff.ms": 50,
                  "log_level": 2}  # the kills make librdkafka log every lost connection
        config.update(conf)
        self.p = Producer(config)
        self.topic = topic
        self.lock = threading.Lock()
        self.acks = []  # (sent, acked, partition)
        self.errors = 0
        self.bytes_acked = 0

    def send(self, partition=None):
        sent = time.monotonic()

        def done(err, msg):
            with self.lock:
                if err is not None:
                    self.errors += 1
                else:
                    self.acks.append((sent, time.monotonic(), msg.partition()))
                    self.bytes_acked += len(VALUE)

        kwargs = {"on_delivery": done}
        if partition is not None:
            kwargs["partition"] = partition
        while True:
            try:
                self.p.produce(self.topic, VALUE, **kwargs)
                return
            except BufferError:
                self.p.poll(0.01)

    def run_rate(self, seconds, rate, partitions=None, stop=None):
        """Sends `rate` records a second for `seconds` (open loop), round-robin over
        `partitions` (a list) or the default partitioner; stops early when `stop` is set."""
        start = time.monotonic()
        i = 0
        while time.monotonic() - start < seconds and not (stop and stop.is_set()):
            due = start + i / rate
            now = time.monotonic()
            if due > now:
                self.p.poll(due - now)
                continue
            self.send(partitions[i % len(partitions)] if partitions else None)
            i += 1
            if i % 64 == 0:
                self.p.poll(0)
        return i

    def run_max(self, seconds, partitions):
        """Sends as fast as the client takes records for `seconds`; returns MB/s acknowledged
        within the window."""
        start = time.monotonic()
        with self.lock:
            before = self.bytes_acked
        i = 0
        while time.monotonic() - start < seconds:
            self.send(partitions[i % len(partitions)])
            i += 1
            if i % 256 == 0:
                self.p.poll(0)
        with self.lock:
            done = self.bytes_acked - before
        return done / 1e6 / (time.monotonic() - start)

    def flush(self, seconds=60):
        return self.p.flush(seconds)

    def since(self, t):
        with self.lock:
            return [a for a in self.acks if a[0] >= t]


def background(producer, seconds, rate, partitions):
    stop = threading.Event()
    t = threading.Thread(target=producer.run_rate, args=(seconds, rate, partitions, stop),
                         daemon=True)
    t.start()
    return stop, t


# ---- phases


def phase_failover(args, out):
    c = Cluster(args.mink, 3, args.session_timeout)
    try:
        c.create_topic("failover", 3)
        producer = TimedProducer(c.bootstrap(), "failover")
        stop, thread = background(producer, 3600, 200, [0])
        times = []
        for k in range(args.kills):
            leader = c.leaders("failover").get(0)
            victim = c.by_id(leader)
            time.sleep(1.0)
            t0 = time.monotonic()
            victim.kill()
            minktest.wait_until(args.session_timeout + 30,
                                lambda: any(a[2] == 0 for a in producer.since(t0)), interval=0.01)
            after = producer.since(t0)
            first = min((a[1] for a in after if a[2] == 0), default=None)
            if first is None:
                log(f"failover {k + 1}: no acknowledgement within {args.session_timeout + 30} s")
                break
            times.append(first - t0)
            log(f"failover {k + 1}/{args.kills}: node {leader} killed, first ack after "
                f"{times[-1]:.2f} s")
            victim.restart()
            minktest.wait_until(120, lambda: c.spread("failover", 3), interval=0.5)
        stop.set()
        thread.join(timeout=30)
        producer.flush()
        out["failover"] = {"kills": len(times), "session_timeout_s": args.session_timeout,
                           "p50_s": percentile(times, 50), "p99_s": percentile(times, 99),
                           "max_s": max(times) if times else None,
                           "target_s": args.session_timeout + 2, "errors": producer.errors,
                           "times_s": [round(t, 3) for t in times]}
    finally:
        c.close()


def phase_planned(args, out):
    c = Cluster(args.mink, 3, args.session_timeout)
    try:
        c.create_topic("planned", 6)
        producer = TimedProducer(c.bootstrap(), "planned")
        stop, thread = background(producer, 3600, 300, list(range(6)))
        pauses = {"sigterm": [], "join": []}
        time.sleep(2)
        for k in range(args.moves):
            victim = c.nodes[k % 3]
            for event in ("sigterm", "join"):
                t0 = time.monotonic()
                if event == "sigterm":
                    rc = victim.stop(signal.SIGTERM, timeout=60)
                    if rc != 0:
                        log(f"node {victim.node_id} exited with {rc} on SIGTERM")
                    settled = minktest.wait_until(60, lambda: c.spread("planned", 6), 0.5)
                else:
                    victim.restart()
                    settled = minktest.wait_until(120, lambda: c.spread("planned", 6), 0.5)
                time.sleep(2)  # the records sent while it settled are acknowledged by now
                window = [a for a in producer.since(t0) if a[0] <= time.monotonic() - 1.5]
                pause = max((a[1] - a[0] for a in window), default=float("nan"))
                pauses[event].append(pause)
                log(f"planned {event} of node {victim.node_id}: longest wait {pause * 1e3:.0f} ms"
                    f"{'' if settled else ' (did not settle)'}")
        stop.set()
        thread.join(timeout=30)
        producer.flush()
        every = pauses["sigterm"] + pauses["join"]
        out["planned"] = {"events": len(every), "p50_ms": percentile(every, 50) * 1e3,
                          "p99_ms": percentile(every, 99) * 1e3,
                          "sigterm_ms": [round(p * 1e3) for p in pauses["sigterm"]],
                          "join_ms": [round(p * 1e3) for p in pauses["join"]],
                          "target_ms": 1000, "errors": producer.errors}
    finally:
        c.close()


def phase_metadata(args, out):
    c = Cluster(args.mink, 3, args.session_timeout)
    try:
        result = {"rate_records_per_s": args.rate}
        for topic, partitions in (("meta3", 3), (f"meta{args.buckets}", args.buckets)):
            c.create_topic(topic, partitions)
            producer = TimedProducer(c.bootstrap(), topic)
            producer.run_rate(2, args.rate, list(range(partitions)))  # warm up: metadata, batches
            producer.flush()
            time.sleep(1)
            seq0 = c.commands()
            t0 = time.monotonic()
            producer.run_rate(args.seconds, args.rate, list(range(partitions)))
            producer.flush()
            elapsed = time.monotonic() - t0
            seq1 = c.commands()
            kinds = c.commands_by_kind(seq0)
            result[f"{partitions}_buckets"] = {
                "commands_per_s": (seq1 - seq0) / elapsed, "by_kind": kinds,
                "records_acked": len(producer.acks), "seconds": round(elapsed, 2)}
            log(f"metadata, {partitions} buckets: {(seq1 - seq0) / elapsed:.1f} commands/s "
                f"({kinds})")
        small = result["3_buckets"]["commands_per_s"]
        large = result[f"{args.buckets}_buckets"]["commands_per_s"]
        result["growth"] = large / small if small else None
        out["metadata"] = result
    finally:
        c.close()


def max_throughput(c, topic, partitions, seconds):
    producer = TimedProducer(c.bootstrap(), topic, **{"linger.ms": 5,
                                                      "batch.size": 1 << 20,
                                                      "queue.buffering.max.kbytes": 1 << 18})
    producer.run_max(1, list(range(partitions)))  # warm up
    cpu0, all0 = c.cpu_seconds(), Cluster.machine_cpu_seconds()
    t0, bytes0 = time.monotonic(), producer.bytes_acked
    producer.run_max(seconds, list(range(partitions)))
    producer.flush()
    elapsed = time.monotonic() - t0
    cpu = c.cpu_seconds() - cpu0
    machine = Cluster.machine_cpu_seconds() - all0
    mb = (producer.bytes_acked - bytes0) / 1e6
    return {"mb_per_s": mb / elapsed, "node_cpu_s": cpu, "mb_per_cpu_s": mb / cpu if cpu else None,
            "machine_cpu_s": machine, "mb_per_machine_cpu_s": mb / machine if machine else None,
            "seconds": round(elapsed, 2)}


def phase_per_core(args, out):
    result = {}
    for count in (1, 3):
        c = Cluster(args.mink, count, args.session_timeout)
        try:
            c.create_topic("cores", 6)
            result[f"{count}_nodes"] = max_throughput(c, "cores", 6, args.seconds)
            log(f"per-core, {count} node(s): {result[f'{count}_nodes']}")
        finally:
            c.close()
    for key in ("mb_per_cpu_s", "mb_per_machine_cpu_s"):
        one, three = result["1_nodes"][key], result["3_nodes"][key]
        result[f"ratio_3_to_1_{key}"] = three / one if one and three else None
    out["per_core"] = result


def phase_latency(args, out):
    result = {}
    for profile in ("none", "s3-express", "s3-standard"):
        suffix = "" if profile == "none" else f"&latency={profile}"
        c = Cluster(args.mink, 3, args.session_timeout, storage_suffix=suffix)
        try:
            c.create_topic("latency", 6)
            most = max_throughput(c, "latency", 6, 5)
            rate = max(10, int(most["mb_per_s"] * 1e6 / len(VALUE) / 2))
            result[profile] = {"max_mb_per_s": most["mb_per_s"]}
            for load, r in (("half", rate), ("light", min(rate, args.light_rate))):
                producer = TimedProducer(c.bootstrap(), "latency")
                producer.run_rate(2, r, list(range(6)))
                t0 = time.monotonic()
                producer.run_rate(args.seconds, r, list(range(6)))
                producer.flush()
                waits = [a[1] - a[0] for a in producer.since(t0)]
                result[profile][load] = {"records_per_s": r, "p50_ms": percentile(waits, 50) * 1e3,
                                         "p99_ms": percentile(waits, 99) * 1e3,
                                         "records": len(waits), "errors": producer.errors}
            log(f"latency {profile}: {result[profile]}")
        finally:
            c.close()
    out["latency"] = result


def phase_idle(args, out):
    """--idle-buckets log buckets (tables of 1,000) on three nodes, nothing written: each node's
    CPU over --seconds once every bucket has an owner, as a share of one core."""
    c = Cluster(args.mink, 3, args.session_timeout)
    try:
        n1 = c.nodes[0]
        n1.mink("db", "create", "idle")
        tables = max(1, args.idle_buckets // 1000)
        for t in range(tables):
            n1.mink("table", "create", f"idle.t{t}", "-C", "id BIGINT NOT NULL",
                    "--bucket-key", "id", "--bucket-count", "1000", timeout=300)

        def assigned():
            r = subprocess.run(["psql", c.meta, "-At", "-c",
                                "SELECT count(*) FROM commands WHERE kind = 'streams.assign'"],
                               capture_output=True, text=True, timeout=30)
            return r.returncode == 0 and int(r.stdout.strip() or 0) > 0
        minktest.wait_until(300, assigned, interval=1)
        time.sleep(20)  # the opens and the first rounds settle
        coordinator = None
        for m in (json.loads(line) for line in n1.mink("cluster", "nodes", "--format", "json").stdout.splitlines()):
            if m["coordinator"]:
                coordinator = m["node"]
        tick = os.sysconf("SC_CLK_TCK")

        def cpu(n):
            with open(f"/proc/{n.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / tick
        before = {n.node_id: cpu(n) for n in c.nodes}
        seq0 = c.commands()
        t0 = time.monotonic()
        time.sleep(args.seconds)
        elapsed = time.monotonic() - t0
        share = {n.node_id: (cpu(n) - before[n.node_id]) / elapsed for n in c.nodes}
        result = {"buckets": tables * 1000, "seconds": round(elapsed, 1), "coordinator": coordinator,
                  "core_share_by_node": share,
                  "coordinator_core_share": share.get(coordinator),
                  "commands_appended": c.commands() - seq0}
        log(f"idle, {tables * 1000} buckets: {result}")
        out["idle"] = result
    finally:
        c.close()


PHASES = {"failover": phase_failover, "planned": phase_planned, "metadata": phase_metadata,
          "per-core": phase_per_core, "latency": phase_latency, "idle": phase_idle}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mink")
    ap.add_argument("--phases", default="failover,planned,metadata,per-core,latency",
                    help="also: idle")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--moves", type=int, default=3, help="SIGTERM + join events per node round")
    ap.add_argument("--session-timeout", type=int, default=3, help="seconds")
    ap.add_argument("--buckets", type=int, default=1000)
    ap.add_argument("--idle-buckets", type=int, default=10000, help="buckets of the idle phase")
    ap.add_argument("--rate", type=int, default=2000, help="records/s in the metadata phase")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--light-rate", type=int, default=500,
                    help="records/s of the latency phase's light load")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    args.kills = max(1, min(args.kills, 100))
    args.moves = max(1, min(args.moves, 30))
    args.seconds = max(1, min(args.seconds, 600))
    minktest.hard_deadline(3600)
    out = {"date": time.strftime("%Y-%m-%d"), "load": os.getloadavg()[0]}
    for name in args.phases.split(","):
        if name not in PHASES:
            ap.error(f"unknown phase '{name}' (known: {', '.join(PHASES)})")
        PHASES[name](args, out)
    print(json.dumps(out, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
