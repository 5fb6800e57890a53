"""Shared helpers of the cluster integration tests (cluster_kafka_test.py, cluster_flight_test.py,
cluster_failover_test.py, cluster_fencing_test.py): the start and the end of a test of three or
four `mink serve` nodes sharing one PostgreSQL database and one S3 bucket, the owners of a
table's buckets as `mink table offsets` answers them, snapshot reads, and, for the tests with
Kafka, a numbered idempotent producer and a reader of a whole topic.

    cluster_helpers.start_test(400, "path/to/mink")         # hard deadline, usage
    nodes = cluster_helpers.shared_cluster(sys.argv[1], "cluster")
    checks = minktest.Checks()
    try:
        ...
    except Exception as e:  # noqa: BLE001
        cluster_helpers.failed(checks, "cluster", e)
    finally:
        cluster_helpers.finish(checks, nodes)                # stop, logs on failure, exit

confluent_kafka is imported only inside what uses it (NumberedProducer, read_topic), so a test
without Kafka does not need it; a test with Kafka calls minktest.require_modules("confluent_kafka")
first.
"""

import json
import os
import subprocess
import sys
import threading
import time
import traceback

import minktest


# ---------------------------------------------------------------- start and end of a test

def start_test(budget_s, *usage):
    """The hard deadline of `budget_s` seconds, and the command line: the arguments named in
    `usage` ("path/to/mink", ...) must be there, or a usage line and exit status 2."""
    minktest.hard_deadline(budget_s)
    if len(sys.argv) < 1 + len(usage):
        print(f"usage: {sys.argv[0]} {' '.join(usage)}", file=sys.stderr)
        sys.exit(2)


def make_nodes(mink_bin, name, meta_url, storage_uri, ids=(1, 2, 3)):
    """MinkNodes (not started) `name`1, `name`2, ... with the node ids `ids`, on the shared
    storage URI and metadata URL; `meta_url` may instead be a function of the node id (a URL
    of each node's own, e.g. through a proxy)."""
    return [minktest.MinkNode(mink_bin, f"{name}{i}", node_id=i,
                              meta_url=meta_url(i) if callable(meta_url) else meta_url,
                              storage_uri=storage_uri) for i in ids]


def shared_cluster(mink_bin, name, ids=(1, 2, 3)):
    """make_nodes() on a fresh PostgreSQL database and S3 bucket (minktest.cluster_stores())."""
    meta_url, storage = minktest.cluster_stores()
    return make_nodes(mink_bin, name, meta_url, storage, ids)


def failed(checks, name, e):
    """An exception of the test: its trace, and a failed check `name: type: message`."""
    traceback.print_exc()
    checks.fail(f"{name}: {type(e).__name__}: {e}")


def finish(checks, nodes, stop_timeout=30):
    """The end of a test: every node still running is resumed (in case the test failed while
    it was paused) and stopped (SIGINT, `stop_timeout` s), the nodes' logs are printed when a
    check failed, their directories removed, and the process exits (Checks.finish)."""
    for n in nodes:
        if n.proc is not None:
            try:
                n.resume()
            except Exception:  # noqa: BLE001
                pass
            n.stop(timeout=stop_timeout)
    if checks.failures:
        for n in nodes:
            print(f"---- node {n.node_id} log:\n{n.log_tail(60)}", file=sys.stderr)
    for n in nodes:
        n.cleanup()
    checks.finish()


# ---------------------------------------------------------------- the cluster's view over Flight

