#!/usr/bin/python3
"""python3-kafka 2.0.2 (kafka-python: ApiVersions v0 probing, Metadata v1, Produce v7, Fetch v4,
the v0-v2 group APIs) against the Kafka listener of a `mink serve` of its own:

- KafkaAdminClient create_topics / list_topics.
- KafkaProducer (acks=all, gzip) with keys, headers and explicit timestamps: offsets per
  partition, and every record read back exactly.
- KafkaConsumer in a group (group_id, enable_auto_commit=False): reads everything, commits
  chosen offsets by hand (one partition behind), closes; a new consumer of the group (a
  reconnect) resumes exactly there: the uncommitted tail of that partition and the new records.

Usage: kafka_python_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import logging
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

(kafka,) = minktest.require_modules("kafka")
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition  # noqa: E402
from kafka.admin import NewTopic  # noqa: E402
from kafka.structs import OffsetAndMetadata  # noqa: E402

TOPIC = "kp"
PARTITIONS = 2
GROUP = "kp-group"


class VersionLog(logging.Handler):
    """Keeps kafka-python's "Broker version identified as ..." line."""

    def __init__(self):
        super().__init__()
        self.versions = []

    def emit(self, record):
        msg = record.getMessage()
        if "Broker version identified as" in msg:
            self.versions.append(msg)


def consumer(node, **extra):
    # A 30 s session: kafka-python's heartbeat thread must take the client's lock, which the
    # polling thread holds and takes again at once, so on a loaded machine the heartbeats can
    # stall for seconds. With a 6 s session the node once (rightly) expired the member mid-test
    # and the consumer, rejoining, read its uncommitted records again. No check here needs a
    # session to expire: the members leave with LeaveGroup.
    return KafkaConsumer(bootstrap_servers=node.broker, group_id=GROUP, enable_auto_commit=False,
                         auto_offset_reset="earliest", session_timeout_ms=30000,
                         heartbeat_interval_ms=1000, fetch_max_wait_ms=100,
                         request_timeout_ms=40000, **extra)


def poll_until(c, count, seconds):
    got = []
    deadline = time.monotonic() + seconds
    while len(got) < count and time.monotonic() < deadline:
        for records in c.poll(timeout_ms=200).values():
            got.extend(records)
    return got


