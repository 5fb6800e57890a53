#!/usr/bin/python3
"""python3-confluent-kafka 1.7.0 (librdkafka 2.0.2) against the Kafka listener of a `mink serve`
of its own:

- AdminClient: create_topics (partition counts, an existing topic, a bad name), list_topics
  (broker, controller, partitions), delete_topics.
- An idempotent producer (enable.idempotence, acks=all) sending a numbered sequence: every
  delivery report a success, offsets 0..N-1 in send order, and a consumer reads every number
  exactly once, in order, with its key, headers and timestamp.
- A consumer group of three consumers on a six-partition topic, committing every message
  synchronously: one consumer, a second joins, a third joins, the third leaves; the assignment
  changes at each step (6 / 3+3 / 2+2+2 / 3+3, disjoint, covering every partition) and every
  message produced is consumed exactly once across the group.
- offsets_for_times with producer timestamps out of order and hours away from the node's clock:
  the first offset whose timestamp is at or after the target, or -1.
- Committed offsets: committed() equals what was consumed, and a new consumer of the same group
  resumes there (only the messages produced after the group stopped).

Usage: kafka_confluent_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

(ck,) = minktest.require_modules("confluent_kafka")
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

GROUP_TOPIC = "grouped"
GROUP_PARTITIONS = 6
# Short timeouts keep the rebalances quick (the defaults are 45 s sessions and 500 ms fetch waits).
CONSUMER_DEFAULTS = {
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 500,
    "max.poll.interval.ms": 20000,
    "fetch.wait.max.ms": 100,
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "topic.metadata.refresh.interval.ms": 1000,
}


def admin_checks(node, checks):
    # The admin handle is a producer inside librdkafka, whose metadata refreshes of known topics
    # ask for auto-creation by default: off, so a deleted topic is not brought back by one.
    admin = AdminClient({"bootstrap.servers": node.broker, "allow.auto.create.topics": False})
    futures = admin.create_topics(
        [NewTopic("admin-four", num_partitions=4, replication_factor=1),
         NewTopic(GROUP_TOPIC, num_partitions=GROUP_PARTITIONS, replication_factor=1),
         NewTopic("idem", num_partitions=1, replication_factor=1)],
        operation_timeout=10, request_timeout=15)
    for name, f in futures.items():
        try:
            f.result(timeout=20)
            checks.ok(f"create_topics {name}", True)
        except KafkaException as e:
            checks.fail(f"create_topics {name}", str(e))

    md = admin.list_topics(timeout=10)
    checks.expect("list_topics: one broker, the advertised listener",
                  [(1, "127.0.0.1", node.kafka_port)],
                  [(b.id, b.host, b.port) for b in md.brokers.values()])
    checks.expect("list_topics: the controller is the node", 1, md.controller_id)
    for name, n in (("admin-four", 4), (GROUP_TOPIC, GROUP_PARTITIONS), ("idem", 1)):
        t = md.topics.get(name)
        checks.expect(f"list_topics: {name} has {n} partitions led by node 1",
                      [(p, 1, [1], [1]) for p in range(n)],
                      sorted((p.id, p.leader, list(p.replicas), list(p.isrs)) for p in t.partitions.values())
                      if t else None)
    single = admin.list_topics(topic="admin-four", timeout=10)
    checks.expect("list_topics(topic=...): that topic", ["admin-four"], sorted(single.topics))
    # The table behind the topic.
    describe = node.mink("table", "describe", "kafka.admin-four").stdout
    checks.ok("the topic is the table kafka.admin-four with 4 buckets",
              "4" in describe and "key" in describe and "headers" in describe, describe)

    again = admin.create_topics([NewTopic("admin-four", num_partitions=2, replication_factor=1)],
                                operation_timeout=10)["admin-four"]
    try:
        again.result(timeout=20)
        checks.fail("create_topics of an existing topic fails")
    except KafkaException as e:
        checks.expect("create_topics of an existing topic: TOPIC_ALREADY_EXISTS",
                      KafkaError.TOPIC_ALREADY_EXISTS, e.args[0].code())
    bad = admin.create_topics([NewTopic("bad name!", num_partitions=1, replication_factor=1)],
                              operation_timeout=10)["bad name!"]
    try:
        bad.result(timeout=20)
        checks.fail("create_topics with a bad name fails")
    except KafkaException as e:
        checks.expect("create_topics with a bad name: INVALID_TOPIC_EXCEPTION",
                      KafkaError.TOPIC_EXCEPTION, e.args[0].code())

    deleted = admin.delete_topics(["admin-four"], operation_timeout=10)["admin-four"]
    try:
        deleted.result(timeout=20)
        checks.ok("delete_topics admin-four", True)
    except KafkaException as e:
        checks.fail("delete_topics admin-four", str(e))
    checks.ok("list_topics no longer has admin-four",
              minktest.wait_until(10, lambda: "admin-four" not in admin.list_topics(timeout=10).topics))
    checks.ok("the table kafka.admin-four is gone",
              "admin-four" not in node.mink("table", "list", "kafka").stdout)
    missing = admin.delete_topics(["never-there"], operation_timeout=10)["never-there"]
    try:
        missing.result(timeout=20)
        checks.fail("delete_topics of a missing topic fails")
    except KafkaException as e:
        checks.expect("delete_topics of a missing topic: UNKNOWN_TOPIC_OR_PART",
                      KafkaError.UNKNOWN_TOPIC_OR_PART, e.args[0].code())


def read_partition(node, checks, topic, n, config):
    """Up to n messages of partition 0 from the beginning, then whatever comes in 0.5 s more."""
    consumer = Consumer({"bootstrap.servers": node.broker, **CONSUMER_DEFAULTS, **config})
    consumer.assign([TopicPartition(topic, 0, ck.OFFSET_BEGINNING)])
    got = []
    deadline = time.monotonic() + 30
    while len(got) < n and time.monotonic() < deadline:
        m = consumer.poll(0.2)
        if m is None:
            continue
        if m.error():
            checks.fail("%s: consume error" % topic, str(m.error()))
            break
        got.append(m)
    extra = consumer.poll(0.5)  # nothing more may arrive
    consumer.close()
    return got, extra


def idempotent_checks(node, checks):
    n = 300
    producer = Producer({"bootstrap.servers": node.broker, "enable.idempotence": True, "acks": "all",
                         "linger.ms": 5, "batch.num.messages": 40, "compression.type": "lz4"})
    reports = []

    def delivered(err, msg):
        reports.append((err, msg.value(), msg.offset()))

    base_ts = int(time.time() * 1000) - 60_000
    for i in range(n):
        while True:
            try:
                producer.produce("idem", value=b"%d" % i, key=b"k%d" % (i % 7), partition=0,
                                 headers=[("seq", b"%d" % i), ("src", b"confluent")],
                                 timestamp=base_ts + i, on_delivery=delivered)
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)
    left = producer.flush(30)
    checks.expect("idempotent producer: everything flushed", 0, left)
    errors = [str(e) for e, _, _ in reports if e is not None]
    checks.expect("idempotent producer: no delivery errors", [], errors[:5])
    checks.expect("idempotent producer: one delivery report per message", n, len(reports))
    checks.expect("idempotent producer: offsets 0..N-1 in send order",
                  [(b"%d" % i, i) for i in range(n)], sorted(((v, o) for _, v, o in reports), key=lambda x: x[1]))

    got, extra = read_partition(node, checks, "idem", n, {"group.id": "idem-reader"})
    checks.expect("idempotent: every number exactly once, in order",
                  [b"%d" % i for i in range(n)], [m.value() for m in got])
    checks.expect("idempotent: offsets 0..N-1", list(range(n)), [m.offset() for m in got])
    checks.ok("idempotent: nothing after the last number", extra is None or extra.error() is not None)
    if len(got) == n:
        checks.expect("idempotent: keys, headers and timestamps as sent",
                      [(b"k%d" % (i % 7), [("seq", b"%d" % i), ("src", b"confluent")],
                        (ck.TIMESTAMP_CREATE_TIME, base_ts + i)) for i in range(n)],
                      [(m.key(), m.headers(), m.timestamp()) for m in got])
    # Again in fetches of about one stored batch each, so that the broker's read-ahead prepares
    # the next fetch while the client parses: what it hands back must be the same records.
    small, _ = read_partition(node, checks, "idem", n,
                              {"group.id": "idem-small", "fetch.max.bytes": 1000,
                               "message.max.bytes": 1000, "max.partition.fetch.bytes": 200})
    checks.expect("idempotent: small fetches read the same records",
                  [(m.offset(), m.key(), m.value(), m.headers(), m.timestamp()) for m in got],
                  [(m.offset(), m.key(), m.value(), m.headers(), m.timestamp()) for m in small])
    watermarks = Consumer({"bootstrap.servers": node.broker, "group.id": "wm"})
    lo, hi = watermarks.get_watermark_offsets(TopicPartition("idem", 0), timeout=10)
    watermarks.close()
    checks.expect("idempotent: watermarks 0 and N", (0, n), (lo, hi))
    offsets = node.mink("table", "offsets", "kafka.idem").stdout.strip()
    checks.expect("idempotent: the table holds N rows", '{"bucket":"b0","start":0,"end":%d,"owner":1}' % n, offsets)


def timestamp_checks(node, checks):
    """offsets_for_times with producer timestamps out of order and far from the commit time:
    the answer is the first offset whose record timestamp is at or after the target."""
    hour = 3600 * 1000
    now = int(time.time() * 1000)
    # Two stored batches: offsets 0-2 (all older than now - 50 min), then 3-5, whose first record
    # is three hours ahead of the clock (a producer whose clock runs ahead).
    batches = [[now - 3 * hour, now - hour, now - 2 * hour], [now + 3 * hour, now - hour // 2, now]]
    producer = Producer({"bootstrap.servers": node.broker, "enable.idempotence": True,
                         "acks": "all", "linger.ms": 0})
    for batch in batches:
        for ts in batch:
            producer.produce("stamped", value=b"%d" % ts, partition=0, timestamp=ts)
        checks.expect("timestamps: batch flushed", 0, producer.flush(30))
    consumer = Consumer({"bootstrap.servers": node.broker, "group.id": "stamped-reader"})
    cases = [
        ("before every record", now - 4 * hour, 0),
        ("between the first batch's records", now - 150 * 60 * 1000, 1),
        ("newer than all of the first batch", now - 50 * 60 * 1000, 3),
        ("two hours ahead: the record three hours ahead", now + 2 * hour, 3),
        ("exactly the newest timestamp", now + 3 * hour, 3),
        ("after every record", now + 3 * hour + 1, -1),
    ]
    for name, target, want in cases:
        found = consumer.offsets_for_times([TopicPartition("stamped", 0, target)], timeout=10)
        checks.expect("offsets_for_times, %s" % name, want, found[0].offset)
    consumer.close()


class GroupMember:
    def __init__(self, node, name, group, log):
        self.name = name
        self.assignment = set()
        self.history = []
        self.log = log
        self.commit_errors = []
        self.consumer = Consumer({"bootstrap.servers": node.broker, "group.id": group,
                                  "client.id": name, **CONSUMER_DEFAULTS})
        self.consumer.subscribe([GROUP_TOPIC], on_assign=self._assigned, on_revoke=self._revoked)
        self.open = True

    def _assigned(self, consumer, partitions):
        self.assignment = {p.partition for p in partitions}
        self.history.append(("assign", sorted(self.assignment)))

    def _revoked(self, consumer, partitions):
        self.assignment = set()
        self.history.append(("revoke", sorted(p.partition for p in partitions)))

    def poll(self, timeout):
        m = self.consumer.poll(timeout)
        if m is None:
            return
        if m.error():
            if m.error().code() != KafkaError._PARTITION_EOF:
                self.log.append((self.name, "error", str(m.error())))
            return
        self.log.append((self.name, m.partition(), m.offset(), m.value()))
        try:
            self.consumer.commit(message=m, asynchronous=False)
        except KafkaException as e:
            self.commit_errors.append(str(e))

    def close(self):
        self.consumer.close()
        self.open = False


def group_checks(node, checks):
    producer = Producer({"bootstrap.servers": node.broker, "acks": "all", "linger.ms": 2})
    produced = []

    def produce(count, tag):
        for i in range(count):
            value = f"{tag}-{i}".encode()
            producer.produce(GROUP_TOPIC, value=value, partition=i % GROUP_PARTITIONS)
            produced.append(value)
        checks.expect(f"group: produced {tag}", 0, producer.flush(15))

    log = []
    members = []

    def consumed_values():
        return [entry[3] for entry in log if entry[1] != "error"]

    def pump(seconds, condition):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for m in members:
                if m.open:
                    m.poll(0.05)
            if condition():
                return True
        return False

    def stable(n_members, sizes):
        live = [m for m in members if m.open]

        def check():
            if len(live) != n_members:
                return False
            parts = [m.assignment for m in live]
            union = set().union(*parts)
            return (sorted(len(p) for p in parts) == sizes and union == set(range(GROUP_PARTITIONS))
                    and sum(len(p) for p in parts) == GROUP_PARTITIONS)

        return check

    def all_consumed():
        return len(consumed_values()) >= len(produced)

    steps = [("one consumer", 1, [6]), ("a second joins", 2, [3, 3]), ("a third joins", 3, [2, 2, 2]),
             ("the third leaves", 2, [3, 3])]
    previous = None
    for step, (what, n_members, sizes) in enumerate(steps):
        if what == "the third leaves":
            members[2].close()
        else:
            members.append(GroupMember(node, f"member-{len(members) + 1}", "trio", log))
        got = pump(45, stable(n_members, sizes))
        now = {m.name: sorted(m.assignment) for m in members if m.open}
        if not checks.ok(f"group: {what}: assignment {sizes} over 6 partitions, disjoint", got, str(now)):
            for m in members:
                print(m.name, m.history, file=sys.stderr)
            return
        checks.ok(f"group: {what}: the assignment changed", now != previous, str(now))
        previous = now
        if what == "a third joins":
            # The group as AdminClient.list_groups shows it (ListGroups v0 + DescribeGroups v0).
            groups = AdminClient({"bootstrap.servers": node.broker}).list_groups("trio", timeout=10)
            checks.expect("list_groups: Stable, consumer, range, the three members' client ids and host",
                          [("trio", "Stable", "consumer", "range", ["member-1", "member-2", "member-3"],
                            {"/127.0.0.1"})],
                          [(g.id, g.state, g.protocol_type, g.protocol, sorted(m.client_id for m in g.members),
                            {m.client_host for m in g.members}) for g in groups])
        produce(24, f"step{step}")
        checks.ok(f"group: {what}: every message so far consumed",
                  pump(30, all_consumed), f"{len(consumed_values())} of {len(produced)}")

    values = consumed_values()
    checks.expect("group: every message consumed exactly once across the group",
                  sorted(produced), sorted(values))
    errors = [e for e in log if e[1] == "error"]
    checks.expect("group: no consumer errors", [], errors[:5])
    commit_errors = [e for m in members for e in m.commit_errors]
    checks.expect("group: every synchronous commit succeeded", [], commit_errors[:5])
    per_member = {m.name: len([e for e in log if e[0] == m.name and e[1] != "error"]) for m in members}
    checks.ok("group: every member consumed something", all(v > 0 for v in per_member.values()),
              str(per_member))
    # Consumers only saw partitions assigned to them at that point: at least no partition was
    # read by two members within one step (checked through exactly-once above).

    # Committed offsets are what was consumed (the next offset per partition).
    expected_next = {}
    for e in log:
        if e[1] != "error":
            expected_next[e[1]] = max(expected_next.get(e[1], 0), e[2] + 1)
    live = [m for m in members if m.open]
    committed = live[0].consumer.committed(
        [TopicPartition(GROUP_TOPIC, p) for p in range(GROUP_PARTITIONS)], timeout=10)
    checks.expect("group: committed() is the next offset of every partition",
                  {p: expected_next.get(p, -1001) for p in range(GROUP_PARTITIONS)},
                  {tp.partition: tp.offset for tp in committed})
    for m in live:
        m.close()

    # A new consumer of the group resumes from the committed offsets.
    before = len(produced)
    produce(12, "after")
    log.clear()
    resumed = GroupMember(node, "member-new", "trio", log)
    members[:] = [resumed]
    pump(30, lambda: len(consumed_values()) >= 12)
    pump(1.5, lambda: False)  # anything beyond the 12 would show up here
    checks.expect("group: a new consumer resumes at the committed offsets: only the new messages",
                  sorted(produced[before:]), sorted(consumed_values()))
    firsts = {}
    for e in log:
        if e[1] != "error":
            firsts.setdefault(e[1], e[2])
    checks.expect("group: the first offset read per partition is the committed one",
                  {p: expected_next[p] for p in firsts}, firsts)
    resumed.close()


def main(node, checks):
    node.start(default_partitions=1)
    admin_checks(node, checks)
    idempotent_checks(node, checks)
    timestamp_checks(node, checks)
    group_checks(node, checks)


if __name__ == "__main__":
    minktest.run_test("kafka-confluent", main, budget_seconds=170)
