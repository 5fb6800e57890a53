#!/usr/bin/python3
"""SQLite serves one node, also when two start at the same moment: two `mink serve` processes
launched together on one SQLite file (other node ids, then the same id), five times; exactly one
serves and the other exits naming the lock, before it registers (a survivor of the same node id
is not fenced: its writes go on; every survivor reads every row). A node killed with -9 leaves no
lock behind: the next starts at once.

Usage: sqlite_one_node_test.py path/to/mink   (Debian's /usr/bin/python3)
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_helpers  # noqa: E402
import minktest  # noqa: E402

REFUSAL = "another node serves the SQLite metadata database"


def launch(node):
    """Starts `node` without waiting for it (MinkNode.restart waits and raises on an exit)."""
    log = open(node.log_path, "ab")
    node.proc = subprocess.Popen(
        [node.mink_bin, "serve", "--node-id", str(node.node_id),
         "--listen", f"127.0.0.1:{node.flight_port}", "--advertise", node.flight,
         "--kafka-listen", node.kafka_listen, "--kafka-advertise", node.broker,
         "--meta-url", node.meta_url, "--storage-uri", node.storage_uri],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=node.env)
    log.close()


def answers(node):
    return node.proc is not None and node.proc.poll() is None and \
        node.mink("db", "list", check=False, timeout=10).returncode == 0


def main():
    cluster_helpers.start_test(240, "path/to/mink")
    first = minktest.MinkNode(sys.argv[1], "sqlite-one")
    checks = minktest.Checks()
    nodes = [first]
    try:
        first.start()
        first.mink("db", "create", "one")
        first.mink("table", "create", "one.t", "-C", "id BIGINT NOT NULL")
        first.mink("write", "one.t", input='{"id": 0}\n')
        first.stop()
        written = 1
        for round_ in range(5):
            same_id = round_ % 2 == 1
            pair = [minktest.MinkNode(sys.argv[1], f"sqlite-{round_}-{i}", node_id=1 if same_id else i + 1,
                                      meta_url=first.meta_url, storage_uri=first.storage_uri)
                    for i in range(2)]
            nodes += pair
            for n in pair:
                launch(n)  # both at once: neither has written a heartbeat yet
            minktest.wait_until(30, lambda: any(n.proc.poll() is not None for n in pair)
                                and any(answers(n) for n in pair), 0.1)
            time.sleep(1)  # a late second start would show here
            serving = [n for n in pair if n.proc.poll() is None]
            refused = [n for n in pair if n.proc.poll() is not None]
            what = f"round {round_} ({'same node id' if same_id else 'node ids 1 and 2'})"
            checks.expect(f"{what}: exactly one of two nodes started together serves", 1, len(serving))
            for n in refused:
                checks.ok(f"{what}: the other exits with an error naming the lock",
                          n.proc.returncode != 0 and REFUSAL in n.log_tail(),
                          f"status {n.proc.returncode}: {n.log_tail(5)}")
            if len(serving) == 1:
                survivor = serving[0]
                # Node 1 created the table: its buckets are node 1's (a node alone on SQLite takes
                # over its own earlier buckets, not another node id's), so node 1 writes them.
                if survivor.node_id == 1:
                    r = survivor.mink("write", "one.t", input=f'{{"id": {written}}}\n', check=False)
                    checks.expect(f"{what}: the survivor still writes (it was not fenced)", (0, ""),
                                  (r.returncode, r.stderr.strip()))
                    written += r.returncode == 0
                rows = survivor.mink("read", "one.t", check=False).stdout.splitlines()
                checks.expect(f"{what}: the survivor reads every row written", written, len(rows))
                if round_ % 2 == 0:
                    survivor.kill()  # kill -9: the lock goes with the process
                else:
                    checks.expect(f"{what}: the survivor stops cleanly", 0, survivor.stop())
            for n in pair:
                n.kill()
        again = minktest.MinkNode(sys.argv[1], "sqlite-after", meta_url=first.meta_url,
                                  storage_uri=first.storage_uri)
        nodes.append(again)
        again.start()
        rows = again.mink("read", "one.t").stdout.splitlines()
        checks.expect("a node started after the others serves every row", written, len(rows))
        again.stop()
    except Exception as e:  # noqa: BLE001 - every error is a failure with its trace
        import traceback
        traceback.print_exc()
        checks.fail(f"sqlite one node: {type(e).__name__}: {e}")
    finally:
        for n in reversed(nodes):
            n.cleanup()
        checks.finish()


if __name__ == "__main__":
    main()
