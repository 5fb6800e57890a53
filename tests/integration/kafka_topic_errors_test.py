#!/usr/bin/python3
"""Topics and partitions that do not exist, a topic deleted under its consumers and made again,
and batches and requests over the configured limits, with librdkafka 2.0.2
(python3-confluent-kafka) and kafka-python 2.0.2, plus single requests encoded and parsed by
kafka-python's protocol classes where no client API would send them (kafka_wire.py).

Two nodes: one with auto-creation on (the default), one started with
--kafka-auto-create-topics false --kafka-max-message-bytes 100KiB --kafka-max-request-bytes 1MiB.

- Auto-creation on: a producer of either client creates the topic it writes to, and the other
  client reads the record back. A Metadata request that does not allow auto-creation answers
  UNKNOWN_TOPIC_OR_PARTITION and creates nothing.
- Auto-creation off: producing to a missing topic fails in both clients and creates nothing;
  Metadata (v1, which leaves it to the broker, and v4 allowing it), Produce, Fetch and
  ListOffsets answer UNKNOWN_TOPIC_OR_PARTITION; a consumer subscribed to the missing topic
  reads the record produced once the topic is created.
- Unknown partition of a topic that exists: Produce, Fetch and ListOffsets answer
  UNKNOWN_TOPIC_OR_PARTITION for it while the other partition of the same request is served; both
  clients refuse to produce to it.
- A topic deleted while a consumer of each client reads it: librdkafka reports the topic
  unknown; once a topic of the same name is made and written, each consumer reads the new
  records from offset 0.
- A record batch over 100 KiB: MESSAGE_TOO_LARGE in both clients, nothing stored, the next
  record stored. A request over 1 MiB: the node closes the connection, stores nothing, and
  serves the next connection.

Usage: kafka_topic_errors_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

minktest.require_modules("confluent_kafka", "kafka")
import kafka  # noqa: E402
import kafka.errors  # noqa: E402
from confluent_kafka import KafkaError, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

import kafka_wire as wire  # noqa: E402
from kafka_consumers import CLIENTS, create_topic, has, produce  # noqa: E402

UNKNOWN = 3  # UNKNOWN_TOPIC_OR_PARTITION


def topics(node):
    out = node.mink("table", "list", "kafka", check=False).stdout
    return {line.split()[0].removeprefix("kafka.") for line in out.splitlines()[1:] if line.split()}


def confluent_send(node, topic, value, partition=None, **config):
    """Produces one record with librdkafka; (offset, None) or (None, the error code)."""
    result = []
    p = Producer({"bootstrap.servers": node.broker, "linger.ms": 0, "message.timeout.ms": 5000,
                  "topic.metadata.propagation.max.ms": 1000, **config})
    kwargs = {} if partition is None else {"partition": partition}
    try:
        p.produce(topic, value, on_delivery=lambda err, msg: result.append(
            (None, err.code()) if err else (msg.offset(), None)), **kwargs)
    except Exception as e:  # noqa: BLE001 - a refusal before sending is a result too
        return None, e.args[0].code() if e.args and hasattr(e.args[0], "code") else repr(e)
    p.flush(20)
    return result[0] if result else (None, "no delivery report")


def python_send(node, topic, value, partition=None, **config):
    """Produces one record with kafka-python; (offset, None) or (None, the exception's name)."""
    p = kafka.KafkaProducer(bootstrap_servers=node.broker, max_block_ms=3000, retries=0, **config)
    try:
        return p.send(topic, value, partition=partition).get(timeout=15).offset, None
    except (kafka.errors.KafkaError, AssertionError) as e:
        return None, type(e).__name__
    finally:
        p.close(timeout=5)


def read_all(node, topic, n, client="librdkafka"):
    Reader, policy, _ = CLIENTS[client]
    r = Reader(node, topic, policy["earliest"], 0).poll_for(15, has(n))
    r.close()
    return r.records


def metadata_error(node, topic, version, allow=True):
    w = wire.Wire(node.broker)
    try:
        request = wire.MetadataRequest[version]([topic], allow) if version >= 4 else \
            wire.MetadataRequest[version]([topic])
        r = w.send(request)
    finally:
        w.close()
    return [t[0] for t in r.topics if t[1] == topic]


def wire_produce(node, topic, partitions, values=(b"wire",)):
    """One Produce v7 to these partitions; [(partition, error, base_offset)]."""
    batch = wire.record_batch(list(values))
    w = wire.Wire(node.broker)
    try:
        r = w.send(wire.ProduceRequest[7](None, -1, 10000, [(topic, [(p, batch) for p in partitions])]))
    finally:
        w.close()
    return [(p[0], p[1], p[2]) for t in r.topics for p in t[1]]


def wire_fetch(node, topic, partitions):
    """One Fetch v4 from offset 0; [(partition, error, records)]."""
    w = wire.Wire(node.broker)
    try:
        r = w.send(wire.FetchRequest[4](-1, 100, 1, 1 << 20, 0,
                                        [(topic, [(p, 0, 1 << 20) for p in partitions])]))
    finally:
        w.close()
    return [(p[0], p[1], p[-1]) for t in r.topics for p in t[1]]


def wire_list_offsets(node, topic, partitions):
    """One ListOffsets v1 for the latest offset; [(partition, error, offset)]."""
    w = wire.Wire(node.broker)
    try:
        r = w.send(wire.OffsetRequest[1](-1, [(topic, [(p, -1) for p in partitions])]))
    finally:
        w.close()
    return [(p[0], p[1], p[3]) for t in r.topics for p in t[1]]


def auto_create_on_checks(node, checks):
    checks.expect("auto-creation on: a librdkafka producer creates its topic", (0, None),
                  confluent_send(node, "made-by-rdkafka", b"r1"))
    checks.expect("... and kafka-python reads the record", [(0, "r1")],
                  read_all(node, "made-by-rdkafka", 1, "kafka-python"))
    checks.expect("auto-creation on: a kafka-python producer creates its topic", (0, None),
                  python_send(node, "made-by-python", b"p1"))
    checks.expect("... and librdkafka reads the record", [(0, "p1")],
                  read_all(node, "made-by-python", 1))
    checks.expect("auto-creation on: Metadata v4 not allowing it: UNKNOWN_TOPIC_OR_PARTITION",
                  [UNKNOWN], metadata_error(node, "not-allowed", 4, allow=False))
    checks.ok("... and creates nothing", "not-allowed" not in topics(node), str(topics(node)))


def auto_create_off_checks(node, checks):
    name = "auto-creation off"
    _, err = confluent_send(node, "missing", b"x")
    checks.ok(f"{name}: librdkafka cannot produce to a missing topic",
              err in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC), str(err))
    checks.expect(f"{name}: kafka-python cannot produce to a missing topic (no metadata for it)",
                  (None, "KafkaTimeoutError"), python_send(node, "missing", b"x"))
    for version, allow in ((1, None), (4, True)):
        checks.expect(f"{name}: Metadata v{version}{' allowing auto-creation' if allow else ''}: "
                      "UNKNOWN_TOPIC_OR_PARTITION", [UNKNOWN], metadata_error(node, "missing", version))
    checks.expect(f"{name}: Produce: UNKNOWN_TOPIC_OR_PARTITION", [(0, UNKNOWN, -1)],
                  wire_produce(node, "missing", [0]))
    checks.expect(f"{name}: Fetch: UNKNOWN_TOPIC_OR_PARTITION with an empty record set",
                  [(0, UNKNOWN, b"")], wire_fetch(node, "missing", [0]))
    checks.expect(f"{name}: ListOffsets: UNKNOWN_TOPIC_OR_PARTITION", [(0, UNKNOWN, -1)],
                  wire_list_offsets(node, "missing", [0]))
    checks.ok(f"{name}: none of it created the topic", "missing" not in topics(node), str(topics(node)))

    # Consumers subscribed to the missing topic read it once it exists.
    results = {}
    for client in CLIENTS:
        Reader, policy, _ = CLIENTS[client]
        results[client] = Reader(node, "missing", policy["earliest"], group=f"wait-{client}",
                                 subscribe=True)
        results[client].poll_for(2)
    create_topic(node, "missing")
    produce(node, "missing", ["arrived"])
    for client, r in results.items():
        r.poll_for(30, has(1))
        checks.expect(f"{name}: a {client} consumer subscribed to a missing topic reads it once "
                      "it is created", [(0, "arrived")], r.records)
        r.close()


