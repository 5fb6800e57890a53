#!/usr/bin/python3
"""The chaos suite: nothing acknowledged is lost or applied twice, whatever fails, on three
`mink serve` nodes on the harness's PostgreSQL and S3 server. Each node reaches PostgreSQL
through a fault proxy of its own (pg_proxy.py) and the object store through a shared one
(s3_proxy.py). A random schedule from a printed seed (MINK_CHAOS_SEED=<seed> repeats it) injects,
one at a time while every workload runs:

- the answer to a COMMIT lost (forwarded, committed, reply dropped with the connection);
- a node's database black-holed for less, and for more, than the session timeout;
- SIGSTOP of a node while the workloads write through it, and of the consumer group's
  coordinator while the consumer commits;
- kill -9 of a node the clients write through (restarted two seconds later);
- object-store PUTs that fail (500) and PUTs that are slow.

Workloads, all at once, through every node in turn: idempotent `mink write`s of unique ids;
non-idempotent DoPuts of unique ids (an independent Flight client, no writer id); increments to
a primary-key table with the aggregation merge engine (idempotent DoPuts, each retried with its
writer id and sequence until acknowledged); an idempotent Kafka producer of a dense sequence
(librdkafka); a consumer group committing offsets.

The checker fails the run when an acknowledged record is missing, when any record is stored
twice (no write is ever sent twice but the idempotent retries), when a sum differs from the sum
of its acknowledged increments, when an object the log references is missing (every table is
read in full from every node, after the GC grace and after a restart of every node), when the
group's committed offset moves backwards, when the Kafka producer stops on a fatal error, or
when the metadata log (copied as the run goes) holds a commit of a stream by a process that did
not own it at that epoch.

MINK_CHAOS_SECONDS sets the length of the schedule (default 150; the release mode runs 3600).

Usage: chaos_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import collections
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_helpers  # noqa: E402
import minktest  # noqa: E402
import pg_proxy  # noqa: E402
import s3_proxy  # noqa: E402

minktest.require_modules("confluent_kafka", "kafka")
from confluent_kafka import Consumer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
import cluster_fencing_test as fencing  # noqa: E402  (the log copy and its validator)
from kafka.protocol.commit import GroupCoordinatorRequest_v0  # noqa: E402
from kafka_wire import Wire  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PUT = os.path.join(HERE, "flight_idempotent_put.js")
SESSION_TIMEOUT_S = 3
EVENTS = "chaos.events"
SUMS = "chaos.sums"
TOPIC = "chaos-k"
PARTITIONS = 3
GROUP = "chaos-g"
GC_GRACE_S = 10
log = minktest.log


class Cluster:
    """The nodes, their proxies, and which node is down (paused or killed) right now."""

    def __init__(self, mink_bin):
        meta_url, storage = minktest.cluster_stores()
        self.meta_url = meta_url
        pg = urllib.parse.urlsplit(meta_url)
        self.pg = {i: pg_proxy.PgProxy(pg.hostname, pg.port, f"pg{i}") for i in (1, 2, 3)}
        self.s3 = s3_proxy.S3Proxy(s3_proxy.S3Proxy.upstream_port_of(storage))
        self.nodes = cluster_helpers.make_nodes(
            mink_bin, "chaos", lambda i: pg_proxy.proxied_url(meta_url, self.pg[i].port),
            self.s3.storage_uri(storage))
        self.by_id = {n.node_id: n for n in self.nodes}
        self.lock = threading.Lock()
        self.down = set()

    def flags(self):
        return ["--session-timeout", f"{SESSION_TIMEOUT_S}s", "--compaction-interval", "2s",
                "--kv-snapshot-records", "20", "--kv-snapshot-interval", "3s",
                "--gc-delete-grace", f"{GC_GRACE_S}s"]

    def pick(self, rng):
        """A node for the next request: any, now and then the one that is down."""
        with self.lock:
            up = [n for n in self.nodes if n.node_id not in self.down]
        return rng.choice(self.nodes if not up or rng.random() < 0.15 else up)


def run(cmd, timeout=90, input=None):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=input)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, None, "", f"timed out after {timeout} s")


class Workload(threading.Thread):
    def __init__(self, cluster, seed, name):
        super().__init__(daemon=True, name=name)
        self.cluster = cluster
        self.rng = random.Random(seed)
        self.stopping = False
        self.lock = threading.Lock()


class IdempotentWrites(Workload):
    """`mink write` of 5 unique ids at a time (the CLI retries with its writer id)."""

    def __init__(self, cluster, seed):
        super().__init__(cluster, seed, "idempotent-writes")
        self.next = 0
        self.writes = []  # (ids, rc, stderr)

    def run(self):
        while not self.stopping:
            ids = list(range(self.next, self.next + 5))
            self.next += 5
            node = self.cluster.pick(self.rng)
            r = node.mink("write", EVENTS, check=False, timeout=120,
                          input="".join(json.dumps({"id": k, "note": "i"}) + "\n" for k in ids))
            with self.lock:
                self.writes.append((ids, r.returncode, r.stderr.strip()))


class PlainWrites(Workload):
    """DoPuts of 3 unique ids without a writer id, by an independent Flight client: never sent
    twice."""

    def __init__(self, cluster, seed):
        super().__init__(cluster, seed, "plain-writes")
        self.next = 1_000_000_000
        self.writes = []

    def run(self):
        while not self.stopping:
            first = self.next
            self.next += 3
            node = self.cluster.pick(self.rng)
            r = run(["node", PUT, str(node.flight_port), "put", EVENTS, "-1", "-1", str(first), "3"])
            with self.lock:
                self.writes.append((list(range(first, first + 3)), r.returncode, r.stderr.strip()))
            time.sleep(0.1)


class Increments(Workload):
    """Increments of a sum by key, each an idempotent DoPut retried with its writer id and
    sequence (through any node) until it is acknowledged."""

    def __init__(self, cluster, seed):
        super().__init__(cluster, seed, "increments")
        self.acked = {}  # key -> sum of acknowledged increments
        self.unknown = {}  # key -> increments never acknowledged (the run ended first)
        self.retries = 0
        self.count = 0
        self.writer = None

    def run(self):
        while self.writer is None and not self.stopping:
            r = run(["node", PUT, str(self.cluster.pick(self.rng).flight_port), "init-writer"])
            if r.returncode == 0:
                self.writer = json.loads(r.stdout)["writer_id"]
        seq = 0
        while not self.stopping:
            key, qty = self.rng.randrange(8), self.rng.randrange(1, 100)
            deadline = time.monotonic() + 120
            done = False
            while time.monotonic() < deadline:
                node = self.cluster.pick(self.rng)
                r = run(["node", PUT, str(node.flight_port), "put-ints", SUMS, str(self.writer),
                         str(seq), "id,qty", f"{key},{qty}"])
                if r.returncode == 0:
                    done = True
                    break
                self.retries += 1
                time.sleep(0.3)
            with self.lock:
                bucket = self.acked if done else self.unknown
                bucket[key] = bucket.get(key, 0) + qty
                self.count += 1
            seq += 1


class GroupCommits(Workload):
    """A consumer in group GROUP that commits what it read every 20 records; and a monitor that
    reads the group's committed offsets twice a second and remembers any that moved back."""

    def __init__(self, cluster, seed):
        super().__init__(cluster, seed, "group-commits")
        self.commits = 0
        self.commit_errors = 0
        self.backwards = []
        self.highest = {}

    def run(self):
        threading.Thread(target=self.monitor, daemon=True).start()
        c = Consumer({"bootstrap.servers": ",".join(n.broker for n in self.cluster.nodes),
                      "group.id": GROUP, "auto.offset.reset": "earliest",
                      "enable.auto.commit": False, "session.timeout.ms": 6000,
                      "topic.metadata.refresh.interval.ms": 1000})
        c.subscribe([TOPIC])
        read = 0
        while not self.stopping:
            for m in c.consume(100, timeout=0.5):
                if m.error() is None:
                    read += 1
            if read >= 20:
                read = 0
                try:
                    c.commit(asynchronous=False)
                    self.commits += 1
                except Exception:  # noqa: BLE001 - a refused commit is retried with the next
                    self.commit_errors += 1
        threading.Thread(target=c.close, daemon=True).start()

    def monitor(self):
        m = Consumer({"bootstrap.servers": ",".join(n.broker for n in self.cluster.nodes),
                      "group.id": GROUP, "enable.auto.commit": False})
        parts = [TopicPartition(TOPIC, p) for p in range(PARTITIONS)]
        while not self.stopping:
            try:
                got = m.committed(parts, timeout=5)
            except Exception:  # noqa: BLE001 - no coordinator right now
                time.sleep(0.5)
                continue
            for tp in got:
                if tp.error is not None or tp.offset < 0:
                    continue
                high = self.highest.get(tp.partition, -1)
                if tp.offset < high:
                    self.backwards.append((round(time.monotonic() - minktest.STARTED, 1), tp.partition, high, tp.offset))
                self.highest[tp.partition] = max(high, tp.offset)
            time.sleep(0.5)
        threading.Thread(target=m.close, daemon=True).start()


