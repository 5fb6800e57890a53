#!/usr/bin/python3
"""Consumer groups are coordinated by one node at a time, fenced: three `mink serve` nodes on the
harness's PostgreSQL and S3 server, a topic, and a group whose offsets are committed with plain
OffsetCommit requests (kafka-python's protocol classes on a socket, so the test says exactly
which node each request goes to).

- FindCoordinator names the same node on every node.
- The coordinator P is paused (SIGSTOP) past the session timeout: another node B takes the
  group and commits offset 20 for it.
- P is resumed. A commit sent to P (a client that still thinks P coordinates, with the offset
  it had, 15) is refused with NOT_COORDINATOR and changes nothing: the committed offset never
  moves back. Once P coordinates the group again, it answers 20, not the 10 it had cached
  before the pause, and takes new commits.

Before groups were fenced, P accepted the stale commit (last writer won: 20 went back to 15)
and answered the offset it had cached.

Usage: cluster_groups_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_helpers  # noqa: E402
import minktest  # noqa: E402

minktest.require_modules("kafka", "confluent_kafka")
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from kafka.protocol.commit import (GroupCoordinatorRequest_v0, OffsetCommitRequest_v2,  # noqa: E402
                                   OffsetFetchRequest_v1)
from kafka_wire import Wire  # noqa: E402

SESSION_TIMEOUT_S = 3
TOPIC = "orders"
GROUP = "fenced-group"
NOT_COORDINATOR = 16
COORDINATOR_NOT_AVAILABLE = 15


def ask(node, request):
    wire = Wire(node.broker, timeout=10)
    try:
        return wire.send(request)
    finally:
        wire.close()


def coordinator(node):
    """The node id `node` names as the group's coordinator (None on an error)."""
    r = ask(node, GroupCoordinatorRequest_v0(GROUP))
    return r.coordinator_id if r.error_code == 0 else None


def commit(node, offset):
    """The error code of a simple commit (no generation) of `offset` for partition 0, at `node`."""
    r = ask(node, OffsetCommitRequest_v2(GROUP, -1, "", -1, [(TOPIC, [(0, offset, "")])]))
    return r.topics[0][1][0][1]


def fetch(node):
    """(offset, error code) of partition 0 as `node` answers OffsetFetch."""
    r = ask(node, OffsetFetchRequest_v1(GROUP, [(TOPIC, [0])]))
    _, offset, _, error = r.topics[0][1][0]
    return offset, error


def agreed_coordinator(nodes):
    """The coordinator every node names, or None while they disagree."""
    named = {coordinator(n) for n in nodes}
    return named.pop() if len(named) == 1 and None not in named else None


def main():
    cluster_helpers.start_test(300, "path/to/mink")
    nodes = cluster_helpers.shared_cluster(sys.argv[1], "cgroups")
    by_id = {n.node_id: n for n in nodes}
    checks = minktest.Checks()
    try:
        for n in nodes:
            n.start(extra=["--session-timeout", f"{SESSION_TIMEOUT_S}s"])
        admin = AdminClient({"bootstrap.servers": nodes[0].broker})
        admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(30)
        ok = minktest.wait_until(30, lambda: agreed_coordinator(nodes) is not None
                                 and commit(by_id[agreed_coordinator(nodes)], 10) == 0, 0.5)
        p_id = agreed_coordinator(nodes)
        checks.ok(f"every node names one coordinator of the group (node {p_id}), which commits",
                  ok and p_id is not None)
        p = by_id[p_id]
        checks.expect("the coordinator answers the committed offset", (10, 0), fetch(p))

        # ---- P pauses past the session timeout; another node takes the group over
        others = [n for n in nodes if n is not p]
        p.pause()
        paused_at = time.monotonic()
        took = minktest.wait_until(SESSION_TIMEOUT_S + 15,
                                   lambda: agreed_coordinator(others) in {o.node_id for o in others}
                                   and commit(by_id[agreed_coordinator(others)], 20) == 0, 0.3)
        b_id = agreed_coordinator(others) if took else None
        checks.ok(f"while node {p_id} is paused, node {b_id} coordinates the group and commits 20"
                  f" ({time.monotonic() - paused_at:.1f} s after the pause)", took)
        p.resume()

        # ---- the stale coordinator is refused, and nothing moves back
        code = commit(p, 15)
        checks.ok(f"a commit sent to node {p_id} right after it resumed is refused (NOT_COORDINATOR"
                  " or COORDINATOR_NOT_AVAILABLE)", code in (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE),
                  f"error code {code}")
        fetched = fetch(p)
        checks.ok(f"node {p_id} does not answer the offset it cached before the pause",
                  fetched[1] != 0 or fetched[0] == 20, str(fetched))
        back = minktest.wait_until(SESSION_TIMEOUT_S + 15, lambda: agreed_coordinator(nodes) is not None
                                   and fetch(by_id[agreed_coordinator(nodes)]) == (20, 0), 0.3)
        now_id = agreed_coordinator(nodes)
        checks.ok(f"the group's coordinator (node {now_id}, every node agrees) answers 20: the stale"
                  " commit changed nothing", back)
        if now_id == p_id:
            checks.ok(f"node {p_id}, coordinator again, read the offsets afresh", True)
        checks.expect("the coordinator takes the next commit", 0, commit(by_id[now_id], 30))
        for n in nodes:
            checks.expect(f"OffsetFetch through node {n.node_id}: 30, or NOT_COORDINATOR when it does"
                          " not coordinate the group",
                          (30, 0) if n.node_id == now_id else NOT_COORDINATOR,
                          fetch(n) if n.node_id == now_id else fetch(n)[1])
    except Exception as e:  # noqa: BLE001
        cluster_helpers.failed(checks, "cluster groups", e)
    finally:
        cluster_helpers.finish(checks, nodes)


if __name__ == "__main__":
    main()
