"""What the Kafka error-path tests share: producing to and trimming a partition, committing a
group's offset, and a consumer of one partition for each of two clients that parse Fetch their own
way, librdkafka 2.0.2 (python3-confluent-kafka) and kafka-python 2.0.2, collecting what it reads
and the errors it surfaces:

    Reader, policy, none_errors = CLIENTS["kafka-python"]
    r = Reader(node, "topic", policy["earliest"], offset=15).poll_for(15, has(2))
    r.records   # [(offset, value), ...]
    r.errors    # what the client raised or reported
"""

import threading
import time

import kafka
import kafka.errors
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import kafka_wire


def produce(node, topic, values):
    """Produces the values (str) to partition 0 and waits for their delivery; their offsets."""
    offsets, errors = [], []

    def report(err, msg):
        (errors if err else offsets).append(err or msg.offset())

    p = Producer({"bootstrap.servers": node.broker, "linger.ms": 0})
    for v in values:
        p.produce(topic, v.encode(), partition=0, on_delivery=report)
    p.flush(30)
    if errors or len(offsets) != len(values):
        raise RuntimeError(f"produce to {topic}: {errors}")
    return offsets


def create_topic(node, topic, partitions=1, config=None):
    admin = AdminClient({"bootstrap.servers": node.broker})  # alive until the result is in
    admin.create_topics([NewTopic(topic, partitions, 1, config=config or {})])[topic].result(20)


def delete_records(node, topic, before):
    wire = kafka_wire.Wire(node.broker)
    try:
        r = wire.send(kafka_wire.DeleteRecordsRequest_v0([(topic, [(0, before)])], 10000))
    finally:
        wire.close()
    (_, [(_, low, error)]) = r.topics[0]
    if error != 0 or low != before:
        raise RuntimeError(f"DeleteRecords {topic} below {before}: error {error}, low {low}")


class ConfluentReader:
    """A librdkafka consumer of partition 0 of `topic`, assigned at `offset` (or at the group's
    committed offset when None), collecting (offset, value) and errors."""

    def __init__(self, node, topic, reset, offset=None, group="mink-offsets-test", subscribe=False):
        self.c = Consumer({"bootstrap.servers": node.broker, "group.id": group,
                           "enable.auto.commit": False, "auto.offset.reset": reset,
                           "fetch.wait.max.ms": 100, "session.timeout.ms": 10000,
                           "topic.metadata.refresh.interval.ms": 1000})
        self.topic = topic
        if subscribe:
            self.c.subscribe([topic])
        else:
            self.c.assign([TopicPartition(topic, 0, offset if offset is not None else -1001)])
        self.records, self.errors = [], []

    def poll_for(self, seconds, until=lambda r: False):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not until(self):
            m = self.c.poll(0.1)
            if m is None:
                continue
            if m.error():
                if m.error().code() != KafkaError._PARTITION_EOF:
                    self.errors.append(m.error())
                continue
            self.records.append((m.offset(), m.value().decode()))
        return self

    def error_codes(self):
        return sorted({e.code() for e in self.errors})

    def close(self):
        self.c.close()

    def close_in_background(self):
        """Closes on a daemon thread: after a partition of its subscription was lost to a deleted
        topic, librdkafka 2.0.2 keeps a reference to the broker and its close never returns
        (fixed in librdkafka 2.1.0)."""
        threading.Thread(target=self.c.close, daemon=True).start()


class PythonReader:
    """The same with kafka-python (Fetch v4, ListOffsets v1)."""

    def __init__(self, node, topic, reset, offset=None, group="mink-offsets-test-py",
                 subscribe=False):
        self.c = kafka.KafkaConsumer(bootstrap_servers=node.broker, group_id=group,
                                     enable_auto_commit=False, auto_offset_reset=reset,
                                     fetch_max_wait_ms=100, session_timeout_ms=10000,
                                     heartbeat_interval_ms=1000, consumer_timeout_ms=100)
        self.tp = kafka.TopicPartition(topic, 0)
        if subscribe:
            self.c.subscribe([topic])
        else:
            self.c.assign([self.tp])
            if offset is not None:
                self.c.seek(self.tp, offset)
        self.records, self.errors = [], []

    def poll_for(self, seconds, until=lambda r: False):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not until(self):
            try:
                for recs in self.c.poll(timeout_ms=100).values():
                    self.records.extend((r.offset, r.value.decode()) for r in recs)
            except kafka.errors.OffsetOutOfRangeError as e:
                self.errors.append(e)
                time.sleep(0.1)
        return self

    def error_codes(self):
        return sorted({type(e).__name__ for e in self.errors})

    def close(self):
        self.c.close(autocommit=False)

    close_in_background = close


CLIENTS = {
    "librdkafka": (ConfluentReader, {"earliest": "earliest", "latest": "latest", "none": "error"},
                   [KafkaError._AUTO_OFFSET_RESET]),
    "kafka-python": (PythonReader, {"earliest": "earliest", "latest": "latest", "none": "none"},
                     ["OffsetOutOfRangeError"]),
}


def has(n):
    return lambda r: len(r.records) >= n


def commit(node, group, topic, offset):
    c = Consumer({"bootstrap.servers": node.broker, "group.id": group, "enable.auto.commit": False})
    c.commit(offsets=[TopicPartition(topic, 0, offset)], asynchronous=False)
    c.close()


def committed(node, group, topic):
    c = Consumer({"bootstrap.servers": node.broker, "group.id": group})
    try:
        return c.committed([TopicPartition(topic, 0)], timeout=10)[0].offset
    finally:
        c.close()