def main(node, checks):
    node.start(default_partitions=1)
    versions = VersionLog()
    logging.getLogger("kafka").addHandler(versions)
    logging.getLogger("kafka").setLevel(logging.INFO)

    admin = KafkaAdminClient(bootstrap_servers=node.broker, request_timeout_ms=15000)
    result = admin.create_topics([NewTopic(TOPIC, num_partitions=PARTITIONS, replication_factor=1)],
                                 timeout_ms=10000)
    checks.expect("create_topics: no error", [(TOPIC, 0)],
                  [(t[0], t[1]) for t in result.topic_errors])
    checks.ok("list_topics has the topic", TOPIC in admin.list_topics())
    admin.close()
    checks.ok("kafka-python infers a broker version >= 2.1 from ApiVersions v0",
              any(v.split()[-1] >= "2.1" for v in versions.versions), str(versions.versions))

    producer = KafkaProducer(bootstrap_servers=node.broker, acks="all", linger_ms=5,
                             compression_type="gzip", request_timeout_ms=15000)
    base_ts = int(time.time() * 1000) - 3_600_000
    sent = []
    futures = []
    for i in range(40):
        p = i % PARTITIONS
        key = b"key-%d" % i
        value = b"value-%d-" % i + bytes([0, 255, i])  # binary bytes too
        headers = [("n", b"%d" % i), ("from", b"kafka-python")]
        ts = base_ts + i * 1000
        futures.append(producer.send(TOPIC, key=key, value=value, headers=headers, partition=p,
                                     timestamp_ms=ts))
        sent.append((p, key, value, headers, ts))
    metas = [f.get(timeout=20) for f in futures]
    producer.flush(timeout=20)
    checks.expect("produce: offsets 0..19 per partition in send order",
                  [(i % PARTITIONS, i // PARTITIONS) for i in range(40)],
                  [(m.partition, m.offset) for m in metas])

    c = consumer(node)
    c.subscribe([TOPIC])
    got = poll_until(c, 40, 40)
    checks.expect("group consumer: 40 records", 40, len(got))
    by_key = {r.key: r for r in got}
    checks.expect("group consumer: keys, values, headers, timestamps exactly as sent",
                  sorted((p, k, v, h, ts) for p, k, v, h, ts in sent),
                  sorted((r.partition, r.key, r.value, list(r.headers), r.timestamp) for r in by_key.values()))
    checks.expect("group consumer: offsets per partition 0..19, in order",
                  {p: list(range(20)) for p in range(PARTITIONS)},
                  {p: [r.offset for r in got if r.partition == p] for p in range(PARTITIONS)})
    checks.expect("group consumer: assigned both partitions",
                  {TopicPartition(TOPIC, p) for p in range(PARTITIONS)}, c.assignment())
    # Manual commit: partition 0 only up to offset 15 (five records will come again), 1 all.
    c.commit({TopicPartition(TOPIC, 0): OffsetAndMetadata(15, "p0 behind"),
              TopicPartition(TOPIC, 1): OffsetAndMetadata(20, "")})
    checks.expect("committed() after the manual commit", (15, 20),
                  (c.committed(TopicPartition(TOPIC, 0)), c.committed(TopicPartition(TOPIC, 1))))
    # The group as the admin API shows it (ListGroups v2, DescribeGroups v3).
    admin = KafkaAdminClient(bootstrap_servers=node.broker, request_timeout_ms=15000)
    checks.ok("list_consumer_groups has the group", (GROUP, "consumer") in admin.list_consumer_groups())
    (info,) = admin.describe_consumer_groups([GROUP])
    member = info.members[0] if len(info.members) == 1 else None
    checks.expect("describe_consumer_groups: Stable, one member, range, both partitions, its client",
                  (0, "Stable", "consumer", "range", 1, [(TOPIC, [0, 1])], "/127.0.0.1", "kafka-python-2.0.2"),
                  (info.error_code, info.state, info.protocol_type, info.protocol, len(info.members),
                   [(t, sorted(ps)) for t, ps in member.member_assignment.assignment] if member else None,
                   member.client_host if member else None, member.client_id if member else None))
    checks.expect("list_consumer_group_offsets: the manual commit", {0: (15, "p0 behind"), 1: (20, "")},
                  {tp.partition: (om.offset, om.metadata)
                   for tp, om in admin.list_consumer_group_offsets(GROUP).items()})
    c.close(autocommit=False)
    checks.ok("after the member left, the group is Empty",
              minktest.wait_until(10, lambda: admin.describe_consumer_groups([GROUP])[0].state == "Empty"),
              str(admin.describe_consumer_groups([GROUP])))
    admin.close()

    # New records while nobody consumes.
    for i in range(40, 50):
        producer.send(TOPIC, key=b"key-%d" % i, value=b"late-%d" % i, partition=i % PARTITIONS).get(timeout=20)
    producer.close(timeout=10)

    # Reconnect: a new consumer of the group starts at the committed offsets.
    c2 = consumer(node)
    c2.subscribe([TOPIC])
    again = poll_until(c2, 15, 40)
    again += poll_until(c2, 1, 1.5)  # nothing more may arrive
    checks.expect("resume after reconnect: the uncommitted tail of partition 0 and the new records",
                  sorted([(0, o) for o in range(15, 25)] + [(1, o) for o in range(20, 25)]),
                  sorted((r.partition, r.offset) for r in again))
    checks.expect("resume after reconnect: the values of partition 0 from offset 15",
                  [b"value-%d-" % i + bytes([0, 255, i]) for i in range(30, 40, 2)]
                  + [b"late-%d" % i for i in range(40, 50, 2)],
                  [r.value for r in sorted(again, key=lambda r: (r.partition, r.offset)) if r.partition == 0])
    c2.commit()
    checks.expect("commit() of what was consumed: the ends", (25, 25),
                  (c2.committed(TopicPartition(TOPIC, 0)), c2.committed(TopicPartition(TOPIC, 1))))
    c2.close(autocommit=False)

    # And the table view of the same rows.
    rows = node.mink("read", "kafka.kp", "--bucket", "1", "-n", "1").stdout.strip()
    checks.ok("mink read kafka.kp: the first row of partition 1 (hex)",
              '"key":"6b65792d31","value":"76616c75652d312d00ff01"' in rows, rows)


if __name__ == "__main__":
    minktest.run_test("kafka-python", main, budget_seconds=150)
