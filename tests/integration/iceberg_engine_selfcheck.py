#!/usr/bin/python3
"""Self-check of iceberg_engine.py (another Iceberg engine for the tests) against a node's
Iceberg REST catalog.

A node with --iceberg-rest-listen; `mink db create shop`; then
create_table_with_rows makes shop.legacy (bucket[2] of id) with 20 rows through the catalog.
Checks: the bucket hash matches the Iceberg spec's test vectors; the catalog lists and loads the
table with the schema, spec and one append snapshot (sequence number 1, main) the engine wrote;
the data files are one per bucket under data/id_bucket=<b>/ with the rows of that bucket and the
field ids in their Parquet schema (DuckDB's parquet_schema); python3-avro reads back the manifest
list and manifest with Iceberg's metadata keys; icebird (npm) reads the 20 rows. A second append
of 5 rows commits sequence number 2 on top of the first (the manifest list keeps the first
manifest) and icebird reads 25 rows; an append built on the stale base is refused with 409.

Usage: iceberg_engine_selfcheck.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import decimal
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

TOKEN = None  # authentication off: the catalog asks nothing (lake_rest_security_test.py tests its users)


def expected_rows(rows):
    """Rows as icebird prints them (sorted keys, decimals as numbers rounded to the scale)."""
    return sorted(({"amount": None if r["amount"] is None else round(float(r["amount"]), 2),
                    "id": r["id"], "region": r["region"]} for r in rows), key=lambda r: r["id"])


def as_read(rows):
    return sorted(({**r, "amount": None if r["amount"] is None else round(float(r["amount"]), 2)}
                   for r in rows), key=lambda r: r["id"])


def main():
    minktest.hard_deadline(200)
    if len(sys.argv) < 3:
        print(f"usage: {sys.argv[0]} path/to/mink path/to/mink-query", file=sys.stderr)
        sys.exit(2)
    mink_bin = sys.argv[1]
    query = os.path.abspath(sys.argv[2])
    minktest.require_modules("avro")
    minktest.require_node_modules("icebird")
    import iceberg_engine as engine

    node = minktest.MinkNode(mink_bin, "iceberg-engine")

    def body(checks):
        try:
            engine.self_test_bucket_hash()
            checks.ok("murmur3 / bucket hash: the Iceberg spec's test vectors (long 34 -> 2017239379, ...)", True)
        except AssertionError as e:
            checks.fail("murmur3 / bucket hash: the Iceberg spec's test vectors", str(e))

        rest_port = minktest.free_port()
        node.start(extra=["--iceberg-rest-listen", f"127.0.0.1:{rest_port}"])
        rest_url = f"http://127.0.0.1:{rest_port}"
        node.mink("db", "create", "shop")

        regions = ["us", "eu", "apac", None]
        rows = [{"id": i, "region": regions[i % 4],
                 "amount": None if i % 7 == 0 else decimal.Decimal(f"{i * 3}.{(i * 17) % 100:02d}")}
                for i in range(1, 21)]
        rows[4]["region"] = "it's"  # a quote in a string value
        rows[5]["amount"] = decimal.Decimal("-12.05")
        buckets = {r["id"]: engine.bucket_of(r["id"], 2) for r in rows}
        checks.ok("the 20 rows fall in both buckets", set(buckets.values()) == {0, 1}, str(buckets))

        commit = engine.create_table_with_rows(rest_url, TOKEN, "shop", "legacy", rows, 2, query,
                                               env=dict(os.environ, MINK_BOOTSTRAP=node.flight))
        metadata = commit["metadata"]
        location = metadata["location"]
        warehouse = node.storage_uri.split("@", 1)[1] + "/lake"
        checks.expect("the table is at the default location <warehouse>/shop/legacy",
                      warehouse + "/shop/legacy", location)
        checks.ok("the commit wrote the next metadata file (00001-...)",
                  commit["metadata-location"].startswith(location + "/metadata/00001-") and
                  os.path.exists(engine.local_path(commit["metadata-location"])), commit["metadata-location"])
        snapshot = metadata["snapshots"][0] if metadata["snapshots"] else {}
        checks.expect("one append snapshot, sequence number 1, current and main",
                      (1, 1, "append", snapshot.get("snapshot-id"), {"snapshot-id": snapshot.get("snapshot-id"), "type": "branch"}),
                      (len(metadata["snapshots"]), metadata["last-sequence-number"],
                       snapshot.get("summary", {}).get("operation"), metadata["current-snapshot-id"],
                       metadata["refs"].get("main")))

        catalog = engine.RestCatalog(rest_url, TOKEN)
        listed = catalog.request("GET", "/v1/namespaces/shop/tables")["identifiers"]
        checks.ok("the catalog lists shop.legacy", {"namespace": ["shop"], "name": "legacy"} in listed, str(listed))
        loaded = catalog.load_table("shop", "legacy")
        m = loaded["metadata"]
        checks.expect("the catalog loads shop.legacy as committed",
                      (commit["metadata-location"], [(1, "id", "long", True), (2, "region", "string", False),
                                                     (3, "amount", "decimal(10, 2)", False)], [1],
                       [{"source-id": 1, "field-id": 1000, "name": "id_bucket", "transform": "bucket[2]"}], 2,
                       snapshot.get("snapshot-id")),
                      (loaded.get("metadata-location"),
                       [(f["id"], f["name"], f["type"], f["required"]) for f in m["schemas"][0]["fields"]],
                       m["schemas"][0].get("identifier-field-ids"), m["partition-specs"][0]["fields"],
                       m["format-version"], m["current-snapshot-id"]))

        # The files the engine wrote, read back.
        list_meta, manifests = engine.read_avro(engine.local_path(snapshot["manifest-list"]))
        checks.expect("the manifest list's metadata",
                      {"snapshot-id": str(snapshot["snapshot-id"]), "parent-snapshot-id": "null",
                       "sequence-number": "1", "format-version": "2", "avro.codec": "null"}, list_meta)
        checks.expect("one data manifest of sequence number 1 adding 20 rows in 2 files",
                      [(0, 1, 1, 2, 20, snapshot["snapshot-id"])],
                      [(x["content"], x["sequence_number"], x["min_sequence_number"], x["added_files_count"],
                        x["added_rows_count"], x["added_snapshot_id"]) for x in manifests])
        manifest_meta, entries = engine.read_avro(engine.local_path(manifests[0]["manifest_path"]))
        checks.expect("the manifest's metadata",
                      {"format-version": "2", "content": "data", "partition-spec-id": "0",
                       "partition-spec": [{"source-id": 1, "field-id": 1000, "name": "id_bucket",
                                          "transform": "bucket[2]"}]},
                      {k: json.loads(v) if k == "partition-spec" else v for k, v in manifest_meta.items()
                       if k in ("format-version", "content", "partition-spec-id", "partition-spec")})
        per_bucket = {b: sum(1 for v in buckets.values() if v == b) for b in (0, 1)}
        checks.expect("a data file per bucket, under data/id_bucket=<b>/, with that bucket's rows",
                      [(1, 0, {"id_bucket": b}, f"{location}/data/id_bucket={b}/", per_bucket[b]) for b in (0, 1)],
                      sorted(((e["status"], e["data_file"]["content"], e["data_file"]["partition"],
                               e["data_file"]["file_path"].rsplit("/", 1)[0] + "/", e["data_file"]["record_count"])
                              for e in entries), key=lambda x: x[2]["id_bucket"]))
        for e in entries:
            path = engine.local_path(e["data_file"]["file_path"])
            checks.expect(f"file_size_in_bytes of {os.path.basename(path)}", os.path.getsize(path),
                          e["data_file"]["file_size_in_bytes"])
            q = subprocess.run([query, "exec", "--allow-local-files", "-e",
                                f"SELECT name, field_id FROM parquet_schema('{path}') WHERE field_id IS NOT NULL "
                                "ORDER BY field_id; SELECT id FROM '" + path + "' ORDER BY id"],
                               capture_output=True, text=True, timeout=60)
            lines = [json.loads(x) for x in q.stdout.splitlines()] if q.returncode == 0 else []
            checks.expect(f"DuckDB: the field ids of {os.path.basename(path)} and its rows' buckets",
                          ([{"name": "id", "field_id": 1}, {"name": "region", "field_id": 2},
                            {"name": "amount", "field_id": 3}], {e["data_file"]["partition"]["id_bucket"]}),
                          ([x for x in lines if "field_id" in x],
                           {buckets[x["id"]] for x in lines if "field_id" not in x}) if q.returncode == 0
                          else q.stderr.strip())

        try:
            read = engine.icebird_read(commit["metadata-location"])
            checks.expect("icebird reads the 20 rows of shop.legacy", expected_rows(rows), as_read(read))
        except RuntimeError as e:
            checks.fail("icebird reads shop.legacy", str(e))

        # A second append on top of the first.
        more = [{"id": i, "region": "latam", "amount": f"{i}.5"} for i in range(21, 26)]
        second = engine.append_rows(catalog, "shop", "legacy", more, query)
        m2 = second["metadata"]
        checks.expect("a second append: sequence number 2, its parent the first snapshot",
                      (2, 2, snapshot["snapshot-id"]),
                      (len(m2["snapshots"]), m2["last-sequence-number"],
                       next(s for s in m2["snapshots"] if s["snapshot-id"] == m2["current-snapshot-id"])
                       .get("parent-snapshot-id")))
        try:
            read = engine.icebird_read(second["metadata-location"])
            checks.expect("icebird reads the 25 rows after the second append", expected_rows(rows + more),
                          as_read(read))
        except RuntimeError as e:
            checks.fail("icebird reads shop.legacy after the second append", str(e))

        # A writer that read the table before the second append: its requirement fails.
        try:
            catalog.commit_table("shop", "legacy",
                                 [{"type": "assert-ref-snapshot-id", "ref": "main",
                                   "snapshot-id": snapshot["snapshot-id"]}],
                                 [{"action": "set-properties", "updates": {"stale": "yes"}}])
            checks.fail("a commit on the stale base is refused")
        except engine.RestError as e:
            checks.expect("a commit on the stale base is refused (409)", (409, "CommitFailedException"),
                          (e.status, e.type))

        rc = node.stop()
        checks.expect("the node stops cleanly", 0, rc)
    minktest.run_on_node(node, body, "iceberg_engine selfcheck")


if __name__ == "__main__":
    main()