def unknown_partition_checks(node, checks):
    name = "partition 5 of a one-partition topic"
    produce(node, "one-partition", ["first"])
    checks.expect(f"{name}: Produce: UNKNOWN_TOPIC_OR_PARTITION, partition 0 of the same request "
                  "stored", [(0, 0, 1), (5, UNKNOWN, -1)], wire_produce(node, "one-partition", [0, 5]))
    checks.expect(f"{name}: Fetch: UNKNOWN_TOPIC_OR_PARTITION, partition 0 served",
                  [0, UNKNOWN, UNKNOWN], [e for _, e, _ in wire_fetch(node, "one-partition", [0, 5, -1])])
    checks.expect(f"{name}: ListOffsets: UNKNOWN_TOPIC_OR_PARTITION, partition 0 answered",
                  [(0, 0, 2), (5, UNKNOWN, -1)], wire_list_offsets(node, "one-partition", [0, 5]))
    checks.expect(f"{name}: librdkafka refuses to produce to it", (None, KafkaError._UNKNOWN_PARTITION),
                  confluent_send(node, "one-partition", b"x", partition=5))
    checks.expect(f"{name}: kafka-python refuses to produce to it", (None, "AssertionError"),
                  python_send(node, "one-partition", b"x", partition=5))
    checks.expect(f"{name}: the partition holds what was stored, once each",
                  [(0, "first"), (1, "wire")], read_all(node, "one-partition", 2, "kafka-python"))


