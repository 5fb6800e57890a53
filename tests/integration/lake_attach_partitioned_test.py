#!/usr/bin/python3
"""Attaching Iceberg tables partitioned by a column (docs/lake.md, Attaching an existing table),
on the embedded default with the node's Iceberg REST catalog. Another engine
(iceberg_engine.py, by_region) creates the tables with the spec identity(region), bucket[2](id);
Mink tables partitioned by region attach them, the partitions the lake's files are in created
with the table.

E. A log table. The other engine creates shop.regional with 12 rows in regions eu and us.
   - Refused, nothing created: a Mink table not partitioned by region (exit 2, naming partition
     field 1: the lake table has identity of field 2, the Mink table bucket[2] of field 1).
   - `mink table create shop.regional ... --partition-by region --bucket-key id --bucket-count 2
     --lake iceberg` attaches: describe lists the partitions eu and us; the union read and
     mink-query have the 12 rows, mink-query's WHERE region = 'eu' the 6 of eu; the log read none.
   - Rows in eu and in a new region apac written: the union read has all 16; once tiered, icebird
     reads what the union read has.
   - The other engine appends two rows of eu and us with the current mink-offsets: accepted (200);
     the union read and icebird have them, the log read not.
   - Its append of a row in latam, a partition the Mink table does not have: 400 naming it;
     nothing changed.
F. A primary-key table. The other engine creates shop.regional_keyed (region required,
   identifier fields [1, 2]) with 6 rows in eu and us. `--primary-key id,region --partition-by
   region` attaches: the snapshot read (the KV state of each partition's buckets) and a lookup
   have them; a delete and an update of keys only the lake had apply; once tiered icebird agrees.
Then a restart: the union reads, the snapshot read and the lake snapshots are unchanged.

Usage: lake_attach_partitioned_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lake_attach_test as attach_test  # noqa: E402 - the helpers of the unpartitioned attach test
import minktest  # noqa: E402
from lake_attach_test import canon, lake_snapshot, lines, read, row, wait_tiered, write  # noqa: E402

TOKEN = None  # authentication off: the catalog asks nothing (lake_rest_security_test.py tests its users)
REGIONAL = "shop.regional"
REGIONAL_KEYED = "shop.regional_keyed"


def create_args(table, partitioned=True, primary_key=False):
    args = ["table", "create", table, "-C", "id BIGINT NOT NULL",
            "-C", "region STRING NOT NULL" if primary_key else "region STRING", "-C", "amount DECIMAL(10,2)"]
    if partitioned:
        args += ["--partition-by", "region"]
    args += ["--primary-key", "id,region"] if primary_key else ["--bucket-key", "id"]
    return args + ["--bucket-count", "2", "--lake", "iceberg", "--lake-freshness", "1s"]


def partitions(node, table):
    described = json.loads(node.mink("table", "describe", table, "--format", "json").stdout)
    return sorted(p["name"] if isinstance(p, dict) else p for p in described.get("partitions", []))


def query(node, sql):
    q = subprocess.run([attach_test.QUERY, "exec", "-e", sql], env=dict(os.environ, MINK_BOOTSTRAP=node.flight),
                       capture_output=True, text=True, timeout=120)
    return canon(lines(q.stdout)) if q.returncode == 0 else f"status {q.returncode}: {q.stderr.strip()}"


def part_e(checks, node, rest_url, engine, catalog):
    """A partitioned log table attaches a partitioned lake table. (union rows, lake snapshot)."""
    rows = [row(i, "eu" if i % 2 else "us", f"{i}.50") for i in range(1, 13)]
    created = engine.create_table_with_rows(rest_url, TOKEN, "shop", "regional", rows, 2, attach_test.QUERY,
                                            env=dict(os.environ, MINK_BOOTSTRAP=node.flight), identifier_field_ids=None,
                                            by_region=True)
    attach_test.check_refused(checks, node, "E: a Mink table not partitioned by region is refused naming partition "
                              "field 1 (exit 2)", create_args(REGIONAL, partitioned=False), 2,
                              r"partition field 1: the lake table has identity of field 2, the Mink table bucket\[2\] "
                              r"of field 1")
    attach_test.check_unchanged(checks, node, catalog, REGIONAL, created, "E: after the refusal")
    if not attach_test.attach(checks, node, "E", create_args(REGIONAL), "--partition-by region --bucket-key id"):
        return None
    checks.expect("E: describe lists the partitions the lake's files are in", ["eu", "us"], partitions(node, REGIONAL))
    checks.expect("E: the union read has the lake's 12 rows", canon(rows), read(node, REGIONAL, "union"))
    checks.expect("E: mink-query has them", canon(rows), query(node, f"SELECT id, region, amount FROM mink.{REGIONAL}"))
    checks.expect("E: mink-query WHERE region = 'eu': the 6 of eu", canon([r for r in rows if r["region"] == "eu"]),
                  query(node, f"SELECT id, region, amount FROM mink.{REGIONAL} WHERE region = 'eu'"))
    checks.expect("E: the log read has none", [], read(node, REGIONAL, "log"))

    written = [row(13, "eu", "13.00"), row(14, "apac", "14.00"), row(15, "apac", None), row(16, "eu", "16.16")]
    write(node, REGIONAL, rows=written)
    everything = canon(rows + written)
    checks.expect("E: after writes to eu and a new region apac: the union read has all 16", everything,
                  read(node, REGIONAL, "union"))
    checks.expect("E: describe lists apac too", ["apac", "eu", "us"], partitions(node, REGIONAL))
    lake = wait_tiered(checks, node, REGIONAL, "E: after the writes", created["metadata"]["current-snapshot-id"])
    checks.expect("E: tiered: icebird reads what the union read has", everything,
                  attach_test.icebird(checks, node, REGIONAL, "E: tiered"))

    _, current = attach_test.rest_current(catalog, REGIONAL)[:2]
    offsets = (current or {}).get("summary", {}).get("mink-offsets", "{}")
    theirs = [row(100, "eu", "1.00"), row(101, "us", "2.00")]
    status, kind, message, _ = attach_test.engine_commit(engine, catalog, REGIONAL, theirs, node,
                                                         summary_extra={"mink-offsets": offsets})
    checks.expect("E: the other engine's append to eu and us with the current mink-offsets: accepted", (200, None, ""),
                  (status, kind, message))
    everything = canon(rows + written + theirs)
    checks.expect("E: the union read has its rows", everything, read(node, REGIONAL, "union"))
    checks.expect("E: icebird too", everything, attach_test.icebird(checks, node, REGIONAL, "E: after the append"))
    checks.expect("E: the log read has only Mink's writes", canon(written), read(node, REGIONAL, "log"))

    lake = lake_snapshot(node, REGIONAL)
    _, current = attach_test.rest_current(catalog, REGIONAL)[:2]
    offsets = (current or {}).get("summary", {}).get("mink-offsets", "{}")
    status, kind, message, _ = attach_test.engine_commit(engine, catalog, REGIONAL, [row(200, "latam", "9.00")], node,
                                                         summary_extra={"mink-offsets": offsets})
    checks.ok("E: its append to latam, a partition the Mink table does not have: 400 naming it",
              status == 400 and "latam" in message, f"{status} {kind}: {message}")
    attach_test.check_untouched(checks, node, catalog, REGIONAL, lake, everything, "E: after the refusal")
    return everything, lake


def part_f(checks, node, rest_url, engine, catalog):
    """A partitioned primary-key table attaches a lake table with rows: its KV state has them."""
    rows = [row(i, "eu" if i <= 3 else "us", f"{i}.25") for i in range(1, 7)]
    engine.create_table_with_rows(rest_url, TOKEN, "shop", "regional_keyed", rows, 2, attach_test.QUERY,
                                  env=dict(os.environ, MINK_BOOTSTRAP=node.flight), identifier_field_ids=(1, 2),
                                  by_region=True, region_required=True)
    if not attach_test.attach(checks, node, "F", create_args(REGIONAL_KEYED, primary_key=True),
                              "--primary-key id,region --partition-by region"):
        return None
    checks.expect("F: describe lists eu and us", ["eu", "us"], partitions(node, REGIONAL_KEYED))
    checks.expect("F: the snapshot read (the KV state) has the lake's rows", canon(rows),
                  read(node, REGIONAL_KEYED, "snapshot"))
    lookup = node.mink("lookup", REGIONAL_KEYED, "id=5", "region=us", check=False)
    checks.expect("F: a lookup finds a row only the lake had", canon([rows[4]]),
                  canon(lines(lookup.stdout)) if lookup.returncode == 0 else lookup.stderr)
    previous = lake_snapshot(node, REGIONAL_KEYED)["snapshot_id"]
    node.mink("write", REGIONAL_KEYED, input=json.dumps({"id": 2, "region": "eu", "amount": "2.99"}) + "\n")
    node.mink("write", REGIONAL_KEYED, "--delete", input=json.dumps({"id": 6, "region": "us"}) + "\n")
    want = canon([r for r in rows if r["id"] not in (2, 6)] + [row(2, "eu", "2.99")])
    checks.expect("F: after updating (2, eu) and deleting (6, us), both only in the lake: the snapshot read", want,
                  read(node, REGIONAL_KEYED, "snapshot"))
    checks.expect("F: ... the union read", want, read(node, REGIONAL_KEYED, "union"))
    wait_tiered(checks, node, REGIONAL_KEYED, "F: after the writes", previous)
    checks.expect("F: tiered: icebird reads what the snapshot read has", want,
                  attach_test.icebird(checks, node, REGIONAL_KEYED, "F: tiered"))
    return want


def run(checks, node, rest_url, engine):
    node.mink("db", "create", "shop")
    catalog = engine.RestCatalog(rest_url, TOKEN)
    e = part_e(checks, node, rest_url, engine, catalog)
    f = part_f(checks, node, rest_url, engine, catalog)
    rc = node.stop()
    checks.expect("the node stops cleanly", 0, rc)
    node.restart()
    if e is not None:
        union, lake = e
        checks.expect("E: after a restart: the union read is unchanged", union, read(node, REGIONAL, "union"))
        checks.expect("E: after a restart: the lake snapshot is unchanged", lake["snapshot_id"],
                      lake_snapshot(node, REGIONAL)["snapshot_id"])
    if f is not None:
        checks.expect("F: after a restart: the snapshot read is unchanged", f, read(node, REGIONAL_KEYED, "snapshot"))
        checks.expect("F: after a restart: the union read is unchanged", f, read(node, REGIONAL_KEYED, "union"))


if __name__ == "__main__":
    attach_test.run_with_rest_catalog("lake-attach-partitioned", TOKEN, run)
