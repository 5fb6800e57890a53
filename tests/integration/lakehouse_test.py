#!/usr/bin/python3
"""The quick start's Lakehouse section, verbatim, on the embedded default (SQLite and a file://
store, as `make run` starts) and on PostgreSQL and the S3 server; then what readers that Mink
did not write see of the lake.

    mink table create shop.bills -C "id BIGINT NOT NULL" -C "region STRING" \\
        -C "amount DECIMAL(10,2)" --primary-key id --lake iceberg --lake-freshness 5s
    mink write shop.bills   (two rows of id 1: 10.50, then 11.00)
    mink table lake-snapshot shop.bills
    mink read shop.bills --mode union
    mink-query exec -e "SELECT id, region, amount FROM mink.shop.bills"

Checks: the tiering worker commits a snapshot within the freshness; lake-snapshot names it and
bucket b0 tiered to offset 3 (+I, -U, +U); the union read and the query return one row, amount
11.00. On the embedded default the warehouse is a directory, so the files are checked too:
v<N>.metadata.json names the snapshot with its mink-offsets summary, python3-avro reads the
manifest list and the manifests with the metadata Iceberg requires (format-version, content,
partition-spec, field ids), and DuckDB's parquet_schema shows the data files' field ids. Then a
primary-key table over three buckets with updates and deletes across several snapshots and a log
table: icebird (npm; tests/node/icebird_read.mjs serves the warehouse over HTTP with Range requests)
reads the same rows as `mink read --mode union`, which equals the KV snapshot read (the primary-key
table, also with a tail still in the log) and the log read (the log table). iceberg-js (npm)
drives the node's Iceberg REST catalog (--iceberg-rest-listen): Mink's
database and tiered table as a namespace and a table, a namespace and table of its own, commits
with requirements and their conflicts (409), refusals for Mink's tables (403), retries with an
Idempotency-Key answered the same.

Usage: lakehouse_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import json
import os
import re
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

QUERY = None
NODE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node")
ROW = {"id": 1, "region": "us", "amount": 11.0}


def seed_section(checks, node, where):
    node.mink("db", "create", "shop")
    r = node.mink("table", "create", "shop.bills", "-C", "id BIGINT NOT NULL", "-C", "region STRING",
                  "-C", "amount DECIMAL(10,2)", "--primary-key", "id", "--lake", "iceberg",
                  "--lake-freshness", "5s")
    checks.expect(f"{where}: mink table create ... --lake iceberg --lake-freshness 5s", "", r.stdout)
    r = node.mink("write", "shop.bills",
                  input='{"id": 1, "region": "us", "amount": "10.50"}\n'
                        '{"id": 1, "region": "us", "amount": "11.00"}\n')
    checks.expect(f"{where}: mink write shop.bills", ("", ""), (r.stdout, r.stderr))

    def snapshot():
        r = node.mink("table", "lake-snapshot", "shop.bills", "--format", "json")
        return json.loads(r.stdout)
    started = time.monotonic()
    tiered = minktest.wait_until(15, lambda: snapshot()["snapshot_id"] != 0, interval=0.2)
    checks.ok(f"{where}: a lake snapshot within the freshness (5 s)", tiered and
              time.monotonic() - started < 6, f"{time.monotonic() - started:.1f} s")
    lake = snapshot()
    checks.expect(f"{where}: lake-snapshot: bucket b0 tiered to offset 3 (+I, -U, +U)",
                  [{"bucket": "b0", "offset": 3}], lake["buckets"])
    text = node.mink("table", "lake-snapshot", "shop.bills", "--format", "text").stdout.splitlines()
    checks.expect(f"{where}: lake-snapshot names the snapshot id and the bucket's offset",
                  (["snapshot", str(lake["snapshot_id"])], ["b0", "tiered", "to", "offset", "3"]),
                  (text[0].split(), text[-1].split()))
    r = node.mink("read", "shop.bills", "--mode", "union")
    checks.expect(f"{where}: mink read shop.bills --mode union", [ROW],
                  [json.loads(line) for line in r.stdout.splitlines()])
    q = subprocess.run([QUERY, "exec", "-e", "SELECT id, region, amount FROM mink.shop.bills"],
                       env=dict(os.environ, MINK_BOOTSTRAP=node.flight), capture_output=True,
                       text=True, timeout=120)
    checks.expect(f"{where}: mink-query exec -e \"SELECT id, region, amount FROM mink.shop.bills\"",
                  [ROW], [json.loads(line) for line in q.stdout.splitlines()] if q.returncode == 0
                  else q.stderr.strip())
    return lake


def outside_readers(checks, node, lake):
    """The files of the lake, read by tools Mink did not write."""
    metadata_file = urllib.parse.urlsplit(lake["metadata_location"]).path
    with open(metadata_file) as f:
        metadata = json.load(f)
    with open(os.path.join(os.path.dirname(metadata_file), "version-hint.text")) as f:
        checks.expect("version-hint.text names the current metadata file",
                      os.path.basename(metadata_file), f"v{f.read().strip()}.metadata.json")
    checks.expect("the metadata's current snapshot is lake-snapshot's", lake["snapshot_id"],
                  metadata["current-snapshot-id"])
    snap = [s for s in metadata["snapshots"] if s["snapshot-id"] == lake["snapshot_id"]][0]
    checks.expect("the snapshot's summary records each bucket's tiered offset", {"b0": 3},
                  json.loads(snap["summary"]["mink-offsets"]))
    checks.expect("the schema has the columns with field ids and the key as identifier",
                  ([(1, "id", "long"), (2, "region", "string"), (3, "amount", "decimal(10, 2)")], [1]),
                  ([(f["id"], f["name"], f["type"]) for f in metadata["schemas"][0]["fields"]],
                   metadata["schemas"][0]["identifier-field-ids"]))
    script = r"""
