#!/usr/bin/python3
"""The quick start's second `mink serve` example as three nodes: the flags exactly as the example
writes them, on the harness's PostgreSQL and S3 server.

    mink serve --node-id N \
        --listen 127.0.0.1:P --advertise grpc://localhost:P \
        --kafka-listen 127.0.0.1:K --kafka-advertise localhost:K \
        --meta-url postgres://mink_seed:pass@127.0.0.1:5432/<db> \
        --storage-uri "-2@s3://<bucket>?region=us-east-1"

What differs from the example, and why: the listeners are on 127.0.0.1 rather than 0.0.0.0
(tests keep servers on loopback) with free ports, and the advertised host is `localhost` (a name
clients must resolve, as node2.internal is) rather than a name this machine does not have. The
S3 URI carries no endpoint or credentials: like the AWS SDKs, the node takes them from
AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, and path style because the
endpoint is an IP address. The database URL names a password-protected role of its own.

Checks: `mink cluster nodes` lists the three with the advertised addresses, one coordinator; a
6-bucket primary-key table is spread 2/2/2 and rows written through one node read back the same
from every node; a Kafka client bootstrapped at one node sees the three brokers at their
advertised names, produces to a 3-partition topic (each partition led by another node) and a
consumer bootstrapped at another node reads every record back.

Usage: cluster_seed_test.py path/to/mink   (Debian's /usr/bin/python3, under with-test-services)
"""

import json
import os
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cluster_helpers  # noqa: E402
import minktest  # noqa: E402

ROWS = 120
RECORDS = 90


def seed_stores():
    """(metadata URL, storage URI, node environment) as the example writes them."""
    pg_url = minktest.require_env("MINK_TEST_PG_URL")
    s3_uri = minktest.require_env("MINK_TEST_S3_URI")
    meta_url, storage = minktest.cluster_stores()
    db = urllib.parse.urlsplit(meta_url).path.lstrip("/")
    role = "mink_seed"
    subprocess.run(["psql", pg_url, "-q", "-c",
                    f"DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') THEN "
                    f"CREATE ROLE {role} LOGIN PASSWORD 'pass'; END IF; END$$;",
                    "-c", f"ALTER DATABASE {db} OWNER TO {role}"],
                   check=True, capture_output=True, timeout=30)
    pg = urllib.parse.urlsplit(pg_url)
    seed_meta = f"postgres://{role}:pass@{pg.hostname}:{pg.port}/{db}"
    bucket_id, rest = storage.split("@", 1)
    parts = urllib.parse.urlsplit(rest)
    options = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(s3_uri.split("@", 1)[1]).query))
    env = {"AWS_ENDPOINT_URL": options["endpoint"], "AWS_ACCESS_KEY_ID": options["access-key"],
           "AWS_SECRET_ACCESS_KEY": options["secret-key"]}
    return seed_meta, f"{bucket_id}@s3://{parts.netloc}?region=us-east-1", env


def main():
    cluster_helpers.start_test(300, "path/to/mink")
    minktest.require_modules("confluent_kafka")
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    meta_url, storage, env = seed_stores()
    nodes = [minktest.MinkNode(sys.argv[1], f"seed{i}", node_id=i, meta_url=meta_url,
                               storage_uri=storage, advertise_host="localhost", env=env)
             for i in (1, 2, 3)]
    checks = minktest.Checks()
    try:
        for n in nodes:
            n.start()
        n1, n2, n3 = nodes

        def listed():
            r = n1.mink("cluster", "nodes", "--format", "json")
            return sorted((m["node"], m["flight"], m["kafka"], m["live"])
                          for m in map(json.loads, r.stdout.splitlines()))
        expected = sorted((n.node_id, n.flight, n.broker, True) for n in nodes)
        checks.ok("mink cluster nodes: three live nodes at their advertised localhost addresses",
                  minktest.wait_until(20, lambda: listed() == expected), f"{listed()} != {expected}")
        r = n2.mink("cluster", "nodes", "--format", "json")
        checks.expect("one coordinator", 1,
                      sum(1 for m in map(json.loads, r.stdout.splitlines()) if m["coordinator"]))

        n1.mink("db", "create", "shop")
        n1.mink("table", "create", "shop.orders", "-C", "id BIGINT NOT NULL", "-C", "region STRING",
                "-C", "amount BIGINT", "--primary-key", "id", "--bucket-count", "6")
        checks.ok("6 buckets spread 2/2/2, the same owners from every node",
                  minktest.wait_until(30, lambda: cluster_helpers.spread(nodes, "shop.orders", 2)),
                  str([cluster_helpers.owners(n, "shop.orders") for n in nodes]))
        rows = [{"id": i, "region": ["us", "eu", "ap"][i % 3], "amount": i * 10}
                for i in range(1, ROWS + 1)]
        n3.mink("write", "shop.orders", input="".join(json.dumps(r) + "\n" for r in rows),
                timeout=120)
        want = {r["id"]: r for r in rows}
        for n in nodes:
            checks.expect(f"node {n.node_id}: the snapshot holds every row written through node 3",
                          want, cluster_helpers.snapshot(n, "shop.orders"))

        admin = AdminClient({"bootstrap.servers": n1.broker})
        admin.create_topics([NewTopic("trades", num_partitions=3)])["trades"].result(timeout=30)

        def leaders():
            md = admin.list_topics("trades", timeout=10)
            brokers = sorted((b.id, f"{b.host}:{b.port}") for b in md.brokers.values())
            parts = md.topics["trades"].partitions
            return brokers, sorted(p.leader for p in parts.values())
        want_brokers = sorted((n.node_id, n.broker) for n in nodes)
        checks.ok("Kafka Metadata: three brokers at their advertised names, one partition each",
                  minktest.wait_until(30, lambda: leaders() == (want_brokers, [1, 2, 3])),
                  str(leaders()))

        producer = Producer({"bootstrap.servers": n1.broker, "enable.idempotence": True})
        delivered = []
        for i in range(RECORDS):
            producer.produce("trades", key=str(i).encode(), value=str(i).encode(), partition=i % 3,
                             on_delivery=lambda err, msg: delivered.append(err is None))
        checks.expect("every record delivered", 0, producer.flush(60))
        checks.expect("every delivery succeeded", [True] * RECORDS, delivered)

        consumer = Consumer({"bootstrap.servers": n3.broker, "group.id": "seed",
                             "enable.auto.commit": False})
        consumer.assign([TopicPartition("trades", p, 0) for p in range(3)])
        seen = []
        minktest.wait_until(60, lambda: seen.extend(
            int(m.value()) for m in consumer.consume(100, timeout=1) if m.error() is None)
            or len(seen) >= RECORDS, interval=0)
        consumer.close()
        checks.expect("a consumer bootstrapped at node 3 reads every record once",
                      list(range(RECORDS)), sorted(seen))
    except Exception as e:  # noqa: BLE001
        cluster_helpers.failed(checks, "cluster_seed", e)
    finally:
        cluster_helpers.finish(checks, nodes)


if __name__ == "__main__":
    main()