def group_coordinator(cluster):
    for n in cluster.nodes:
        try:
            w = Wire(n.broker, timeout=3)
            r = w.send(GroupCoordinatorRequest_v0(GROUP))
            w.close()
            if r.error_code == 0:
                return cluster.by_id.get(r.coordinator_id)
        except Exception:  # noqa: BLE001
            continue
    return None


def inject(cluster, rng, kind, counts):
    """One fault; returns when it is over (the node resumed or restarted, the database back)."""
    node = rng.choice(cluster.nodes)
    counts[kind] = counts.get(kind, 0) + 1
    if kind == "commit-reply-lost":
        cluster.pg[node.node_id].lose_commit_replies(rng.randrange(1, 4))
        log(f"fault: the answers of the next COMMITs of node {node.node_id} are lost")
        time.sleep(3)
    elif kind in ("db-blackhole-short", "db-blackhole-long"):
        seconds = rng.uniform(1.0, 2.0) if kind.endswith("short") else rng.uniform(5.0, 7.0)
        log(f"fault: node {node.node_id}'s database black-holed for {seconds:.1f} s")
        cluster.pg[node.node_id].cut("blackhole")
        time.sleep(seconds)
        cluster.pg[node.node_id].heal()
    elif kind in ("sigstop-writer", "sigstop-group-coordinator"):
        if kind == "sigstop-group-coordinator":
            node = group_coordinator(cluster) or node
        seconds = rng.uniform(4.0, 6.0)
        log(f"fault: SIGSTOP node {node.node_id} ({kind}) for {seconds:.1f} s")
        with cluster.lock:
            cluster.down.add(node.node_id)
        node.pause()
        time.sleep(seconds)
        node.resume()
        with cluster.lock:
            cluster.down.discard(node.node_id)
    elif kind == "kill-9":
        log(f"fault: kill -9 node {node.node_id}")
        with cluster.lock:
            cluster.down.add(node.node_id)
        node.kill()
        time.sleep(2)
        node.restart()
        with cluster.lock:
            cluster.down.discard(node.node_id)
    elif kind == "s3-put-errors":
        count = rng.randrange(3, 10)
        log(f"fault: the next {count} object-store PUTs fail")
        cluster.s3.fail_puts(count)
        time.sleep(2)
    elif kind == "s3-slow-puts":
        seconds = rng.uniform(1.0, 3.0)
        log(f"fault: the next 5 object-store PUTs wait {seconds:.1f} s")
        cluster.s3.slow_puts(seconds, 5)
        time.sleep(seconds + 1)