import json, sys, avro.datafile, avro.io
def read(path):
    with open(path, 'rb') as f:
        r = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        meta = {k: v.decode() for k, v in r.meta.items() if k != 'avro.schema'}
        return meta, list(r)
out = {}
meta, manifests = read(sys.argv[1])
out['list'] = meta
out['manifests'] = []
for m in manifests:
    mmeta, entries = read(m['manifest_path'].replace('file://', '', 1))
    out['manifests'].append({'content': m['content'], 'seq': m['sequence_number'],
                             'meta': {k: mmeta[k] for k in ('format-version', 'content', 'partition-spec-id')},
                             'spec': json.loads(mmeta['partition-spec']),
                             'files': [{'content': e['data_file']['content'],
                                        'format': e['data_file']['file_format'],
                                        'records': e['data_file']['record_count'],
                                        'partition': e['data_file']['partition'],
                                        'equality_ids': e['data_file']['equality_ids'],
                                        'path': e['data_file']['file_path']} for e in entries]})
print(json.dumps(out))
"""
    r = subprocess.run(["/usr/bin/python3", "-c", script, snap["manifest-list"].replace("file://", "", 1)],
                       capture_output=True, text=True, timeout=60)
    checks.ok("python3-avro reads the manifest list and the manifests", r.returncode == 0, r.stderr)
    if r.returncode != 0:
        return
    avro = json.loads(r.stdout)
    checks.expect("the manifest list's metadata", {"format-version": "2", "sequence-number": "1",
                                                   "snapshot-id": str(lake["snapshot_id"]),
                                                   "parent-snapshot-id": "null", "avro.codec": "null"},
                  avro["list"])
    by_content = {m["content"]: m for m in avro["manifests"]}
    checks.expect("a data manifest and a delete manifest, both of sequence number 1", [(0, 1), (1, 1)],
                  sorted((m["content"], m["seq"]) for m in avro["manifests"]))
    checks.expect("the partition spec: bucket[1] of id",
                  [{"source-id": 1, "field-id": 1000, "name": "id_bucket", "transform": "bucket[1]"}],
                  by_content[0]["spec"])
    data = by_content[0]["files"][0]
    deletes = by_content[1]["files"][0]
    checks.expect("the data file: one Parquet row in bucket 0",
                  (0, "PARQUET", 1, {"id_bucket": 0}, None), (data["content"], data["format"],
                  data["records"], data["partition"], data["equality_ids"]))
    checks.expect("the equality delete file: the key, by field id 1",
                  (2, 1, [1]), (deletes["content"], deletes["records"], deletes["equality_ids"]))
    q = subprocess.run([QUERY, "exec", "--allow-local-files", "-e",
                        "SELECT name, field_id FROM parquet_schema('" + data["path"][len("file://"):] +
                        "') WHERE field_id IS NOT NULL ORDER BY field_id"],
                       capture_output=True, text=True, timeout=60)
    checks.expect("DuckDB's parquet_schema shows the field ids of the data file",
                  [{"name": "id", "field_id": 1}, {"name": "region", "field_id": 2},
                   {"name": "amount", "field_id": 3}],
                  [json.loads(line) for line in q.stdout.splitlines()] if q.returncode == 0
                  else q.stderr.strip())


def icebird_rows(checks, node, table):
    try:
        return minktest.icebird_read(node, table)[0]
    except RuntimeError as e:
        checks.fail(f"icebird reads {table}", str(e))
        return None


def write_rounds(checks, node, table, rounds, freshness_s):
    """Each round's writes (a list of (args, JSON lines)), then a wait for the lake to take them."""
    for i, writes in enumerate(rounds):
        for args, lines in writes:
            node.mink("write", table, *args, input="".join(json.dumps(x) + "\n" for x in lines))
        checks.ok(f"{table}: round {i + 1} tiered within the freshness",
                  minktest.wait_until(freshness_s + 10, lambda: minktest.lake_caught_up(node, table), interval=0.2))


