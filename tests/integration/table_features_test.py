#!/usr/bin/python3
"""Table features of issue 21 through the real CLI, SQL and clients: schema changes seen from
every interface, and the auto-increment column.

Schema changes: `mink table alter` on a log table and a primary-key
table, then the rows written under each schema read back under the last one through the CLI
(`mink read`, `mink lookup`), an independent Arrow JS Flight client (cluster_arrow_read.js),
SQL (`mink-query`, with ALTER TABLE too), and Kafka for a topic's options; again after a restart.

- shop.events (log table): schema 0 (id, n INT, note); schema 1 adds tag after id, renames note
  to remark and widens n to BIGINT; schema 2 drops tag and adds score DOUBLE (through SQL:
  ALTER TABLE ... DROP COLUMN / ADD COLUMN). Rows of each schema read with nulls for the columns
  they lack, the renamed column under its new name and widened values.
- shop.stock (primary key id, aggregation sum on qty): qty INT -> BIGINT and a new color column;
  sums continue past 2^31 in BIGINT; the snapshot, the changelog and lookups agree.
- Refusals name the reason: a key column dropped or retyped, a narrowing, a NOT NULL column
  added, an option that cannot change; and a writer naming a dropped column.
- A Kafka topic's retention changes with `mink table alter kafka.<topic> --set table.log.ttl=2h`
  (DescribeConfigs answers retention.ms 7200000, records still flow); its columns cannot change.

Auto-increment: a dictionary table over two buckets (`mink table create --auto-increment uid`):
`mink write` leaves the column out and each new name gets a unique id from 1, an existing name
keeps its id, a line naming the column is refused, and ids after a restart are new.

Usage: table_features_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

QUERY = None


def rows_of(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def sql(node, *statements):
    args = [QUERY, "exec", "--format", "json"]
    for s in statements:
        args += ["-e", s]
    r = subprocess.run(args, env=dict(os.environ, MINK_BOOTSTRAP=node.flight), capture_output=True,
                       text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"mink-query {statements}: {r.stderr.strip()}")
    return rows_of(r.stdout)


def arrow_rows(node, table, mode):
    return [r["row"] for r in minktest.arrow_read(node, table, mode)[1]]


def write(node, table, rows):
    node.mink("write", table, input="".join(json.dumps(r) + "\n" for r in rows))


def refused_write(node, table, text):
    r = node.mink("write", table, input=text, check=False)
    return (r.returncode, r.stderr.strip())


def refused(node, *args):
    r = node.mink(*args, check=False)
    return (r.returncode, r.stderr.strip())


EVENTS_FINAL = [
    {"id": 1, "n": 10, "remark": "a", "score": None},
    {"id": 2, "n": 20, "remark": "b", "score": None},
    {"id": 3, "n": 2**40, "remark": "c", "score": None},
    {"id": 4, "n": 40, "remark": "d", "score": 0.5},
]
STOCK_FINAL = [
    {"id": 1, "qty": 6 + 2**32, "price": "11.000", "color": "red"},
    {"id": 2, "qty": 7, "price": "3.000", "color": None},
]


def check_events(checks, node, when):
    got = sorted(rows_of(node.mink("read", "shop.events", "--format", "json").stdout),
                 key=lambda r: r["id"])
    checks.expect(f"{when}: mink read shop.events, rows of three schemas under the last", EVENTS_FINAL,
                  got)
    js = sorted(arrow_rows(node, "shop.events", "log"), key=lambda r: r["id"])
    checks.expect(f"{when}: Arrow JS reads the same rows", [
        {k: (str(v) if k == "n" and v > 2**31 else v) for k, v in r.items()} for r in EVENTS_FINAL
    ], [{k: (str(v) if k == "n" and isinstance(v, int) and v > 2**31 else v) for k, v in r.items()}
        for r in js])
    q = sql(node, "SELECT id, n, remark, score FROM mink.shop.events ORDER BY id")
    checks.expect(f"{when}: SQL reads the same rows", EVENTS_FINAL, q)


def check_stock(checks, node, when):
    snapshot = sorted(rows_of(node.mink("read", "shop.stock", "--mode", "snapshot",
                                        "--format", "json").stdout), key=lambda r: r["id"])
    as_text = [{**r, "price": f"{r['price']:.3f}" if r["price"] is not None else None}
               for r in snapshot]
    checks.expect(f"{when}: the snapshot under the new schema (sums in BIGINT)", STOCK_FINAL, as_text)
    looked = rows_of(node.mink("lookup", "shop.stock", "id=1", "--format", "json").stdout)
    checks.expect(f"{when}: mink lookup", [snapshot[0]], looked)
    q = sql(node, "SELECT id, qty, CAST(price AS VARCHAR) AS price, color FROM mink.shop.stock "
                  "WHERE id = 1")
    checks.expect(f"{when}: SQL lookup by key", [STOCK_FINAL[0]], q)
    js = sorted(arrow_rows(node, "shop.stock", "snapshot"), key=lambda r: r["id"])
    checks.expect(f"{when}: Arrow JS snapshot", [r["qty"] for r in STOCK_FINAL],
                  [int(r["qty"]) for r in js])


def main(node, checks):
    node.start()
    node.mink("db", "create", "shop")

    # ---- a log table through three schemas
    node.mink("table", "create", "shop.events", "-C", "id BIGINT NOT NULL", "-C", "n INT",
              "-C", "note STRING")
    write(node, "shop.events", [{"id": 1, "n": 10, "note": "a"}, {"id": 2, "n": 20, "note": "b"}])
    node.mink("table", "alter", "shop.events", "--add-column", "tag STRING", "--after", "id",
              "--rename-column", "note=remark", "--modify-column", "n BIGINT")
    d = json.loads(node.mink("table", "describe", "shop.events", "--format", "json").stdout)
    checks.expect("describe after the first alter: columns, ids and schema 1",
                  ([("id", 0), ("tag", 3), ("n", 1), ("remark", 2)], 1),
                  ([(c["name"], c["id"]) for c in d["columns"]], d["schema_id"]))
    write(node, "shop.events", [{"id": 3, "tag": "t", "n": 2**40, "remark": "c"}])
    sql(node, "ALTER TABLE mink.shop.events DROP COLUMN tag",
        "ALTER TABLE mink.shop.events ADD COLUMN score DOUBLE")
    write(node, "shop.events", [{"id": 4, "n": 40, "remark": "d", "score": 0.5}])
    check_events(checks, node, "three schemas")
    checks.expect("a writer that names a dropped column is refused",
                  (2, "mink write: line 1: unknown column 'tag' in shop.events"),
                  (node.mink("write", "shop.events", input='{"id": 5, "tag": "x"}\n',
                             check=False).returncode,
                   node.mink("write", "shop.events", input='{"id": 5, "tag": "x"}\n',
                             check=False).stderr.strip()))

    # ---- a primary-key table
    node.mink("table", "create", "shop.stock", "-C", "id BIGINT NOT NULL", "-C", "qty INT",
              "-C", "price DECIMAL(10,2)", "--primary-key", "id",
              "--option", "table.merge-engine=aggregation", "--option", "fields.qty.agg=sum")
    write(node, "shop.stock", [{"id": 1, "qty": 5, "price": "10.50"},
                               {"id": 2, "qty": 7, "price": "3.00"},
                               {"id": 1, "qty": 1, "price": "11.00"}])
    node.mink("table", "alter", "shop.stock", "--modify-column", "qty BIGINT",
              "--modify-column", "price DECIMAL(12,3)", "--add-column", "color STRING")
    write(node, "shop.stock", [{"id": 1, "qty": 2**32, "color": "red"}])
    check_stock(checks, node, "after the alter")

    # ---- what is refused, with the reason
    for args, want in [
        (("--drop-column", "id"), "column 'id' is part of the primary key and cannot be dropped"),
        (("--modify-column", "id INT NOT NULL"), "column 'id' is part of the primary key: its type "
         "cannot change (its encoding decides each row's key and bucket)"),
        (("--modify-column", "qty INT"), "column 'qty' cannot change from BIGINT to INT: integers "
         "only widen (TINYINT -> SMALLINT -> INT -> BIGINT)"),
        (("--add-column", "size INT NOT NULL"), "added column 'size' must be nullable: rows "
         "written before it have no value"),
        (("--set", "table.merge-engine=first_row"), "--set: option 'table.merge-engine' cannot "
         "change after the table is made (these can: table.log.ttl, "
         "table.log.arrow.compression.type, table.datalake.freshness, "
         "table.datalake.auto-compaction)"),
    ]:
        checks.expect(f"mink table alter {' '.join(args)} is refused",
                      (2, "mink table alter: " + want),
                      refused(node, "table", "alter", "shop.stock", *args))
    checks.expect("a refused alter changes nothing",
                  1, json.loads(node.mink("table", "describe", "shop.stock", "--format",
                                          "json").stdout)["schema_id"])

    # ---- a Kafka topic: options change, columns do not
    from confluent_kafka import Consumer, TopicPartition
    from confluent_kafka.admin import AdminClient, ConfigResource
    from kafka_consumers import create_topic, produce
    create_topic(node, "trades", config={"retention.ms": "86400000"})
    produce(node, "trades", ["a", "b"])
    node.mink("table", "alter", "kafka.trades", "--set", "table.log.ttl=2h")
    admin = AdminClient({"bootstrap.servers": node.broker})
    resource = ConfigResource(ConfigResource.Type.TOPIC, "trades")
    configs = admin.describe_configs([resource])[resource].result(timeout=20)
    checks.expect("DescribeConfigs answers the topic's new retention", "7200000",
                  configs["retention.ms"].value)
    produce(node, "trades", ["c"])
    consumer = Consumer({"bootstrap.servers": node.broker, "group.id": "g",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition("trades", 0, 0)])
    seen = []
    minktest.wait_until(20, lambda: seen.extend(m.value().decode() for m in
                                                consumer.consume(10, timeout=1) if not m.error())
                        or len(seen) >= 3, interval=0)
    consumer.close()
    checks.expect("the topic's records still flow after the change", ["a", "b", "c"], seen)
    checks.expect("a topic's columns cannot change",
                  (2, "mink table alter: the columns of kafka.trades are a Kafka topic's record "
                      "and cannot change; only its options can (--set, --reset)"),
                  refused(node, "table", "alter", "kafka.trades", "--add-column", "x INT"))

    # ---- auto-increment: a dictionary over two buckets
    node.mink("table", "create", "shop.dict", "-C", "word STRING NOT NULL", "-C", "uid BIGINT",
              "--primary-key", "word", "--bucket-count", "2", "--auto-increment", "uid",
              "--option", "table.auto-increment.cache-size=5")
    words = [f"w{i}" for i in range(12)]
    write(node, "shop.dict", [{"word": w} for w in words])
    write(node, "shop.dict", [{"word": "w1"}, {"word": "w2"}])  # existing keys
    ids = {r["word"]: r["uid"] for r in rows_of(node.mink("read", "shop.dict", "--mode",
                                                          "snapshot", "--format", "json").stdout)}
    checks.expect("every word has its own id, from 1", (12, 1, 12),
                  (len(set(ids.values())), min(ids.values()), len(ids)))
    described = node.mink("table", "describe", "shop.dict").stdout.splitlines()
    checks.expect("mink table describe marks the auto-increment column",
                  [["uid", "BIGINT", "(auto", "increment)"]],
                  [line.split() for line in described if line.split()[:1] == ["uid"]])
    checks.expect("a line naming the auto-increment column is refused",
                  (2, "mink write: line 1: column 'uid' is the auto-increment column of shop.dict: "
                      "the table fills it, leave it out"),
                  refused_write(node, "shop.dict", '{"word": "x", "uid": 5}\n'))

    # ---- the same answers after a restart (KV state rebuilt from the log of both schemas)
    node.stop()
    node.restart()
    check_events(checks, node, "after a restart")
    check_stock(checks, node, "after a restart")
    write(node, "shop.dict", [{"word": "new1"}, {"word": "w3"}])
    after = {r["word"]: r["uid"] for r in rows_of(node.mink("read", "shop.dict", "--mode",
                                                            "snapshot", "--format", "json").stdout)}
    checks.expect("after a restart an existing word keeps its id and a new one gets a new id",
                  (ids["w3"], True), (after["w3"], after["new1"] > max(ids.values())))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print("usage: table_features_test.py path/to/mink path/to/mink-query", file=sys.stderr)
        sys.exit(2)
    QUERY = os.path.abspath(sys.argv[2])
    minktest.require_modules("confluent_kafka")
    if shutil.which("node") is None:
        minktest.unavailable("node (Node.js) is not installed")
    minktest.run_test("table_features", main, 240)