def owners(node, table, timeout=60, empty_on_timeout=False):
    """{bucket: owner} as `node` answers `mink table offsets`, {} when it does not answer (an
    error status; with empty_on_timeout also no answer within `timeout` s, which otherwise
    raises subprocess.TimeoutExpired)."""
    try:
        r = node.mink("table", "offsets", table, "--format", "json", check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        if not empty_on_timeout:
            raise
        return {}
    if r.returncode != 0:
        return {}
    return {b["bucket"]: b["owner"] for b in map(json.loads, r.stdout.splitlines())}


def spread(nodes, table, per_node, among=None, owners_of=owners):
    """Whether every node in `among` (default: all) names the same owners for `table`, all of
    them live nodes in `among`, each owning `per_node` buckets. owners_of(node, table) asks a
    node (default: owners())."""
    among = among or nodes
    views = [owners_of(n, table) for n in among]
    if not views[0] or any(v != views[0] for v in views):
        return False
    counts = {}
    for o in views[0].values():
        counts[o] = counts.get(o, 0) + 1
    return sorted(counts) == sorted(n.node_id for n in among) and \
        all(c == per_node for c in counts.values())


def snapshot(node, table):
    """{id: row} of a primary-key table as `mink read --mode snapshot` from `node` returns it."""
    r = node.mink("read", table, "--mode", "snapshot", "--format", "json", timeout=120)
    return {row["id"]: row for row in map(json.loads, r.stdout.splitlines())}


# ---------------------------------------------------------------- numbered sequences

def lost_and_duplicated(acked, seen):
    """(lost, duplicated, counts): the acknowledged numbers not in `seen` and the numbers in it
    more than once, each sorted, and {number: how often it is in `seen`}."""
    counts = {}
    for n in seen:
        counts[n] = counts.get(n, 0) + 1
    lost = sorted(n for n in acked if n not in counts)
    dup = sorted(n for n, k in counts.items() if k > 1)
    return lost, dup, counts


# ---------------------------------------------------------------- Kafka (confluent_kafka)

class NumberedProducer:
    """Produces 0, 1, 2, ... (key and value the number) to `topic` with an idempotent producer
    until stopped; remembers what was acknowledged, when, and in which partition."""

    def __init__(self, bootstrap, topic, rate_per_s=200, message_timeout_ms=60000):
        from confluent_kafka import Producer

        config = {"bootstrap.servers": bootstrap, "enable.idempotence": True,
                  "linger.ms": 5, "message.timeout.ms": message_timeout_ms,
                  "topic.metadata.refresh.interval.ms": 1000,
                  # librdkafka's own account of each partition's queues, kept for a stop that
                  # leaves records undelivered (stuck()).
                  "statistics.interval.ms": 5000, "stats_cb": self.note_stats}
        if os.environ.get("MINK_RDKAFKA_DEBUG"):  # e.g. eos,msg: librdkafka's own account, on stderr
            config["debug"] = os.environ["MINK_RDKAFKA_DEBUG"]
        self.stats = None  # the newest statistics JSON (a str)
        self.p = Producer(config)
        self.topic = topic
        self.rate = rate_per_s
        self.acked = set()
        self.ack_times = []  # (monotonic time, number, partition)
        self.errors = []
        self.failure = None  # the exception that stopped the producer (a fatal librdkafka error)
        self.next = 0
        self.stopping = False
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def report(self, err, msg):
        with self.lock:
            if err is not None:
                self.errors.append(str(err))
            else:
                n = int(msg.value())
                self.acked.add(n)
                self.ack_times.append((time.monotonic(), n, msg.partition()))

    def note_stats(self, stats_json):
        self.stats = stats_json

    def stuck(self):
        """librdkafka's last account of where undelivered records wait: per partition its leader,
        queued, in-transmit and in-flight counts; the idempotence state; each broker's state and
        requests waiting for an answer. A line to print beside a failed check."""
        if not self.stats:
            return "no statistics yet"
        s = json.loads(self.stats)
        parts = s.get("topics", {}).get(self.topic, {}).get("partitions", {})
        # Partition -1: records not yet given a partition (no metadata for the topic).
        queued = {p: (v.get("leader"), v.get("msgq_cnt"), v.get("xmit_msgq_cnt"), v.get("msgs_inflight"))
                  for p, v in parts.items()
                  if v.get("msgq_cnt") or v.get("xmit_msgq_cnt") or v.get("msgs_inflight")}
        brokers = {b.get("nodeid"): (b.get("state"), b.get("outbuf_cnt"), b.get("waitresp_cnt"))
                   for b in s.get("brokers", {}).values() if b.get("nodeid", -1) >= 0}
        return (f"partitions (leader, queued, in transmit, in flight): {queued}; eos {s.get('eos')};"
                f" brokers (state, to send, awaiting answer): {brokers}")

    def run(self):
        try:
            while not self.stopping:
                v = str(self.next).encode()
                try:
                    self.p.produce(self.topic, key=v, value=v, on_delivery=self.report)
                    self.next += 1
                except BufferError:
                    pass
                self.p.poll(1.0 / self.rate)
        except Exception as e:  # noqa: BLE001 - a fatal client error ends the producer: kept for the checks
            self.failure = f"{type(e).__name__}: {e}"
            print(f"the producer stopped: {self.failure}", file=sys.stderr, flush=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self, flush_s=60):
        """Stops producing; the number of records still undelivered after `flush_s` s."""
        self.stopping = True
        self.thread.join(timeout=30)
        return self.p.flush(flush_s)

    def poll_for(self, seconds):
        """Serves callbacks for `seconds` (a single poll returns at the first event)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.p.poll(0.5)

    def acked_after(self, t):
        """The numbers acknowledged after monotonic time t."""
        with self.lock:
            return [n for (at, n, _) in self.ack_times if at > t]

    def acked_since(self, t):
        """How many numbers were acknowledged after monotonic time t."""
        with self.lock:
            return sum(1 for (at, _, _) in self.ack_times if at > t)


def read_topic(bootstrap, topic, partitions, expected_count, seconds=60):
    """Every record of `topic` (partitions 0..partitions-1) from the start: a list of numbers
    (duplicates kept). Reads until it has `expected_count` and nothing came for 2 s, at most
    `seconds`."""
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"reader-{time.time()}",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    seen = []
    deadline = time.monotonic() + seconds
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        msgs = c.consume(1000, timeout=0.5)
        real = [m for m in msgs if m.error() is None]
        seen.extend(int(m.value()) for m in real)
        if real:
            quiet_since = time.monotonic()
        elif len(seen) >= expected_count and time.monotonic() - quiet_since > 2:
            break
    threading.Thread(target=c.close, daemon=True).start()
    return seen