def several_snapshots(checks, node):
    """A primary-key table over three buckets with updates and deletes across several snapshots, and
    a log table: what icebird reads of the lake, the union read and Mink's own reads agree."""
    node.mink("table", "create", "shop.ledger", "-C", "id BIGINT NOT NULL", "-C", "qty INT",
              "-C", "name STRING", "-C", "price DOUBLE", "-C", "paid BOOLEAN", "-C", "amount DECIMAL(12,3)",
              "--primary-key", "id", "--bucket-count", "3", "--lake", "iceberg", "--lake-freshness", "1s",
              "--option", "table.datalake.auto-compaction=true")

    def row(i, qty):
        return {"id": i, "qty": qty, "name": f"item {i}", "price": i / 4, "paid": i % 3 == 0,
                "amount": f"{i}.{qty % 1000:03d}"}
    rounds = [
        [([], [row(i, 1) for i in range(1, 201)])],
        [([], [row(i, 2) for i in range(1, 51)]), (["--delete"], [{"id": i} for i in range(151, 201)])],
        [([], [row(i, 3) for i in range(160, 171)]), (["--delete"], [{"id": i} for i in range(1, 11)]),
         ([], [row(i, 4) for i in range(100, 121)])],
    ]
    # Rounds that each touch every bucket: a data and a delete file per bucket each, so the
    # buckets pile up the 8 files that make auto-compaction rewrite them.
    rounds += [[([], [row(i, 6 + r) for i in range(180, 190)])] for r in range(2)]
    write_rounds(checks, node, "shop.ledger", rounds, 1)

    def operations():
        lake = json.loads(node.mink("table", "lake-snapshot", "shop.ledger", "--format", "json").stdout)
        with open(urllib.parse.urlsplit(lake["metadata_location"]).path) as f:
            return [x["summary"]["operation"] for x in json.load(f)["snapshots"]]
    checks.ok("shop.ledger: auto-compaction commits a replace snapshot",
              minktest.wait_until(15, lambda: "replace" in operations(), interval=0.3), str(operations()))
    snapshot = minktest.sorted_rows(node.mink("read", "shop.ledger", "--mode", "snapshot").stdout)
    checks.expect("shop.ledger: 200 - 50 + 11 - 10 + 10 rows in the KV snapshot", 161, len(snapshot))
    checks.expect("shop.ledger, all in the lake: the union read equals the snapshot read", snapshot,
                  minktest.sorted_rows(node.mink("read", "shop.ledger", "--mode", "union").stdout))
    lake = json.loads(node.mink("table", "lake-snapshot", "shop.ledger", "--format", "json").stdout)
    checks.ok("shop.ledger: three snapshots or more", lake["sequence_number"] >= 3, str(lake))
    # icebird turns decimals into JS numbers (160.003 reads as 160.00300000000001): compare them
    # rounded to the column's scale.
    def as_numbers(rows):
        return None if rows is None else [dict(r, amount=round(float(r["amount"]), 3)) for r in rows]
    checks.expect("shop.ledger: icebird reads what the snapshot read has", as_numbers(snapshot),
                  as_numbers(icebird_rows(checks, node, "shop.ledger")))
    # A tail in the log only: the union read still equals the snapshot read.
    node.mink("write", "shop.ledger", "--delete", input="".join(json.dumps({"id": i}) + "\n" for i in range(11, 21)))
    node.mink("write", "shop.ledger", input="".join(json.dumps(row(i, 5)) + "\n" for i in range(190, 196)))
    checks.expect("shop.ledger, with a tail in the log: the union read equals the snapshot read",
                  minktest.sorted_rows(node.mink("read", "shop.ledger", "--mode", "snapshot").stdout),
                  minktest.sorted_rows(node.mink("read", "shop.ledger", "--mode", "union").stdout))
    lake_filters(checks, node)

    node.mink("table", "create", "shop.events", "-C", "seq BIGINT", "-C", "kind STRING",
              "--bucket-count", "2", "--lake", "iceberg", "--lake-freshness", "1s")
    events = [{"seq": i, "kind": "click" if i % 2 else "view"} for i in range(300)]
    write_rounds(checks, node, "shop.events", [[([], events[:120])], [([], events[120:])]], 1)
    log = minktest.sorted_rows(node.mink("read", "shop.events").stdout)
    checks.expect("shop.events: the log read has every row", minktest.sorted_rows("\n".join(map(json.dumps, events))), log)
    checks.expect("shop.events: the union read equals the log read", log,
                  minktest.sorted_rows(node.mink("read", "shop.events", "--mode", "union").stdout))
    checks.expect("shop.events: icebird reads the log's rows", log, icebird_rows(checks, node, "shop.events"))