def deleted_topic_checks(node, checks):
    topic = "doomed"
    admin = AdminClient({"bootstrap.servers": node.broker})
    create_topic(node, topic)
    produce(node, topic, [f"d{i}" for i in range(5)])
    readers = {}
    for client, (Reader, policy, _) in CLIENTS.items():
        readers[client] = Reader(node, topic, policy["earliest"], group=f"doomed-{client}",
                                 subscribe=True).poll_for(30, has(5))
        checks.expect(f"{client}: reads the topic before it is deleted",
                      [(i, f"d{i}") for i in range(5)], readers[client].records)
    admin.delete_topics([topic])[topic].result(20)
    # Both consumers poll while the topic is gone and while it is made again.
    stop = threading.Event()

    def poll(r):
        while not stop.is_set():
            r.poll_for(0.2)

    threads = [threading.Thread(target=poll, args=(r,)) for r in readers.values()]
    for t in threads:
        t.start()
    gone = minktest.wait_until(15, lambda: any(
        e.code() == KafkaError.UNKNOWN_TOPIC_OR_PART for e in readers["librdkafka"].errors))
    checks.ok("librdkafka: the consumer reports the deleted topic unknown", gone,
              str(readers["librdkafka"].errors))
    create_topic(node, topic)
    produce(node, topic, ["again0", "again1"])
    for client, r in readers.items():
        minktest.wait_until(30, lambda: len(r.records) >= 7)
    stop.set()
    for t in threads:
        t.join(10)
    for client, r in readers.items():
        checks.expect(f"{client}: after the topic is made again, reads its records from offset 0",
                      [(0, "again0"), (1, "again1")], r.records[5:])
        r.close_in_background()


def size_checks(node, checks):
    topic = "limits"
    create_topic(node, topic)
    big = b"b" * 200_000
    checks.expect("librdkafka: a 200 KB batch over the 100 KiB limit: MESSAGE_TOO_LARGE",
                  (None, KafkaError.MSG_SIZE_TOO_LARGE),
                  confluent_send(node, topic, big, partition=0, **{"message.max.bytes": 3_000_000}))
    checks.expect("librdkafka: the next record is stored at offset 0", (0, None),
                  confluent_send(node, topic, b"small-1", partition=0))
    checks.expect("kafka-python: a 200 KB batch over the limit: MESSAGE_TOO_LARGE",
                  (None, "MessageSizeTooLargeError"),
                  python_send(node, topic, big, partition=0, max_request_size=3_000_000))
    checks.expect("kafka-python: the next record is stored at offset 1", (1, None),
                  python_send(node, topic, b"small-2", partition=0))

    # A request over 1 MiB: the connection is closed before the request is read.
    w = wire.Wire(node.broker)
    batch = wire.record_batch([b"r" * 1_500_000])
    request = wire.ProduceRequest[7](None, -1, 10000, [(topic, [(0, batch)])])
    header_struct = wire.RequestHeader(request, correlation_id=1, client_id="mink-wire-test")
    header = header_struct.encode()
    body = request.encode()
    try:
        w.sock.sendall(len(header + body).to_bytes(4, "big") + header + body)
    except OSError:
        pass  # closed while sending: as good
    checks.ok("a 1.5 MB request over the 1 MiB limit: the node closes the connection",
              w.closed_by_peer(10))
    w.close()
    _, err = confluent_send(node, topic, b"r" * 1_500_000, partition=0,
                            **{"message.max.bytes": 3_000_000})
    checks.ok("librdkafka: a 1.5 MB request fails", err is not None, str(err))
    offset, err = python_send(node, topic, b"r" * 1_500_000, partition=0,
                              max_request_size=3_000_000, request_timeout_ms=5000)
    checks.ok("kafka-python: a 1.5 MB request fails", offset is None and err is not None, str(err))
    checks.expect("the partition holds the two small records and nothing else",
                  [(0, "small-1"), (1, "small-2")], read_all(node, topic, 2))
    checks.expect("the node serves the next request", [(0, 0, 2)],
                  wire_produce(node, topic, [0], [b"small-3"]))


def main(node, checks):
    node.start(default_partitions=1)
    auto_create_on_checks(node, checks)
    unknown_partition_checks(node, checks)
    strict = minktest.MinkNode(node.mink_bin, "kafka-strict")
    try:
        strict.start(default_partitions=1, extra=[
            "--kafka-auto-create-topics", "false", "--kafka-max-message-bytes", "100KiB",
            "--kafka-max-request-bytes", "1MiB"])
        auto_create_off_checks(strict, checks)
        deleted_topic_checks(strict, checks)
        size_checks(strict, checks)
        checks.ok("the second node stopped cleanly on SIGINT", strict.stop() == 0)
    except Exception:
        print(f"second node log:\n{strict.log_tail()}", file=sys.stderr)
        raise
    finally:
        strict.cleanup()


if __name__ == "__main__":
    minktest.run_test("kafka-topic-errors", main, budget_seconds=190)
