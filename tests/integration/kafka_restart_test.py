#!/usr/bin/python3
"""SIGKILL of the node under an idempotent producer (python3-confluent-kafka, retries on): while
it sends a numbered sequence into a two-partition topic the node is killed and restarted on the
same data directory and ports. After the producer has finished, the topic holds every number
whose delivery was acknowledged exactly once (numbers not acknowledged may be there or not, but
never twice), each partition in send order, and the producer went on after the restart. A
consumer group that committed offsets before the kill resumes from them after the restart.

Usage: kafka_restart_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import collections
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

(ck,) = minktest.require_modules("confluent_kafka")
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

TOPIC = "numbers"
GROUP_TOPIC = "committed"
GROUP = "survivors"
N = 1500
CONSUMER = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 500, "fetch.wait.max.ms": 100,
            "enable.auto.commit": False, "auto.offset.reset": "earliest"}


def read_all(node, topic, partitions):
    """Every record of the topic, up to the high watermarks: {partition: [(offset, value)]}."""
    c = Consumer({"bootstrap.servers": node.broker, "group.id": "reader", **CONSUMER})
    ends = {p: c.get_watermark_offsets(TopicPartition(topic, p), timeout=15)[1] for p in range(partitions)}
    c.assign([TopicPartition(topic, p, ck.OFFSET_BEGINNING) for p in range(partitions)])
    out = {p: [] for p in range(partitions)}
    deadline = time.monotonic() + 30
    while any(len(out[p]) < ends[p] for p in out) and time.monotonic() < deadline:
        m = c.poll(0.2)
        if m is not None and not m.error():
            out[m.partition()].append((m.offset(), m.value()))
    c.close()
    return ends, out


def group_consume(node, count, seconds=30):
    """A member of GROUP reads `count` records (committing each), then leaves; what it read."""
    c = Consumer({"bootstrap.servers": node.broker, "group.id": GROUP, **CONSUMER})
    c.subscribe([GROUP_TOPIC])
    got = []
    deadline = time.monotonic() + seconds
    while len(got) < count and time.monotonic() < deadline:
        m = c.poll(0.1)
        if m is None or m.error():
            continue
        got.append((m.partition(), m.offset(), m.value()))
        c.commit(message=m, asynchronous=False)
    committed = c.committed([TopicPartition(GROUP_TOPIC, p) for p in (0, 1)], timeout=10)
    c.close()
    return got, {tp.partition: tp.offset for tp in committed}


def main(node, checks):
    node.start(default_partitions=1)
    admin = AdminClient({"bootstrap.servers": node.broker})
    for f in admin.create_topics([NewTopic(TOPIC, num_partitions=2, replication_factor=1),
                                  NewTopic(GROUP_TOPIC, num_partitions=2, replication_factor=1)]).values():
        f.result(timeout=20)

    # ---- A group commits offsets before the kill.
    setup = Producer({"bootstrap.servers": node.broker, "acks": "all"})
    for i in range(40):
        setup.produce(GROUP_TOPIC, value=b"g%d" % i, partition=i % 2)
    checks.expect("group topic: 40 records produced", 0, setup.flush(15))
    first, committed_before = group_consume(node, 25)
    checks.expect("group: 25 records read and committed before the kill", 25, len(first))
    checks.expect("group: committed() = the next offset per partition",
                  {p: max([o for q, o, _ in first if q == p], default=-1) + 1 for p in (0, 1)}, committed_before)

    # ---- The idempotent producer, with the node killed and restarted under it.
    producer = Producer({"bootstrap.servers": node.broker, "enable.idempotence": True, "acks": "all",
                         "retries": 1000000, "retry.backoff.ms": 100, "message.timeout.ms": 60000,
                         "linger.ms": 2, "batch.num.messages": 20, "reconnect.backoff.ms": 50,
                         "reconnect.backoff.max.ms": 500, "socket.timeout.ms": 10000})
    acked, failed = set(), {}
    lock = threading.Lock()

    def delivered(err, msg):
        with lock:
            if err is None:
                acked.add(int(msg.value()))
            else:
                failed[int(msg.value())] = str(err)

    def send():
        for i in range(N):
            while True:
                try:
                    producer.produce(TOPIC, value=b"%d" % i, partition=i % 2, on_delivery=delivered)
                    break
                except BufferError:
                    producer.poll(0.05)
            producer.poll(0)
            time.sleep(0.003)
        producer.flush(90)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    checks.ok("producer: 300 acknowledged before the kill", minktest.wait_until(30, lambda: len(acked) >= 300),
              f"{len(acked)} acknowledged")
    node.kill()
    with lock:
        acked_before_kill = set(acked)
    print(f"killed the node after {len(acked_before_kill)} acknowledged numbers", flush=True)
    time.sleep(0.5)
    node.restart()
    sender.join(120)
    checks.ok("producer finished (flush) after the restart", not sender.is_alive())
    fatal = producer.poll(0)  # serve remaining callbacks
    del fatal
    with lock:
        acked_all, failed_all = set(acked), dict(failed)
    print(f"acknowledged {len(acked_all)} of {N}; failed {len(failed_all)}", flush=True)
    checks.ok("producer: numbers acknowledged after the restart too", len(acked_all) > len(acked_before_kill),
              f"{len(acked_all)} acknowledged in total, {len(acked_before_kill)} before the kill")
    checks.expect("producer: every delivery reported", N, len(acked_all) + len(failed_all))

    ends, records = read_all(node, TOPIC, 2)
    values = [int(v) for p in records for _, v in records[p]]
    counts = collections.Counter(values)
    twice = sorted(v for v, c in counts.items() if c > 1)
    checks.expect("after the restart: no number is in the topic twice", [], twice[:20])
    missing = sorted(acked_all - set(values))
    checks.expect("after the restart: every acknowledged number is in the topic", [], missing[:20])
    checks.expect("the consumer read up to the high watermarks", {p: ends[p] for p in ends},
                  {p: len(records[p]) for p in records})
    for p in records:
        nums = [int(v) for _, v in records[p]]
        checks.ok(f"partition {p}: numbers in send order", nums == sorted(nums),
                  f"first inversion at {next((i for i in range(1, len(nums)) if nums[i] < nums[i - 1]), None)}")
        checks.ok(f"partition {p}: only numbers of this partition", all(n % 2 == p for n in nums))
    extra = sorted(set(values) - acked_all)
    print(f"in the topic without an acknowledgement: {extra[:20]}", flush=True)
    producer = None

    # ---- The group resumes from its committed offsets after the restart.
    probe = Consumer({"bootstrap.servers": node.broker, "group.id": GROUP, **CONSUMER})
    committed_after = {tp.partition: tp.offset for tp in
                       probe.committed([TopicPartition(GROUP_TOPIC, p) for p in (0, 1)], timeout=10)}
    probe.close()
    checks.expect("group: committed offsets survive the SIGKILL", committed_before, committed_after)
    rest, _ = group_consume(node, 15)
    checks.expect("group: a member after the restart reads exactly the uncommitted records",
                  sorted((i % 2, i // 2) for i in range(40) if i // 2 >= committed_before[i % 2]),
                  sorted((p, o) for p, o, _ in rest))
    firsts = {}
    for p, o, _ in rest:
        firsts.setdefault(p, o)
    checks.expect("group: it starts at the committed offsets", {p: committed_before[p] for p in firsts}, firsts)


if __name__ == "__main__":
    minktest.run_test("kafka-restart", main, budget_seconds=170)