def lake_filters(checks, node):
    """mink-query pushes a query's filters into the Parquet reads of the lake's share of a union
    read: fewer rows come over Flight, the answer is the same."""
    snapshot = [json.loads(line) for line in node.mink("read", "shop.ledger", "--mode", "snapshot").stdout.splitlines()]
    want = sorted([r["id"], r["qty"]] for r in snapshot if r["id"] < 50 and r["qty"] >= 2)
    q = subprocess.run([QUERY, "exec", "--stats", "-e",
                        "SELECT id, qty FROM mink.shop.ledger WHERE id < 50 AND qty >= 2 ORDER BY id"],
                       env=dict(os.environ, MINK_BOOTSTRAP=node.flight), capture_output=True, text=True, timeout=120)
    got = [[r["id"], r["qty"]] for r in map(json.loads, q.stdout.splitlines())] if q.returncode == 0 else q.stderr
    checks.expect("shop.ledger: a filtered query over the union read", want, got)
    scan = next((line for line in q.stderr.splitlines() if line.startswith("scan ")), "")
    checks.ok("shop.ledger: the query's filters reach the lake", "lake filters [id < 50; qty >= 2]" in scan, scan)
    received = re.search(r"(\d+) rows?,", scan)
    # The lake's share arrives filtered; the six rows written after the last tiering round do not.
    checks.ok("shop.ledger: fewer rows over Flight than the table has",
              received is not None and len(want) <= int(received.group(1)) <= len(want) + 6 < len(snapshot), scan)


