#!/usr/bin/python3
"""Three `mink serve` nodes on loopback sharing one PostgreSQL database and one S3 bucket (the
harness's servers, scripts/with-test-services), driven by real Kafka clients.

- A topic with 6 partitions is spread over all three nodes: Metadata from every node lists the
  three brokers and the same leader for each partition, two partitions each.
- An idempotent producer (python3-confluent-kafka, librdkafka) writes a dense numbered sequence
  while the leader of some partitions is killed with SIGKILL: the dead node's partitions move to
  the live nodes once its heartbeat expires (--session-timeout 3s here), librdkafka follows the
  new leaders by itself (NOT_LEADER_OR_FOLLOWER, then Metadata), and writes resume within the
  session timeout + 2 s. A reader then finds every acknowledged number exactly once: 0 lost,
  0 duplicated.
- The killed node comes back as a new process: it gets partitions back, gradually.
- A SIGTERM'd node hands its partitions over before it exits (a planned move): the producer
  running meanwhile loses nothing.
- FindCoordinator names one node for a group on every node, and a consumer group commits and
  fetches its offsets there.

Usage: cluster_kafka_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_helpers  # noqa: E402
import minktest  # noqa: E402

minktest.require_modules("confluent_kafka")
from confluent_kafka import Consumer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

SESSION_TIMEOUT_S = 3
TOPIC = "numbers"
PARTITIONS = 6


def metadata(node):
    """{partition: leader} and the broker ids as `node` answers them."""
    admin = AdminClient({"bootstrap.servers": node.broker})
    md = admin.list_topics(TOPIC, timeout=10)
    t = md.topics[TOPIC]
    leaders = {p.id: p.leader for p in t.partitions.values() if p.error is None}
    return leaders, sorted(md.brokers)


def check_dense(checks, name, producer, seen):
    acked = producer.acked
    lost, dup, _ = cluster_helpers.lost_and_duplicated(acked, seen)
    checks.expect(f"{name}: no acknowledged record lost", [], lost[:20])
    checks.expect(f"{name}: no record stored twice", [], dup[:20])
    checks.ok(f"{name}: records were acknowledged", len(acked) > 100, f"{len(acked)} acknowledged")


def owners_spread(nodes):
    """Whether every node answers the same leaders and each node leads two partitions."""
    views = []
    for n in nodes:
        try:
            views.append(metadata(n))
        except Exception:  # noqa: BLE001 - a node still starting
            return False
    first = views[0]
    if any(v != first for v in views) or len(first[0]) != PARTITIONS:
        return False
    per = {}
    for leader in first[0].values():
        per[leader] = per.get(leader, 0) + 1
    return sorted(per.values()) == [2, 2, 2]


def main():
    cluster_helpers.start_test(400, "path/to/mink")
    nodes = cluster_helpers.shared_cluster(sys.argv[1], "cluster")
    checks = minktest.Checks()
    flags = ["--session-timeout", f"{SESSION_TIMEOUT_S}s"]
    try:
        for n in nodes:
            n.start(default_partitions=PARTITIONS, extra=flags)
        admin = AdminClient({"bootstrap.servers": nodes[0].broker})
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])["numbers"].result(30)

        checks.ok("6 partitions spread 2/2/2, the same leaders from every node",
                  minktest.wait_until(20, lambda: owners_spread(nodes)),
                  f"views: {[metadata(n) for n in nodes]}")
        leaders, brokers = metadata(nodes[1])
        checks.expect("every node lists the three brokers", [1, 2, 3], brokers)

        # ---- kill -9 the leader of partition 0 under an idempotent producer
        producer = cluster_helpers.NumberedProducer(",".join(n.broker for n in nodes), TOPIC).start()
        minktest.wait_until(20, lambda: len(producer.acked) > 300)
        victim_id = leaders[0]
        victim = nodes[victim_id - 1]
        killed_at = time.monotonic()
        sent_at_kill = producer.next
        victim.kill()
        # Writes to its partitions resume on the new owners.
        resumed = minktest.wait_until(
            SESSION_TIMEOUT_S + 20,
            lambda: all_partitions_acked_after(producer, killed_at, sent_at_kill))
        took = (producer.first_all_after or time.monotonic()) - killed_at
        checks.ok(f"writes to every partition resume within session timeout + 2 s after kill -9 "
                  f"({took:.1f} s)", resumed and took <= SESSION_TIMEOUT_S + 2, f"{took:.1f} s")
        live = [n for n in nodes if n is not victim]
        new_leaders, brokers = metadata(live[0])
        checks.expect("the dead node is no broker any more", sorted(n.node_id for n in live), brokers)
        checks.ok("no partition is led by the dead node",
                  victim_id not in new_leaders.values() and len(new_leaders) == PARTITIONS,
                  str(new_leaders))

        # ---- it comes back and gets its share again
        victim.restart()
        checks.ok("the restarted node gets partitions back",
                  minktest.wait_until(30, lambda: owners_spread(nodes)), str(metadata(nodes[0])))

        # ---- SIGTERM: a planned hand-off
        leaving = nodes[(victim_id % 3)]
        stop_at = time.monotonic()
        rc = leaving.stop(signal.SIGTERM, timeout=60)
        checks.expect("a SIGTERM'd node exits cleanly after handing over", 0, rc)
        checks.ok("writes go on after the hand-off",
                  minktest.wait_until(15, lambda: len(producer.acked_after(time.monotonic() - 1)) > 50))
        leaving.restart()
        minktest.wait_until(30, lambda: owners_spread(nodes))

        left = producer.stop()
        checks.expect("every produced record was delivered", 0, left)
        checks.expect("no delivery failed", [], producer.errors[:5])
        seen = cluster_helpers.read_topic(nodes[0].broker, TOPIC, PARTITIONS, len(producer.acked))
        check_dense(checks, "kill -9, restart, SIGTERM", producer, seen)

        # ---- consumer groups: one coordinator for a group, on every node
        coords = set()
        for n in nodes:
            c = Consumer({"bootstrap.servers": n.broker, "group.id": "g1",
                          "auto.offset.reset": "earliest", "enable.auto.commit": False})
            c.assign([TopicPartition(TOPIC, 0, 0)])
            c.consume(10, timeout=5)
            c.commit(offsets=[TopicPartition(TOPIC, 0, 7)], asynchronous=False)
            got = c.committed([TopicPartition(TOPIC, 0)], timeout=10)
            coords.add(got[0].offset)
            threading.Thread(target=c.close, daemon=True).start()
        checks.expect("a group's committed offset reads back from every node", {7}, coords)
    except Exception as e:  # noqa: BLE001
        cluster_helpers.failed(checks, "cluster", e)
    finally:
        cluster_helpers.finish(checks, nodes)


def all_partitions_acked_after(producer, t, numbers_from):
    """Whether every partition has acknowledged a number sent at or after numbers_from since t
    (the default partitioner spreads keys over all six); sets producer.first_all_after."""
    with producer.lock:
        latest_first = {}
        for at, n, p in producer.ack_times:
            if at > t and n >= numbers_from:
                latest_first.setdefault(p, at)
    if len(latest_first) == PARTITIONS:
        producer.first_all_after = max(latest_first.values())
        return True
    producer.first_all_after = None
    return False


if __name__ == "__main__":
    main()
