#!/usr/bin/python3
"""Consumers at offsets the log does not have, with two clients that parse Fetch their own way:
librdkafka 2.0.2 (kcat and python3-confluent-kafka) and kafka-python 2.0.2, against a `mink
serve` of the test's own.

- kcat the way a new user tries it: three messages, then `-o 10 -e -X auto.offset.reset=...`:
  earliest reads the three, latest ends with nothing, error exits with the error.
- A partition whose log start moved (DeleteRecords to 4 of 10): a consumer at an offset below
  the start and one beyond the end, with auto.offset.reset earliest (the first record it reads
  is offset 4), latest (it reads only what is produced after it started) and none / error (the
  client surfaces OFFSET_OUT_OF_RANGE and reads nothing).
- A group whose committed offset the log start passed: committed 3, DeleteRecords to 6, a
  consumer of the group subscribing (earliest: offset 6 first) or assigned (latest: only new
  records; none/error: the error), for each client; the committed offset is left as it was.
- ListOffsets by timestamp: before the first record (the log start, not 0, once trimmed), at a
  record, after the last (-1 / None), with both clients.

The same cases after TTL retention (not DeleteRecords) are in kafka_retention_test.py.

Usage: kafka_offsets_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

minktest.require_modules("confluent_kafka", "kafka")
minktest.require_tool("kcat", "kcat", "-V")
import kafka  # noqa: E402
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402

from kafka_consumers import CLIENTS, commit, committed, delete_records, has, produce  # noqa: E402


def kcat_checks(node, checks):
    subprocess.run(["kcat", "-P", "-b", node.broker, "-t", "t1"], input=b"one\ntwo\nthree\n",
                   check=True, timeout=30)
    cases = (("earliest", 0, "0 one\n1 two\n2 three\n"), ("latest", 0, ""))
    for reset, status, out in cases:
        r = subprocess.run(["kcat", "-C", "-b", node.broker, "-t", "t1", "-o", "10", "-e",
                            "-X", f"auto.offset.reset={reset}", "-f", "%o %s\n"],
                           capture_output=True, timeout=30)
        checks.expect(f"kcat -o 10 -e -X auto.offset.reset={reset}: exit status and records",
                      (status, out), (r.returncode, r.stdout.decode()))
    r = subprocess.run(["kcat", "-C", "-b", node.broker, "-t", "t1", "-o", "10", "-e",
                        "-X", "auto.offset.reset=error"], capture_output=True, timeout=30)
    checks.ok("kcat -o 10 -X auto.offset.reset=error: exits with an error naming the offset",
              r.returncode != 0 and b"offset" in r.stderr.lower() and r.stdout == b"",
              f"status {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")


def reset_checks(node, checks):
    """Below the start and beyond the end of a partition trimmed by DeleteRecords."""
    topic = "trimmed"
    produce(node, topic, [f"m{i}" for i in range(10)])
    delete_records(node, topic, 4)
    end = 10
    for client, (Reader, policy, none_errors) in CLIENTS.items():
        for where, offset in (("below the start", 2), ("beyond the end", 15)):
            name = f"{client}, offset {offset} ({where})"
            r = Reader(node, topic, policy["earliest"], offset).poll_for(15, has(2))
            checks.expect(f"{name}, reset earliest: reads from the log start",
                          [(4, "m4"), (5, "m5")], r.records[:2])
            r.close()

            r = Reader(node, topic, policy["latest"], offset).poll_for(2)
            checks.expect(f"{name}, reset latest: nothing before new records", [], r.records)
            new = f"late-{client}-{offset}"
            produce(node, topic, [new])
            r.poll_for(15, has(1))
            checks.expect(f"{name}, reset latest: then the new record", [(end, new)], r.records)
            end += 1
            r.close()

            r = Reader(node, topic, policy["none"], offset).poll_for(10, lambda r: r.errors)
            r.poll_for(1)
            checks.expect(f"{name}, reset none: the error, no records",
                          (none_errors, []), (r.error_codes(), r.records))
            r.close()


def group_checks(node, checks):
    """A group's committed offset that the log start has passed."""
    topic = "group-trimmed"
    produce(node, topic, [f"g{i}" for i in range(10)])
    groups = {}
    for client in CLIENTS:
        for reset in ("earliest", "latest", "none"):
            groups[(client, reset)] = f"g-{client}-{reset}"
            commit(node, groups[(client, reset)], topic, 3)
    delete_records(node, topic, 6)
    end = 10
    for client, (Reader, policy, none_errors) in CLIENTS.items():
        group = groups[(client, "earliest")]
        r = Reader(node, topic, policy["earliest"], group=group, subscribe=True).poll_for(30, has(2))
        checks.expect(f"{client}: a group committed at 3 below the start 6, subscribed, reset "
                      "earliest: reads from 6", [(6, "g6"), (7, "g7")], r.records[:2])
        r.close()

        group = groups[(client, "latest")]
        r = Reader(node, topic, policy["latest"], group=group).poll_for(2)
        new = f"late-{client}"
        produce(node, topic, [new])
        r.poll_for(15, has(1))
        checks.expect(f"{client}: a group committed below the start, reset latest: only the "
                      "record produced after it started", [(end, new)], r.records)
        end += 1
        r.close()

        group = groups[(client, "none")]
        r = Reader(node, topic, policy["none"], group=group).poll_for(10, lambda r: r.errors)
        checks.expect(f"{client}: a group committed below the start, reset none: the error",
                      (none_errors, []), (r.error_codes(), r.records))
        r.close()
        checks.expect(f"{client}: the committed offset is left where it was", 3,
                      committed(node, group, topic))


def timestamp_checks(node, checks):
    topic = "timed-trimmed"
    now = int(time.time() * 1000)
    p = Producer({"bootstrap.servers": node.broker, "linger.ms": 0})
    for i in range(6):
        p.produce(topic, f"t{i}".encode(), partition=0, timestamp=now - 60000 + i * 1000)
        p.flush(30)
    delete_records(node, topic, 2)
    cases = (("before the first record", 0, 2), ("at the 4th record", now - 57000, 3),
             ("after the last record", now + 3600 * 1000, -1))
    c = Consumer({"bootstrap.servers": node.broker, "group.id": "ts"})
    py = kafka.KafkaConsumer(bootstrap_servers=node.broker)
    tp = kafka.TopicPartition(topic, 0)
    for name, ts, expected in cases:
        got = c.offsets_for_times([TopicPartition(topic, 0, ts)], timeout=10)[0]
        checks.expect(f"librdkafka offsets_for_times {name}: offset {expected}", (expected, None),
                      (got.offset, got.error))
        found = py.offsets_for_times({tp: ts})[tp]
        checks.expect(f"kafka-python offsets_for_times {name}: "
                      f"{'None' if expected < 0 else expected}",
                      None if expected < 0 else expected, found.offset if found else None)
    c.close()
    py.close()


def main(node, checks):
    node.start(default_partitions=1)
    kcat_checks(node, checks)
    reset_checks(node, checks)
    group_checks(node, checks)
    timestamp_checks(node, checks)


if __name__ == "__main__":
    minktest.run_test("kafka-offsets", main, budget_seconds=190)