def rest_catalog(checks, node, rest_url):
    """iceberg-js against the node's Iceberg REST catalog (tests/node/iceberg_rest_client.mjs), with
    authentication off (lake_rest_security_test.py tests the catalog's users)."""
    r = subprocess.run(["node", os.path.join(NODE_DIR, "iceberg_rest_client.mjs"), rest_url, ""],
                       capture_output=True, text=True, timeout=120)
    checks.ok("iceberg_rest_client.mjs runs", r.returncode == 0, r.stderr.strip()[-2000:])
    steps = {x["step"]: x for x in map(json.loads, r.stdout.splitlines())}

    def value(name):
        x = steps.get(name, {})
        checks.ok(f"iceberg-js: {name}", x.get("ok") is True, json.dumps(x))
        return x.get("value")

    def refused(name, status, error_type):
        x = steps.get(name, {})
        checks.expect(f"iceberg-js: {name} is refused", (False, status, error_type),
                      (x.get("ok"), x.get("status"), x.get("type")))

    checks.ok("iceberg-js lists Mink's database shop as a namespace",
              {"namespace": ["shop"]} in (value("list namespaces") or []))
    checks.expect("iceberg-js lists the tiered tables of shop", [{"namespace": ["shop"], "name": "bills"}],
                  value("list tables of shop"))
    checks.expect("iceberg-js loads shop.bills: its columns with field ids, bucket spec and mink-offsets",
                  {"columns": [[1, "id", "long"], [2, "region", "string"], [3, "amount", "decimal(10, 2)"]],
                   "spec": ["bucket[1]"], "offsets": {"b0": 3}},
                  value("load shop.bills"))
    checks.expect("iceberg-js creates namespace ext.raw with a property",
                  {"namespace": ["ext", "raw"], "properties": {"owner": "ana"}}, value("create namespace ext.raw"))
    checks.expect("iceberg-js: ext.raw exists", True, value("namespace ext.raw exists"))
    checks.expect("iceberg-js lists ext.raw under ext", [{"namespace": ["ext", "raw"]}],
                  value("list namespaces under ext"))
    created = value("create table ext.raw.events") or {}
    checks.expect("iceberg-js creates ext.raw.events in the warehouse with an identity partition",
                  (urllib.parse.urlsplit(node.storage_uri.split("@", 1)[1]).path + "/lake/ext/raw/events",
                   [{"field-id": 1000, "name": "kind", "source-id": 2, "transform": "identity"}], 2),
                  (urllib.parse.urlsplit(created.get("location", "")).path, created.get("spec"),
                   created.get("last_column")))
    change = value("add a column with requirements") or {}
    checks.expect("a schema change with its requirements commits: schema 1, last column 3, a metadata log",
                  (1, 3, 1), (change.get("current_schema"), change.get("last_column"), change.get("log")))
    location = urllib.parse.urlsplit(change.get("location", "")).path
    checks.ok("the commit wrote the next metadata file (00001-...)", os.path.basename(location).startswith("00001-")
              and os.path.exists(location), location)
    refused("the same requirement again", 409, "CommitFailedException")
    checks.expect("an append snapshot moves main", {"current": 101, "main": {"snapshot-id": 101, "type": "branch"},
                                                    "sequence": 1}, value("append a snapshot"))
    refused("a second writer appends on the same base", 409, "CommitFailedException")
    checks.expect("the table as committed: snapshot 101 only, the properties, two schemas",
                  {"current": 101, "snapshots": [101], "schemas": 2,
                   "properties": {"comment": "events from outside", "write.format.default": "parquet"}},
                  value("load ext.raw.events"))
    refused("commit to shop.bills", 403, "ForbiddenException")
    refused("drop shop.bills", 403, "ForbiddenException")
    refused("drop namespace ext.raw while it has a table", 409, "NamespaceNotEmptyException")
    value("drop ext.raw.events")
    checks.expect("ext.raw.events is gone", False, value("ext.raw.events exists"))
    value("drop namespace ext.raw")
    retried = value("retried POSTs") or []
    checks.ok("every POST retried with its Idempotency-Key got the same answer (6 of them)",
              len(retried) == 6 and all(x["same"] and x["status"][0] == x["status"][1] for x in retried),
              json.dumps(retried))


def main():
    minktest.hard_deadline(200)
    global QUERY
    mink_bin = sys.argv[1]
    QUERY = os.path.abspath(sys.argv[2])
    minktest.require_modules("avro")
    minktest.require_node_modules("icebird", "iceberg-js")
    checks = minktest.Checks()
    embedded = minktest.MinkNode(mink_bin, "lake-embedded")
    nodes = [embedded]
    try:
        rest_port = minktest.free_port()
        embedded.start(extra=["--iceberg-rest-listen", f"127.0.0.1:{rest_port}"])
        lake = seed_section(checks, embedded, "embedded default")
        outside_readers(checks, embedded, lake)
        rest_catalog(checks, embedded, f"http://127.0.0.1:{rest_port}")
        several_snapshots(checks, embedded)
        rc = embedded.stop()
        checks.expect("the embedded node stops cleanly", 0, rc)

        meta_url, storage = minktest.cluster_stores()
        shared = minktest.MinkNode(mink_bin, "lake-pg-s3", meta_url=meta_url, storage_uri=storage)
        nodes.append(shared)
        shared.start()
        seed_section(checks, shared, "PostgreSQL and S3")
        # The lake outlives the node: a restart reads the same union.
        shared.stop()
        shared.restart()
        r = shared.mink("read", "shop.bills", "--mode", "union")
        checks.expect("PostgreSQL and S3, after a restart: the union read", [ROW],
                      [json.loads(line) for line in r.stdout.splitlines()])
    except Exception as e:  # noqa: BLE001
        import traceback
        traceback.print_exc()
        checks.fail(f"lakehouse: {type(e).__name__}: {e}")
    finally:
        try:
            checks.finish(nodes[-1])
        finally:
            for n in nodes:
                n.cleanup()


if __name__ == "__main__":
    main()
