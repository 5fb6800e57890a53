#!/usr/bin/python3
"""Three `mink serve` nodes on loopback sharing one PostgreSQL database and one S3 bucket (the
harness's servers), driven over Arrow Flight with the `mink` CLI and mink-query.

- A primary-key table of 6 buckets and a log table of 3 are spread over the three nodes
  (`mink table offsets` names each bucket's owner, the same from every node; two and one each).
- `mink write` through any node stores every row: each node writes the buckets it serves and
  forwards the rest to their owners. Reads (`mink read --mode snapshot`, the log) from any node
  return every row, and mink-query, which follows FlightInfo endpoints to the owners, agrees.
- kill -9 of a node: its buckets move to the others once its heartbeat expires; updating every
  key through a survivor gives -U/+U changes for every key (the new owners rebuilt the KV state
  from the snapshot and the changelog: no key looks new), each key has exactly one +I in its
  changelog, and the snapshot holds every update.
- SIGSTOP of a node for longer than the session timeout: its buckets move while it sleeps; when
  it wakes it steps down from them, and writes through it and reads from it are right.
- `mink cluster nodes`: three live nodes, one coordinator, the buckets owned adding up.

Usage: cluster_flight_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_helpers  # noqa: E402
import minktest  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

SESSION_TIMEOUT_S = 3
KEYS = 300


owners = cluster_helpers.owners
spread = cluster_helpers.spread


def moved_off(survivors, table, gone_id):
    """Whether every survivor sees every bucket of `table` owned by a live survivor."""
    ids = {n.node_id for n in survivors}
    for n in survivors:
        o = owners(n, table)
        if not o or any(owner not in ids for owner in o.values()) or gone_id in o.values():
            return False
    return True


def write_rows(node, table, rows):
    lines = "".join(json.dumps(r) + "\n" for r in rows)
    return node.mink("write", table, input=lines, check=False, timeout=120)


snapshot = cluster_helpers.snapshot


def changelog(node, table):
    r = node.mink("read", table, "--meta", "--format", "json", timeout=120)
    return [json.loads(line) for line in r.stdout.splitlines()]


def lookup(node, table, keys):
    """The rows `mink lookup` through `node` answers for `keys` ({column: value} each), in order."""
    r = node.mink("lookup", table, "--format", "json",
                  input="".join(json.dumps(k) + "\n" for k in keys), timeout=120)
    return [json.loads(line) for line in r.stdout.splitlines()]


def main():
    cluster_helpers.start_test(400, "path/to/mink", "path/to/mink-query")
    query_bin = os.path.abspath(sys.argv[2])
    nodes = cluster_helpers.shared_cluster(sys.argv[1], "cflight")
    checks = minktest.Checks()
    flags = ["--session-timeout", f"{SESSION_TIMEOUT_S}s"]
    try:
        for n in nodes:
            n.start(extra=flags)
        n1, n2, n3 = nodes
        n1.mink("db", "create", "shop")
        n2.mink("table", "create", "shop.accounts", "-C", "id BIGINT NOT NULL", "-C", "name STRING",
                "-C", "balance BIGINT", "--primary-key", "id", "--bucket-count", "6")
        n3.mink("table", "create", "shop.events", "-C", "id BIGINT NOT NULL", "-C", "note STRING",
                "--bucket-count", "3")
        checks.ok("6 primary-key buckets spread 2/2/2, the same owners from every node",
                  minktest.wait_until(20, lambda: spread(nodes, "shop.accounts", 2)),
                  str([owners(n, "shop.accounts") for n in nodes]))
        checks.ok("3 log buckets spread 1/1/1",
                  minktest.wait_until(20, lambda: spread(nodes, "shop.events", 1)),
                  str([owners(n, "shop.events") for n in nodes]))
        by_node = {}
        for bucket, owner in sorted(owners(n1, "shop.accounts").items()):
            by_node.setdefault(owner, []).append(bucket)
        want = "owners " + "; ".join(f"node {o}: {' '.join(b)}" for o, b in sorted(by_node.items()))
        for n in nodes:
            text = n.mink("table", "describe", "shop.accounts").stdout
            got = [" ".join(line.split()) for line in text.splitlines() if line.startswith("owners")]
            checks.expect(f"mink table describe through node {n.node_id} names the owners",
                          [want], got)

        # ---- writes through every node, reads from every node
        expected = {}
        for i, n in enumerate(nodes):
            rows = [{"id": k, "name": f"n{k}", "balance": k} for k in range(i * 100, (i + 1) * 100)]
            r = write_rows(n, "shop.accounts", rows)
            checks.expect(f"mink write through node {n.node_id} (100 keys over 6 buckets)",
                          (0, ""), (r.returncode, r.stderr.strip()))
            expected.update({row["id"]: row for row in rows})
            r = write_rows(n, "shop.events", [{"id": n.node_id * 1000 + j, "note": "e"} for j in range(10)])
            checks.expect(f"log write through node {n.node_id}", (0, ""), (r.returncode, r.stderr.strip()))
        for n in nodes:
            checks.expect(f"snapshot read from node {n.node_id}: every key", expected,
                          snapshot(n, "shop.accounts"))
            got = sorted(row["id"] for row in changelog(n, "shop.events"))
            checks.expect(f"log read from node {n.node_id}: every event",
                          sorted(k * 1000 + j for k in (1, 2, 3) for j in range(10)), got)
            # Keys of all six buckets: each node answers its own and forwards the rest.
            keys = [{"id": k} for k in (5, KEYS + 7, 150, 299, 0, 42)]
            checks.expect(f"mink lookup through node {n.node_id}: every owner's keys, in key order,"
                          " the missing one left out",
                          [expected[k["id"]] for k in keys if k["id"] in expected],
                          lookup(n, "shop.accounts", keys))
        # ---- one idempotent batch sent through every node lands once: a table without a bucket
        # key routes it by its writer and sequence, not to a bucket of the receiving node
        put = os.path.join(HERE, "flight_idempotent_put.js")
        r = subprocess.run(["node", put, str(n1.flight_port), "init-writer"], capture_output=True,
                           text=True, timeout=60)
        writer = json.loads(r.stdout)["writer_id"] if r.returncode == 0 else None
        checks.ok("init-writer through node 1", writer is not None, r.stderr.strip())
        answers = []
        for n in nodes:
            r = subprocess.run(["node", put, str(n.flight_port), "put", "shop.events", str(writer),
                                "0", "9000", "5"], capture_output=True, text=True, timeout=60)
            answers.append(json.loads(r.stdout) if r.returncode == 0 else r.stderr.strip())
        checks.ok("the same (writer, sequence) through nodes 1, 2 and 3: one answer, its original"
                  " bucket and offsets each time", all(a == answers[0] for a in answers)
                  and isinstance(answers[0], dict) and len(answers[0]["buckets"]) == 1, str(answers))
        got = sorted(row["id"] for row in changelog(n2, "shop.events") if row["id"] >= 9000)
        checks.expect("the idempotent batch is stored once", list(range(9000, 9005)), got)

        q = subprocess.run([query_bin, "exec", "-e",
                            "SELECT count(*) AS n, sum(balance) AS s FROM mink.shop.accounts"],
                           env=dict(os.environ, MINK_BOOTSTRAP=n2.flight), capture_output=True,
                           text=True, timeout=120)
        checks.expect("mink-query through node 2 follows the endpoints to every owner",
                      [{"n": KEYS, "s": sum(range(KEYS))}],
                      [json.loads(line) for line in q.stdout.splitlines()] if q.returncode == 0
                      else q.stderr.strip())

        # ---- kill -9: the dead node's buckets move, their KV state is rebuilt
        victim = n3
        victim_buckets = [b for b, o in owners(n1, "shop.accounts").items() if o == victim.node_id]
        victim.kill()
        survivors = [n1, n2]
        checks.ok("the dead node's buckets move to the live nodes",
                  minktest.wait_until(SESSION_TIMEOUT_S + 20,
                                      lambda: moved_off(survivors, "shop.accounts", victim.node_id)),
                  str(owners(n1, "shop.accounts")))
        updated = {k: {"id": k, "name": f"n{k}", "balance": k + 1000} for k in range(KEYS)}
        r = write_rows(n2, "shop.accounts", list(updated.values()))
        checks.expect("updating every key through a survivor", (0, ""), (r.returncode, r.stderr.strip()))
        log = changelog(n1, "shop.accounts")
        inserts = {}
        for c in log:
            if c["__change"] == "+I":
                inserts[c["id"]] = inserts.get(c["id"], 0) + 1
        checks.expect("each key has exactly one +I: the new owners knew every key",
                      {k: 1 for k in range(KEYS)}, inserts)
        moved_updates = [c for c in log if c["__bucket"] in victim_buckets and c["__change"] == "+U"
                         and c["balance"] >= 1000]
        checks.ok(f"keys of the moved buckets {victim_buckets} were updated (-U/+U)",
                  len(moved_updates) > 0, f"{len(moved_updates)} +U in the moved buckets")
        checks.expect("snapshot after the failover holds every update", updated,
                      snapshot(n1, "shop.accounts"))
        checks.expect("lookups of every key after the failover see every update",
                      [updated[k] for k in range(KEYS)],
                      lookup(n2, "shop.accounts", [{"id": k} for k in range(KEYS)]))
        victim.restart()
        checks.ok("the restarted node gets its share again",
                  minktest.wait_until(30, lambda: spread(nodes, "shop.accounts", 2)),
                  str(owners(n1, "shop.accounts")))

        # ---- SIGSTOP: a paused owner steps down when it wakes
        sleeper = n2
        sleeper.pause()
        awake = [n1, n3]
        moved = minktest.wait_until(SESSION_TIMEOUT_S + 20,
                                    lambda: moved_off(awake, "shop.accounts", sleeper.node_id))
        checks.ok("a paused node's buckets move while it sleeps", moved,
                  str(owners(n1, "shop.accounts")))
        paused_update = {k: {"id": k, "name": f"p{k}", "balance": k + 2000} for k in range(KEYS)}
        r = write_rows(n1, "shop.accounts", list(paused_update.values()))
        checks.expect("writes go on while it sleeps", (0, ""), (r.returncode, r.stderr.strip()))
        sleeper.resume()
        checks.ok("after it wakes, every node agrees on the owners again and it gets its share",
                  minktest.wait_until(30, lambda: spread(nodes, "shop.accounts", 2)),
                  str([owners(n, "shop.accounts") for n in nodes]))
        final = {k: {"id": k, "name": f"w{k}", "balance": k + 3000} for k in range(KEYS)}
        r = write_rows(sleeper, "shop.accounts", list(final.values()))
        checks.expect("a write through the woken node", (0, ""), (r.returncode, r.stderr.strip()))
        for n in nodes:
            checks.expect(f"snapshot from node {n.node_id} after the pause", final,
                          snapshot(n, "shop.accounts"))
        inserts = {}
        for c in changelog(n3, "shop.accounts"):
            if c["__change"] == "+I":
                inserts[c["id"]] = inserts.get(c["id"], 0) + 1
        checks.expect("still exactly one +I per key", {k: 1 for k in range(KEYS)}, inserts)

        # ---- the operator's view
        r = n1.mink("cluster", "nodes", "--format", "json")
        listed = [json.loads(line) for line in r.stdout.splitlines()]
        checks.expect("mink cluster nodes: three live nodes", [(1, True), (2, True), (3, True)],
                      sorted((m["node"], m["live"]) for m in listed))
        checks.expect("one coordinator", 1, sum(1 for m in listed if m["coordinator"]))
        checks.expect("the buckets owned add up to the 9 buckets", 9,
                      sum(m["buckets"] for m in listed))
    except Exception as e:  # noqa: BLE001
        cluster_helpers.failed(checks, "cluster flight", e)
    finally:
        cluster_helpers.finish(checks, nodes)


if __name__ == "__main__":
    main()