FAULTS = ["commit-reply-lost", "commit-reply-lost", "db-blackhole-short", "db-blackhole-long",
          "sigstop-writer", "sigstop-group-coordinator", "kill-9", "s3-put-errors", "s3-slow-puts"]


def read_events(node):
    r = node.mink("read", EVENTS, "--format", "json", check=False, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"reading {EVENTS} from node {node.node_id}: {r.stderr.strip()}")
    count = {}
    for row in map(json.loads, r.stdout.splitlines()):
        count[row["id"]] = count.get(row["id"], 0) + 1
    return count


def read_sums(node):
    r = node.mink("read", SUMS, "--mode", "snapshot", "--format", "json", check=False, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"reading {SUMS} from node {node.node_id}: {r.stderr.strip()}")
    return {row["id"]: row["qty"] for row in map(json.loads, r.stdout.splitlines())}


def read_all(node, acked):
    """The topic's records from the start through `node`, read until every acknowledged one is
    there or the budget passes: 2 minutes and a millisecond a record (the long mode reads ~500,000
    over a WAL of small objects). Returns (values, whether the budget ran out with records still
    coming in its last 10 s): such a read is slow, not proof of a loss, and the check says so; one
    that went quiet before its end found the missing records nowhere."""
    seconds = 120 + len(acked) / 1000
    c = Consumer({"bootstrap.servers": node.broker, "group.id": f"chaos-reader-{time.time()}",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.assign([TopicPartition(TOPIC, p, 0) for p in range(PARTITIONS)])
    seen = []
    missing = set(acked)
    deadline = time.monotonic() + seconds
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        got = [m for m in c.consume(1000, timeout=0.5) if m.error() is None]
        for m in got:
            seen.append(int(m.value()))
            missing.discard(int(m.value()))
        if got:
            quiet_since = time.monotonic()
        elif not missing and time.monotonic() - quiet_since > 2:
            break
    threading.Thread(target=c.close, daemon=True).start()
    return seen, bool(missing) and time.monotonic() - quiet_since < 10


def stored_records(node):
    """How many records the topic stores: the sum of its partitions' end offsets (each acknowledged
    record once, with any record whose write was answered "may be stored")."""
    r = node.mink("table", "offsets", f"kafka.{TOPIC}", check=False, timeout=60)
    if r.returncode != 0:
        return f"unknown ({r.stderr.strip()[:200]})"
    return sum(json.loads(line)["end"] - json.loads(line)["start"] for line in r.stdout.splitlines())


def check_data(checks, cluster, when, idem, plain, incs, producer, read_kafka):
    acked = {k for ids, rc, _ in idem.writes + plain.writes if rc == 0 for k in ids}
    for n in cluster.nodes:
        count = read_events(n)
        lost = sorted(acked - set(count))
        twice = sorted(k for k, c in count.items() if c > 1)
        checks.ok(f"{when}: {EVENTS} from node {n.node_id}: every acknowledged id ({len(acked)})",
                  not lost, f"{len(lost)} lost, first {lost[:10]}")
        checks.ok(f"{when}: {EVENTS} from node {n.node_id}: no id stored twice", not twice,
                  f"{len(twice)}: {twice[:10]}")
        sums = read_sums(n)
        wrong = {k: (sums.get(k, 0), v) for k, v in incs.acked.items()
                 if not (v <= sums.get(k, 0) <= v + incs.unknown.get(k, 0))}
        checks.ok(f"{when}: {SUMS} from node {n.node_id}: each sum is the sum of its acknowledged"
                  " increments", not wrong, f"(stored, acknowledged): {wrong}")
    if read_kafka is not None:
        seen_kafka, ran_out = read_kafka
        # Counted once (a count per value would be quadratic: the long mode reads ~500,000).
        dups = sorted(v for v, k in collections.Counter(seen_kafka).items() if k > 1)
        lost = sorted(producer.acked - set(seen_kafka))
        where = {}
        lost_set = set(lost)
        with producer.lock:
            for _, n, p in producer.ack_times:
                if n in lost_set:
                    where[p] = where.get(p, 0) + 1
        checks.ok(f"{when}: Kafka: every acknowledged record ({len(producer.acked)})", not lost,
                  f"{len(lost)} not read (by partition {where}), first {lost[:10]}; "
                  + (f"the read ran out of its time with records still coming (slow, not proof of a loss); the topic"
                     f" stores {stored_records(cluster.nodes[0])} records" if ran_out else "lost: the read went quiet"))
        checks.ok(f"{when}: Kafka: no record twice (idempotent producer)", not dups,
                  f"{len(dups)}: {dups[:10]}")


def main():
    # 420 s for the checks after the default schedule; a longer one also reads back more (the
    # topic, read twice, grows with it), so half its extra length more.
    schedule_s = int(os.environ.get("MINK_CHAOS_SECONDS", "150"))
    cluster_helpers.start_test(schedule_s + 420 + max(0, schedule_s - 150) // 2, "path/to/mink")
    minktest.require_node_modules("@grpc/grpc-js", "@grpc/proto-loader", "apache-arrow")
    seed = int(os.environ.get("MINK_CHAOS_SEED") or random.randrange(1 << 30))
    seconds = int(os.environ.get("MINK_CHAOS_SECONDS", "150"))
    print(f"chaos seed {seed}, {seconds} s (MINK_CHAOS_SEED={seed} repeats this schedule)", flush=True)
    rng = random.Random(seed)
    cluster = Cluster(sys.argv[1])
    checks = minktest.Checks()
    commands = fencing.CommandLog(cluster.meta_url)
    workloads = []
    producer = None
    counts = {}
    try:
        for n in cluster.nodes:
            n.start(extra=cluster.flags())
        commands.thread.start()
        n1 = cluster.nodes[0]
        n1.mink("db", "create", "chaos")
        n1.mink("table", "create", EVENTS, "-C", "id BIGINT NOT NULL", "-C", "note STRING",
                "--bucket-key", "id", "--bucket-count", "6")
        n1.mink("table", "create", SUMS, "-C", "id BIGINT NOT NULL", "-C", "qty BIGINT",
                "--primary-key", "id", "--bucket-count", "3",
                "--option", "table.merge-engine=aggregation", "--option", "fields.qty.agg=sum")
        admin = AdminClient({"bootstrap.servers": n1.broker})  # kept until the topic exists
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])[TOPIC].result(30)
        checks.ok("the tables' buckets spread over the three nodes", minktest.wait_until(
            30, lambda: cluster_helpers.spread(cluster.nodes, EVENTS, 2), 0.3))
        idem, plain = IdempotentWrites(cluster, rng.random()), PlainWrites(cluster, rng.random())
        incs, group = Increments(cluster, rng.random()), GroupCommits(cluster, rng.random())
        workloads = [idem, plain, incs, group]
        producer = cluster_helpers.NumberedProducer(
            ",".join(n.broker for n in cluster.nodes), TOPIC, rate_per_s=100,
            message_timeout_ms=300000)
        producer.start()
        for w in workloads:
            w.start()
        time.sleep(3)

        end = time.monotonic() + seconds
        while time.monotonic() < end:
            inject(cluster, rng, rng.choice(FAULTS), counts)
            time.sleep(rng.uniform(1.0, 3.0))
        log(f"schedule over: {sum(counts.values())} faults {counts}")

        for w in workloads:
            w.stopping = True
        for w in workloads:
            w.join(180)
        undelivered = producer.stop(flush_s=120)
        with producer.lock:
            acks = sorted((p, at) for at, _, p in producer.ack_times)
        # A partition's pause: a gap of over 0.5 s between its acknowledgements (records go out
        # every 10 ms), the time a fault kept its writes from being acknowledged.
        gaps = sorted((b[1] - a[1], a[1], a[0]) for a, b in zip(acks, acks[1:]) if a[0] == b[0])
        pauses = [g for g, _, _ in gaps if g > 0.5]
        if pauses:
            # The longest, stamped as the fault lines are, to match them to the fault before.
            longest = ", ".join(f"{g:.1f} s from {at - minktest.STARTED:.1f}s (partition {p})"
                                for g, at, p in reversed(gaps[-3:]))
            log(f"Kafka write pauses over 0.5 s under the schedule: {len(pauses)}, p50"
                f" {pauses[len(pauses) // 2]:.2f} s, p99 {pauses[int(0.99 * (len(pauses) - 1))]:.2f} s,"
                f" longest {pauses[-1]:.2f} s; the three longest: {longest}")
        if undelivered:
            # Polled once more so the statistics are of now, not of up to 5 s before.
            producer.poll_for(6)
            log(f"undelivered Kafka records: {producer.stuck()}")
        checks.expect("every produced Kafka record was delivered or failed by the end", 0, undelivered)
        checks.ok("the idempotent Kafka producer ran to the end (no fatal error: librdkafka gives up on"
                  " answers it cannot reconcile, such as an out-of-order answer to a retry)",
                  producer.failure is None, str(producer.failure))
        checks.ok("every increment was acknowledged (each retried until it was)",
                  not incs.unknown, str(incs.unknown))
        checks.ok("the consumer group's committed offsets never moved backwards",
                  not group.backwards, str(group.backwards[:5]))
        log(f"workloads: {len(idem.writes)} idempotent writes, {len(plain.writes)} plain writes,"
            f" {incs.count} increments ({incs.retries} retries),"
            f" {len(producer.acked)} Kafka records, {group.commits} group commits"
            f" ({group.commit_errors} refused); COMMIT replies lost:"
            f" {sum(p.lost_commits for p in cluster.pg.values())}, PUTs failed {cluster.s3.failed},"
            f" slowed {cluster.s3.slowed}")

        read_at = time.monotonic()
        seen = read_all(n1, producer.acked)
        log(f"the topic read back in {time.monotonic() - read_at:.1f} s ({len(seen[0])} records);"
            f" object-store requests over"
            f" 5 s (not injected): {cluster.s3.slow_requests[:10]}")
        check_data(checks, cluster, "after the schedule", idem, plain, incs, producer, seen)
        time.sleep(GC_GRACE_S + 5)  # replaced objects are deleted: none the log references
        for n in cluster.nodes:
            checks.expect(f"node {n.node_id} stops cleanly", 0, n.stop(timeout=60))
        for n in cluster.nodes:
            n.restart()
        seen = read_all(cluster.nodes[1], producer.acked)
        check_data(checks, cluster, "after the GC grace and a restart of every node", idem, plain,
                   incs, producer, seen)

        commands.stopping = True
        commands.thread.join(30)
        commands.fetch()
        problems, facts = fencing.validate_log(commands.ordered(), [])
        checks.ok("the metadata log was copied as the run went", not commands.errors,
                  "; ".join(commands.errors[:3]))
        checks.ok("every commit of the metadata log is by the stream's owner at its epoch and"
                  " continues the stream", not problems, "\n  " + "\n  ".join(problems[:20]))
        log(f"chaos: {seconds} s, {sum(counts.values())} faults, {checks.failures} violations;"
            f" commits by process {facts['commits_by']}")
    except Exception as e:  # noqa: BLE001
        cluster_helpers.failed(checks, f"chaos (seed {seed})", e)
    finally:
        for w in workloads:
            w.stopping = True
        commands.stopping = True
        for p in cluster.pg.values():
            p.heal()
        if checks.failures:
            print(f"chaos seed {seed}: MINK_CHAOS_SEED={seed} repeats this run", file=sys.stderr)
        cluster_helpers.finish(checks, cluster.nodes, stop_timeout=60)


if __name__ == "__main__":
    main()
