#!/usr/bin/python3
"""Consumers whose offsets TTL retention has passed, with librdkafka 2.0.2 (python3-confluent-kafka)
and kafka-python 2.0.2, against a `mink serve` that looks for expired data every 500 ms
(--retention-check-interval).

A topic with retention.ms 12 s (CreateTopics config, the table's TTL): five records, two groups
(one per client) commit offset 2, seven seconds later three more records. Once retention has
trimmed the first five (the log start is 5):
- each group's consumer, reset earliest, reads from 5 (the records that have not expired);
- a consumer assigned at 1 with reset none / error gets OFFSET_OUT_OF_RANGE and no records;
- a consumer at 3 with reset latest reads only a record produced after it started.
Once every record has expired (start = end = 10), a consumer at 6 with reset earliest reads the
next record produced, at offset 10.

Usage: kafka_retention_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

minktest.require_modules("confluent_kafka", "kafka")
from confluent_kafka import Consumer, TopicPartition  # noqa: E402

from kafka_consumers import CLIENTS, commit, create_topic, has, produce  # noqa: E402

TOPIC = "expiring"
TTL_MS = 12000


def low_watermark(node):
    c = Consumer({"bootstrap.servers": node.broker, "group.id": "watermarks"})
    try:
        return c.get_watermark_offsets(TopicPartition(TOPIC, 0), timeout=10, cached=False)[0]
    finally:
        c.close()


def wait_for_start(node, checks, start, seconds):
    ok = minktest.wait_until(seconds, lambda: low_watermark(node) == start, interval=0.25)
    checks.ok(f"retention trims the log start to {start} within {seconds} s", ok,
              f"log start {low_watermark(node)}")
    return ok


def main(node, checks):
    node.start(default_partitions=1, extra=["--retention-check-interval", "500ms"])
    create_topic(node, TOPIC, config={"retention.ms": str(TTL_MS)})
    produce(node, TOPIC, [f"old{i}" for i in range(5)])
    first_commit = time.monotonic()
    for client in CLIENTS:
        commit(node, f"ttl-{client}", TOPIC, 2)
    time.sleep(7)
    produce(node, TOPIC, [f"new{i}" for i in range(5, 8)])
    if not wait_for_start(node, checks, 5, TTL_MS / 1000 + 10):
        return
    checks.ok("the records committed later have not expired yet (the checks below need them)",
              time.monotonic() - first_commit < TTL_MS / 1000 + 6)

    # The two groups at once: the records they should read expire about 12 s after they came.
    results = {}

    def group_reader(client):
        Reader, policy, _ = CLIENTS[client]
        r = Reader(node, TOPIC, policy["earliest"], group=f"ttl-{client}").poll_for(8, has(3))
        results[client] = r.records
        r.close()

    threads = [threading.Thread(target=group_reader, args=(c,)) for c in CLIENTS]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for client in CLIENTS:
        checks.expect(f"{client}: a group committed at 2, below the start after retention, reset "
                      "earliest: reads the records that are left", [(5, "new5"), (6, "new6"), (7, "new7")],
                      results.get(client))

    end = 8
    for client, (Reader, policy, none_errors) in CLIENTS.items():
        r = Reader(node, TOPIC, policy["none"], 1).poll_for(10, lambda r: r.errors)
        checks.expect(f"{client}: offset 1, expired, reset none: the error, no records",
                      (none_errors, []), (r.error_codes(), r.records))
        r.close()
        r = Reader(node, TOPIC, policy["latest"], 3).poll_for(2)
        produce(node, TOPIC, [f"late-{client}"])
        r.poll_for(15, has(1))
        checks.expect(f"{client}: offset 3, expired, reset latest: only the new record",
                      [(end, f"late-{client}")], r.records)
        end += 1
        r.close()

    # Everything expires; a consumer below the (empty) log then reads what comes next.
    if not wait_for_start(node, checks, end, TTL_MS / 1000 + 10):
        return
    readers = {client: Reader(node, TOPIC, policy["earliest"], 6).poll_for(2)
               for client, (Reader, policy, _) in CLIENTS.items()}
    produce(node, TOPIC, ["after"])
    for client, r in readers.items():
        r.poll_for(15, has(1))
        checks.expect(f"{client}: offset 6 of an expired log, reset earliest: the next record",
                      [(end, "after")], r.records)
        r.close()


if __name__ == "__main__":
    minktest.run_test("kafka-retention", main, budget_seconds=150)
