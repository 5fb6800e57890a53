#!/usr/bin/python3
"""Continuous SQL with a Kafka outside Mink (librdkafka; docs/streaming-sql.md): the seed's
per-minute volume example on node A whose source and sink name another cluster's Kafka listener
(node B, its own metadata and objects: to node A as outside as an Apache Kafka).

  - Topics trades and minute-volume are created on B; A runs the three statements with
    'bootstrap.servers' = B; the five trades are produced to B; B's minute-volume then holds the
    three closed windows, exactly as the seed prints them.
  - A sink asking for exactly-once into the outside Kafka is refused, naming the sink and why
    (no Kafka transactions: it delivers at least once); nothing is created.
  - After a restart of A and a later trade, the fourth window arrives and none of the three is
    lost (at least once: a window may come again).

Usage: continuous_external_kafka_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import os
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

minktest.require_modules("confluent_kafka")
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

SEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "streaming")

from streaming_checks import http_sql  # noqa: E402
from minute_volume_seed import CLOSED, CLOSED_LATER, LATE_TRADE as LATER_TRADE, TRADES  # noqa: E402


def produce(checks, broker, values, what):
    errors = []
    p = Producer({"bootstrap.servers": broker, "linger.ms": 0})
    for v in values:
        p.produce("trades", value=v, on_delivery=lambda err, msg: err and errors.append(str(err)))
    left = p.flush(20)
    checks.ok(f"{what}: produced to B's trades", left == 0 and not errors, f"{left} undelivered, errors {errors}")


def read_topic(broker, until_count, seconds):
    """minute-volume's values on B from the beginning, until `until_count` or `seconds`."""
    c = Consumer({"bootstrap.servers": broker, "group.id": f"check-{uuid.uuid4().hex}",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.assign([TopicPartition("minute-volume", 0, OFFSET_BEGINNING)])  # no group: no rebalance to wait for
    values = []
    deadline = time.monotonic() + seconds
    while len(values) < until_count and time.monotonic() < deadline:
        m = c.poll(0.2)
        if m is not None and not m.error():
            values.append(m.value())
    c.close()
    return values


def run(checks, a, b):
    admin = AdminClient({"bootstrap.servers": b.broker})
    for name, f in admin.create_topics([NewTopic(t, num_partitions=1, replication_factor=1)
                                        for t in ("trades", "minute-volume")], operation_timeout=10).items():
        f.result(timeout=20)
    with open(os.path.join(SEEDS, "minute_volume.sql")) as f:
        statements = f.read().replace("kafka:9092", b.broker)
    status, answer = http_sql(a.http_listen, statements)
    checks.expect("A runs the seed's statements against B's Kafka", (200, ["CREATE SOURCE", "CREATE STREAM", "CREATE SINK"]),
                  (status, [o.get("result_type") for o in answer] if isinstance(answer, list) else answer))

    status, answer = http_sql(a.http_listen, "CREATE SINK strict FROM minute_volume INTO KAFKA ('bootstrap.servers' = '" + b.broker +
                         "', 'topic' = 'minute-volume', 'delivery.guarantee' = 'exactly-once') FORMAT JSON")
    checks.ok("a sink asking exactly-once of the outside Kafka is refused, naming it and why",
              status == 400 and "sink strict cannot deliver exactly once into the Kafka outside Mink at " + b.broker
              in answer.get("error", "") and "at-least-once" in answer.get("error", ""), f"{status} {answer}")
    status, answer = http_sql(a.http_listen, "SHOW SINKS")
    checks.expect("and nothing was created", ["minute_volume_out"],
                  [r["name"] for r in answer.get("data", [])] if status == 200 else answer)

    produce(checks, b.broker, TRADES, "the five trades")
    values = read_topic(b.broker, 3, 20)
    checks.expect("B's minute-volume holds the three closed windows, as the seed prints them", CLOSED, values)
    checks.expect("MSFT's 09:32 minute stays open", CLOSED, read_topic(b.broker, 4, 3))

    checks.expect("A stops cleanly", 0, a.stop())
    a.restart()
    produce(checks, b.broker, [LATER_TRADE], "a trade at 09:33:05")
    values = read_topic(b.broker, 4, 20)
    checks.ok("after A's restart the fourth window arrives and none is lost (at least once)",
              set(CLOSED + [CLOSED_LATER]) <= set(values), repr(values))


def main():
    minktest.hard_deadline(150)
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} path/to/mink", file=sys.stderr)
        sys.exit(2)
    a = minktest.MinkNode(sys.argv[1], "continuous-external-a")
    b = minktest.MinkNode(sys.argv[1], "continuous-external-b")
    http_port = minktest.free_port()
    while http_port in (a.flight_port, a.kafka_port, b.flight_port, b.kafka_port):
        http_port = minktest.free_port()
    a.http_listen = f"127.0.0.1:{http_port}"

    def body(checks):
        b.start()
        try:
            a.start(extra=["--http-listen", a.http_listen])
            run(checks, a, b)
            checks.expect("A stops cleanly", 0, a.stop())
        finally:
            b.stop()
            b.cleanup()
    minktest.run_on_node(a, body, "continuous_external_kafka")


if __name__ == "__main__":
    main()
