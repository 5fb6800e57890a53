#!/usr/bin/python3
"""Attaching an existing Iceberg table (docs/lake.md, Attaching an existing table), on the
embedded default (SQLite and a file:// store) with the node's Iceberg REST catalog
(--iceberg-rest-listen). Another engine (iceberg_engine.py) creates the tables
through the REST catalog; Mink tables of the same names attach them.

A. Rows, a log table. The other engine creates shop.legacy WITHOUT identifier fields, over
   bucket[2] of id, with 20 rows (ids 1..20, some null regions and amounts).
   - Refused, nothing created, the catalog's table unchanged: without --lake (a log table and a
     primary-key table: AlreadyExists, exit 1); with --lake iceberg and DECIMAL(12,2) (naming
     column 3, amount), with 3 buckets (naming the partition field) or with --primary-key id (its
     identifier fields [] are not the primary key [1]) (InvalidArgument, exit 2).
   - `mink table create shop.legacy -C "id BIGINT NOT NULL" -C "region STRING"
     -C "amount DECIMAL(10,2)" --bucket-key id --bucket-count 2 --lake iceberg --lake-freshness 1s`
     attaches it: lake-snapshot names the other engine's snapshot, the union read and mink-query
     return the 20 rows, the log read nothing.
   - Rows 21..25 appended: the union read has the 25 (lake rows, then the log's), the log read
     only the 5 new ones; a new lake snapshot in the table's own location (v<seq>.metadata.json
     named by version-hint.text, the same table uuid, the other engine's snapshot among its
     ancestors); icebird (npm) reads the 25 rows the union read has, mink-query too.
   - The orphan sweep runs (a file named like a round of Mink's that never committed, put in the
     table's location, is removed) and every file the other engine wrote (its metadata files,
     manifest list, manifest, two data files) is still there.
B. A primary-key table. The other engine creates shop.keyed with identifier fields [1] and no
   snapshot. `mink table create shop.keyed ... --primary-key id --bucket-count 2 --lake iceberg
   --lake-freshness 1s` attaches it (no lake snapshot yet). Upserts of ids 1..5, an update of 3
   and a delete of 4: the union read and the snapshot read have the 4 rows; a lake snapshot
   appears, its metadata in the other engine's location with its table uuid; icebird reads what
   the union and snapshot reads have.
C. The other engine creates shop.filled with identifier fields [1] and 3 rows: a primary-key
   attach loads them into the KV state (snapshot reads and lookups have them; a delete and an
   update of keys only the lake had apply), icebird agrees once tiered, and after a restart.
D. Another engine commits to a table Mink tiers (docs/iceberg-rest.md, Commits to tiered tables).
   - Mink creates the log table shop.feed (--bucket-key id --bucket-count 2 --lake iceberg
     --lake-freshness 1s), `mink write` rows 1..10, a lake snapshot; the REST catalog's schema has
     field ids 1..3 and no identifier fields, its current snapshot mink-offsets.
   - The other engine's append of rows 100..104 without mink-offsets in the summary: 403
     ForbiddenException naming mink-offsets and the current ones; with them but without
     assert-ref-snapshot-id of main: 403 naming it. Each time nothing changed (lake-snapshot, the
     REST catalog's current snapshot, the union read).
   - With the current snapshot's mink-offsets (read from the table loaded through the REST
     catalog) and main asserted: 200; lake-snapshot is the other engine's snapshot, its metadata
     v<seq>.metadata.json named by version-hint.text; the union read is rows 1..10 and 100..104,
     mink-query and icebird agree; the log read has 1..10 only.
   - `mink write` of rows 11..15: a new lake snapshot whose parent (in its metadata file) is the
     other engine's, one sequence number on, its mink-offsets moved; the union read, icebird and
     mink-query have all 20 rows, the log read (`mink read shop.feed`) not 100..104.
   - The primary-key table shop.pkfeed (--primary-key id, tiered; identifier fields [1] in the
     REST catalog's schema): the other engine's append (operation append) with the current
     mink-offsets: 403 ForbiddenException naming replace; nothing changed.
Then a restart: the union reads (and shop.keyed's snapshot read) and lake snapshots are unchanged.
Decimals are compared rounded to the column's scale (icebird reads them as JS numbers).

Usage: lake_attach_test.py path/to/mink path/to/mink-query   (Debian's /usr/bin/python3)
"""

import decimal
import json
import os
import re
import subprocess
import sys
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import minktest  # noqa: E402

TOKEN = None  # authentication off: the catalog asks nothing (lake_rest_security_test.py tests its users)
LEGACY = "shop.legacy"
KEYED = "shop.keyed"
FILLED = "shop.filled"
FEED = "shop.feed"
PKFEED = "shop.pkfeed"
QUERY = None


def create_args(table, amount_type="DECIMAL(10,2)", buckets=2, lake=True, primary_key=False):
    """`mink table create` of `table` (id, region, amount): a log table bucketed by id, or with
    `primary_key` a primary-key table of id."""
    args = ["table", "create", table, "-C", "id BIGINT NOT NULL", "-C", "region STRING",
            "-C", f"amount {amount_type}"]
    args += ["--primary-key", "id"] if primary_key else ["--bucket-key", "id"]
    args += ["--bucket-count", str(buckets)]
    if lake:
        args += ["--lake", "iceberg", "--lake-freshness", "1s"]
    return args


def canon(rows):
    """Rows sorted by id (duplicates kept, next to each other), decimals rounded to the scale."""
    return sorted(({**r, "amount": None if r.get("amount") is None else round(float(r["amount"]), 2)}
                   for r in rows), key=lambda r: (r.get("id"), json.dumps(r, sort_keys=True, default=str)))


def row(i, region, amount):
    return {"id": i, "region": region, "amount": None if amount is None else decimal.Decimal(amount)}


def lines(text):
    return [json.loads(line) for line in text.splitlines()]


def lake_snapshot(node, table):
    return json.loads(node.mink("table", "lake-snapshot", table, "--format", "json").stdout)


def read(node, table, mode):
    return canon(lines(node.mink("read", table, "--mode", mode).stdout))


def query_read(node, table):
    q = subprocess.run([QUERY, "exec", "-e", f"SELECT id, region, amount FROM mink.{table}"],
                       env=dict(os.environ, MINK_BOOTSTRAP=node.flight), capture_output=True, text=True,
                       timeout=120)
    return canon(lines(q.stdout)) if q.returncode == 0 else f"status {q.returncode}: {q.stderr.strip()}"


def icebird(checks, node, table, where):
    try:
        return canon(minktest.icebird_read(node, table)[0])
    except RuntimeError as e:
        checks.fail(f"{where}: icebird reads {table}", str(e))
        return None


def write(node, table, rows=(), deletes=()):
    if rows:
        node.mink("write", table, input="".join(
            json.dumps({**r, "amount": None if r["amount"] is None else str(r["amount"])}) + "\n" for r in rows))
    if deletes:
        node.mink("write", table, "--delete", input="".join(json.dumps({"id": i}) + "\n" for i in deletes))


def wait_tiered(checks, node, table, where, previous_snapshot_id, seconds=12):
    """Waits for a lake snapshot of `table` other than `previous_snapshot_id` that covers every
    bucket's log end; the lake-snapshot answer then."""
    def tiered():
        return (lake_snapshot(node, table)["snapshot_id"] not in (0, previous_snapshot_id)
                and minktest.lake_caught_up(node, table))
    checks.ok(f"{where}: a new lake snapshot of {table} covering the log (within {seconds} s)",
              minktest.wait_until(seconds, tiered, interval=0.2), json.dumps(lake_snapshot(node, table)))
    return lake_snapshot(node, table)


def mink_metadata(checks, lake, location, where):
    """The metadata file a lake snapshot names, after checking that it is v<seq>.metadata.json in
    `location`/metadata and that version-hint.text names it."""
    metadata_file = urllib.parse.urlsplit(lake["metadata_location"]).path
    checks.expect(f"{where}: the new metadata file is v<seq>.metadata.json in the table's own location",
                  (os.path.join(location, "metadata"), f"v{lake['sequence_number']}.metadata.json"),
                  os.path.split(metadata_file))
    try:
        with open(os.path.join(location, "metadata", "version-hint.text")) as f:
            hint = f.read().strip()
    except OSError as e:
        hint = str(e)
    checks.expect(f"{where}: version-hint.text names it", str(lake["sequence_number"]), hint)
    with open(metadata_file) as f:
        return json.load(f)


def files_under(location):
    return sorted(os.path.join(d, f) for d, _, names in os.walk(location) for f in names)


def plant_canary(location):
    """A file named like a data file of a round of Mink's of sequence number 1 that never
    committed (`<seq>-<uuid>-<n>.parquet`), in the table's location: the orphan sweep removes it."""
    path = os.path.join(location, "data", f"1-{uuid.uuid4()}-0.parquet")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"not a round's file")
    return path


def check_refused(checks, node, name, args, status, pattern):
    """`mink table create` with `args` fails with `status` and a message matching `pattern`."""
    r = node.mink(*args, check=False)
    checks.ok(name, r.returncode == status and re.search(pattern, r.stderr) is not None,
              f"status {r.returncode}: {r.stderr.strip()}")


def check_unchanged(checks, node, catalog, table, before, where):
    """After refused creates: no Mink table `table`, the catalog's table as `before` (a
    LoadTableResult or a commit's answer) left it."""
    listed = node.mink("table", "list").stdout.split()
    checks.ok(f"{where}: mink table list has no {table}", table not in listed, str(listed))
    r = node.mink("table", "describe", table, check=False)
    checks.ok(f"{where}: mink table describe {table}: does not exist",
              r.returncode == 1 and "does not exist" in r.stderr, f"status {r.returncode}: {r.stderr.strip()}")
    namespace, name = table.split(".")
    loaded = catalog.load_table(namespace, name)
    checks.expect(f"{where}: the REST catalog loads the other engine's {table} unchanged",
                  (before["metadata-location"], before["metadata"].get("current-snapshot-id"),
                   before["metadata"]["table-uuid"]),
                  (loaded.get("metadata-location"), loaded["metadata"].get("current-snapshot-id"),
                   loaded["metadata"].get("table-uuid")))


def attach(checks, node, part, args, what):
    r = node.mink(*args, check=False)
    return checks.expect(f"{part}: mink {' '.join(args[:3])} ... {what} attaches the lake table", (0, "", ""),
                         (r.returncode, r.stdout, r.stderr.strip()))


def part_a(checks, node, rest_url, engine, catalog):
    """A log table attaches a lake table without identifier fields, with rows. (union rows,
    lake snapshot) for the checks after the restart; None when the attach failed."""
    regions = ["us", "eu", "apac", None]
    rows = [{"id": i, "region": regions[i % 4],
             "amount": None if i % 7 == 0 else decimal.Decimal(f"{i * 3}.{(i * 17) % 100:02d}")}
            for i in range(1, 21)]
    rows[5]["amount"] = decimal.Decimal("-12.05")
    rows[9]["region"] = "it's"
    checks.ok("A: the 20 rows fall in both buckets of bucket[2](id)",
              {engine.bucket_of(r["id"], 2) for r in rows} == {0, 1})
    commit = engine.create_table_with_rows(rest_url, TOKEN, "shop", "legacy", rows, 2, QUERY,
                                           env=dict(os.environ, MINK_BOOTSTRAP=node.flight),
                                           identifier_field_ids=None)
    metadata = commit["metadata"]
    schema = next(s for s in metadata["schemas"] if s["schema-id"] == metadata["current-schema-id"])
    checks.ok("A: the other engine's shop.legacy has no identifier fields",
              not schema.get("identifier-field-ids"), json.dumps(schema))
    engine_snapshot = next(s for s in metadata["snapshots"] if s["snapshot-id"] == metadata["current-snapshot-id"])
    location = engine.local_path(metadata["location"].rstrip("/"))
    # Its files: everything in its location now (metadata files, manifest list, manifest, data files).
    engine_files = files_under(location)
    _, manifests = engine.read_avro(engine.local_path(engine_snapshot["manifest-list"]))
    data_files = [engine.local_path(e["data_file"]["file_path"]) for m in manifests
                  for e in engine.read_avro(engine.local_path(m["manifest_path"]))[1]]
    checks.ok("A: the other engine's snapshot has a data file per bucket, all in its location",
              len(data_files) == 2 and set(data_files) <= set(engine_files)
              and engine.local_path(engine_snapshot["manifest-list"]) in engine_files, str(engine_files))

    # Creates that do not match are refused and change nothing.
    check_refused(checks, node,
                  "A: a log table over the lake table without --lake is refused (AlreadyExists, exit 1)",
                  create_args(LEGACY, lake=False), 1, re.escape(LEGACY))
    check_refused(checks, node,
                  "A: a primary-key table over the lake table without --lake is refused (AlreadyExists, exit 1)",
                  create_args(LEGACY, lake=False, primary_key=True), 1, re.escape(LEGACY))
    check_refused(checks, node,
                  "A: --lake iceberg with amount DECIMAL(12,2) is refused naming column 3, amount (exit 2)",
                  create_args(LEGACY, amount_type="DECIMAL(12,2)"), 2,
                  r"column 3: amount is decimal\(10, ?2\) in the lake table, decimal\(12, ?2\) in the Mink table")
    check_refused(checks, node,
                  "A: --lake iceberg with 3 buckets is refused naming the partition field (exit 2)",
                  create_args(LEGACY, buckets=3), 2, r"partition field 1: .*bucket\[2\].*bucket\[3\]")
    check_refused(checks, node,
                  "A: --lake iceberg with --primary-key id is refused: identifier fields [] are not [1] (exit 2)",
                  create_args(LEGACY, primary_key=True), 2, r"identifier fields \[\].*\[1\]")
    check_unchanged(checks, node, catalog, LEGACY, commit, "A: after the refusals")

    # The matching create of a log table attaches it.
    if not attach(checks, node, "A", create_args(LEGACY), "--bucket-key id --bucket-count 2 --lake iceberg"):
        return None
    checks.ok("A: mink table list has shop.legacy", LEGACY in node.mink("table", "list").stdout.split())
    lake = lake_snapshot(node, LEGACY)
    checks.expect("A: lake-snapshot: the other engine's snapshot", engine_snapshot["snapshot-id"], lake["snapshot_id"])
    lake_rows = canon(rows)
    checks.expect("A: the union read: the lake table's 20 rows", lake_rows, read(node, LEGACY, "union"))
    checks.expect(f"A: mink-query: SELECT id, region, amount FROM mink.{LEGACY}: the 20 rows", lake_rows,
                  query_read(node, LEGACY))
    checks.expect("A: the log read (mink read): nothing", [], read(node, LEGACY, "log"))
    canary = plant_canary(location)

    # Appends: the union read is the lake's rows and the log's.
    more = [row(i, ["latam", None][i % 2], f"{i}.{i:02d}") for i in range(21, 26)]
    write(node, LEGACY, rows=more)
    all_rows = canon(rows + more)
    checks.expect("A: after appending rows 21..25: the union read has the 25 rows", all_rows,
                  read(node, LEGACY, "union"))
    checks.expect("A: after appending rows 21..25: the log read has only the 5 new ones", canon(more),
                  read(node, LEGACY, "log"))
    lake = wait_tiered(checks, node, LEGACY, "A: after the appends", engine_snapshot["snapshot-id"])
    meta = mink_metadata(checks, lake, location, "A")
    snapshots = {s["snapshot-id"]: s for s in meta.get("snapshots", [])}
    ancestors, at = [], meta.get("current-snapshot-id")
    while at in snapshots and len(ancestors) <= len(snapshots):
        ancestors.append(at)
        at = snapshots[at].get("parent-snapshot-id")
    checks.ok("A: Mink's metadata: the same table uuid, the new snapshot current, the other engine's among its "
              "ancestors", meta.get("table-uuid") == metadata["table-uuid"] and ancestors[:1] == [lake["snapshot_id"]]
              and engine_snapshot["snapshot-id"] in ancestors[1:],
              json.dumps({"uuid": meta.get("table-uuid"), "ancestors": ancestors}))
    union = read(node, LEGACY, "union")
    checks.expect("A: tiered: the union read has the 25 rows", all_rows, union)
    checks.expect("A: tiered: icebird reads (version-hint.text) the 25 rows the union read has", union,
                  icebird(checks, node, LEGACY, "A: tiered"))
    checks.expect("A: tiered: mink-query reads the 25 rows", union, query_read(node, LEGACY))
    checks.expect("A: tiered: the log read still has only the 5 new ones", canon(more), read(node, LEGACY, "log"))

    # The orphan sweep keeps the other engine's files.
    checks.ok("A: the orphan sweep ran (it removed a never-committed round's file within 10 s)",
              minktest.wait_until(10, lambda: not os.path.exists(canary), interval=0.2), canary)
    missing = [p for p in engine_files if not os.path.exists(p)]
    checks.ok(f"A: the other engine's {len(engine_files)} files (metadata files, manifest list, manifest, "
              "data files) are all still there", not missing, f"missing: {missing}")
    return union, lake


def part_b(checks, node, engine, catalog):
    """A primary-key table attaches a lake table with identifier fields [1] and no snapshot.
    (union rows, snapshot rows, lake snapshot) for the checks after the restart; None when the
    attach failed."""
    created = engine.create_table(catalog, "shop", "keyed", 2)
    metadata = created["metadata"]
    checks.ok("B: the other engine's shop.keyed: identifier fields [1], no snapshot",
              metadata["schemas"][0].get("identifier-field-ids") == [1]
              and metadata.get("current-snapshot-id") in (None, -1) and not metadata.get("snapshots"),
              json.dumps({k: metadata.get(k) for k in ("schemas", "current-snapshot-id", "snapshots")}))
    engine_location = metadata["location"].rstrip("/")
    location = engine.local_path(engine_location)
    engine_files = files_under(location)

    if not attach(checks, node, "B", create_args(KEYED, primary_key=True),
                  "--primary-key id --bucket-count 2 --lake iceberg"):
        return None
    checks.expect("B: lake-snapshot: none yet", 0, lake_snapshot(node, KEYED)["snapshot_id"])
    model = {}
    for r in [row(i, ["us", "eu", None][i % 3], f"{i}.50") for i in range(1, 6)]:
        model[r["id"]] = r
    write(node, KEYED, rows=list(model.values()))
    model[3] = row(3, "apac", "33.33")
    write(node, KEYED, rows=[model[3]])
    write(node, KEYED, deletes=[4])
    del model[4]
    want = canon(model.values())
    checks.expect("B: after upserts 1..5, an update of 3, a delete of 4: the union read", want,
                  read(node, KEYED, "union"))
    checks.expect("B: ... the snapshot read", want, read(node, KEYED, "snapshot"))
    lake = wait_tiered(checks, node, KEYED, "B: after the writes", 0)
    meta = mink_metadata(checks, lake, location, "B")
    checks.expect("B: Mink's metadata: the other engine's location and table uuid",
                  (engine_location, metadata["table-uuid"]),
                  (meta.get("location", "").rstrip("/"), meta.get("table-uuid")))
    union, snapshot = read(node, KEYED, "union"), read(node, KEYED, "snapshot")
    checks.expect("B: tiered: the union read", want, union)
    checks.expect("B: tiered: the snapshot read equals the union read", union, snapshot)
    checks.expect("B: tiered: icebird reads (version-hint.text) what the union read has", union,
                  icebird(checks, node, KEYED, "B: tiered"))
    checks.expect("B: tiered: mink-query", union, query_read(node, KEYED))
    missing = [p for p in engine_files if not os.path.exists(p)]
    checks.ok(f"B: the other engine's files ({len(engine_files)}: its metadata) are all still there",
              engine_files and not missing, f"files: {engine_files}, missing: {missing}")
    return union, snapshot, lake


def part_c(checks, node, rest_url, engine, catalog):
    """A primary-key table attaches a lake table with rows: they become its KV state, so the
    snapshot read has them, and deletes and updates of keys only the lake had work."""
    rows = [row(i, "eu", f"{i}.00") for i in (1, 2, 3)]
    engine.create_table_with_rows(rest_url, TOKEN, "shop", "filled", rows, 2, QUERY,
                                  env=dict(os.environ, MINK_BOOTSTRAP=node.flight))
    if not attach(checks, node, "C", create_args(FILLED, primary_key=True),
                  "--primary-key id --bucket-count 2 --lake iceberg"):
        return None
    checks.expect("C: the snapshot read (the KV state) has the lake's rows", canon(rows), read(node, FILLED, "snapshot"))
    checks.expect("C: the union read has them", canon(rows), read(node, FILLED, "union"))
    lookup = node.mink("lookup", FILLED, "id=2", check=False)
    checks.expect("C: a lookup finds a row only the lake had", canon([rows[1]]),
                  canon(lines(lookup.stdout)) if lookup.returncode == 0 else lookup.stderr)
    previous = lake_snapshot(node, FILLED)["snapshot_id"]
    write(node, FILLED, rows=[row(3, "apac", "3.33")], deletes=[1])
    want = canon([rows[1], row(3, "apac", "3.33")])
    checks.expect("C: after deleting 1 and updating 3 (both only in the lake): the snapshot read", want,
                  read(node, FILLED, "snapshot"))
    checks.expect("C: ... the union read", want, read(node, FILLED, "union"))
    wait_tiered(checks, node, FILLED, "C: after the writes", previous)
    checks.expect("C: tiered: icebird reads what the snapshot read has", want,
                  icebird(checks, node, FILLED, "C: tiered"))
    return want


def rest_current(catalog, table):
    """(metadata, current snapshot or None, current schema) of `table` loaded through the REST
    catalog."""
    namespace, name = table.split(".")
    metadata = catalog.load_table(namespace, name)["metadata"]
    current = next((s for s in metadata.get("snapshots", [])
                    if s["snapshot-id"] == metadata.get("current-snapshot-id")), None)
    schema = next(s for s in metadata["schemas"] if s.get("schema-id", 0) == metadata.get("current-schema-id", 0))
    return metadata, current, schema


def check_rest_schema(checks, catalog, table, identifier_field_ids, where):
    """The schema the REST catalog has for Mink's `table`: field ids 1..3 (id long required,
    region string, amount decimal(10, 2)) and `identifier_field_ids`; the current snapshot."""
    metadata, current, schema = rest_current(catalog, table)
    fields = [(f["id"], f["name"], f["type"].replace(" ", ""), f["required"]) for f in schema["fields"]]
    checks.expect(f"{where}: the REST catalog's schema of {table}: field ids 1..3, identifier fields "
                  f"{identifier_field_ids}",
                  ([(1, "id", "long", True), (2, "region", "string", False), (3, "amount", "decimal(10,2)", False)],
                   identifier_field_ids),
                  (fields, schema.get("identifier-field-ids", [])))
    return metadata, current


def engine_commit(engine, catalog, table, rows, node, **options):
    """The other engine's append_rows of `rows` to `table` with `options`: (HTTP status, exception
    type, message, answer)."""
    namespace, name = table.split(".")
    try:
        answer = engine.append_rows(catalog, namespace, name, rows, QUERY,
                                    env=dict(os.environ, MINK_BOOTSTRAP=node.flight), **options)
        return 200, None, "", answer
    except engine.RestError as e:
        return e.status, e.type, e.message, None


def compact(offsets):
    """A mink-offsets summary value as the node names it (compact JSON, keys sorted)."""
    return json.dumps(json.loads(offsets), sort_keys=True, separators=(",", ":"))


def check_untouched(checks, node, catalog, table, lake, union, where):
    """After a refused commit: the lake snapshot, the union read and the REST catalog's current
    snapshot are what they were."""
    checks.expect(f"{where}: lake-snapshot unchanged", lake["snapshot_id"], lake_snapshot(node, table)["snapshot_id"])
    checks.expect(f"{where}: the REST catalog's current snapshot unchanged", lake["snapshot_id"],
                  rest_current(catalog, table)[0].get("current-snapshot-id"))
    checks.expect(f"{where}: the union read unchanged", union, read(node, table, "union"))


def part_d(checks, node, engine, catalog):
    """Another engine commits to a log table Mink tiers. (union rows, lake snapshot) for the
    checks after the restart; None when the table could not be set up."""
    r = node.mink(*create_args(FEED), check=False)
    if not checks.expect(f"D: mink {' '.join(create_args(FEED))}", (0, ""), (r.returncode, r.stderr.strip())):
        return None
    mink_rows = [row(i, ["us", "eu", None][i % 3], f"{i}.{i:02d}") for i in range(1, 11)]
    write(node, FEED, rows=mink_rows)
    lake = wait_tiered(checks, node, FEED, "D: after mink write of rows 1..10", 0)
    metadata, current = check_rest_schema(checks, catalog, FEED, [], "D")
    offsets = (current or {}).get("summary", {}).get("mink-offsets")
    checks.ok("D: the REST catalog's current snapshot of shop.feed is the lake snapshot and has mink-offsets",
              current is not None and current["snapshot-id"] == lake["snapshot_id"] and offsets is not None,
              json.dumps(current))
    if offsets is None:
        return None
    union = read(node, FEED, "union")
    checks.expect("D: the union read: rows 1..10", canon(mink_rows), union)
    engine_rows = [row(i, ["apac", None][i % 2], f"{i}.25") for i in range(100, 105)]

    # Refused: without mink-offsets (403 naming them and the current ones), without the main assertion.
    status, kind, message, _ = engine_commit(engine, catalog, FEED, engine_rows, node)
    checks.ok("D: the other engine's append of rows 100..104 without mink-offsets: 403 ForbiddenException naming "
              "mink-offsets and the current ones",
              (status, kind) == (403, "ForbiddenException") and "mink-offsets" in message
              and compact(offsets) in message, f"{status} {kind}: {message}")
    check_untouched(checks, node, catalog, FEED, lake, union, "D: after the refusal without mink-offsets")
    status, kind, message, _ = engine_commit(engine, catalog, FEED, engine_rows, node,
                                             summary_extra={"mink-offsets": offsets}, assert_main=False)
    checks.ok("D: ... with mink-offsets but without assert-ref-snapshot-id of main: 403 ForbiddenException naming "
              "it", (status, kind) == (403, "ForbiddenException") and "assert-ref-snapshot-id" in message,
              f"{status} {kind}: {message}")
    check_untouched(checks, node, catalog, FEED, lake, union, "D: after the refusal without the main assertion")

    # Accepted: mink-offsets as the current snapshot has them, main asserted.
    status, kind, message, answer = engine_commit(engine, catalog, FEED, engine_rows, node,
                                                  summary_extra={"mink-offsets": offsets})
    if not checks.expect("D: ... with the current snapshot's mink-offsets and main asserted: 200",
                         (200, None, ""), (status, kind, message)):
        return union, lake
    engine_id = answer["metadata"].get("current-snapshot-id")
    engine_snapshot = next((s for s in answer["metadata"].get("snapshots", []) if s["snapshot-id"] == engine_id), {})
    checks.ok("D: the commit's answer: the engine's snapshot current, on top of Mink's, mink-offsets kept, "
              "operation append",
              engine_snapshot.get("parent-snapshot-id") == lake["snapshot_id"]
              and engine_snapshot.get("summary", {}).get("mink-offsets") == offsets
              and engine_snapshot.get("summary", {}).get("operation") == "append", json.dumps(engine_snapshot))
    engine_lake = lake_snapshot(node, FEED)
    checks.expect("D: mink table lake-snapshot shop.feed: the other engine's snapshot", engine_id,
                  engine_lake["snapshot_id"])
    checks.expect("D: the commit's metadata-location is the lake snapshot's", answer["metadata-location"],
                  engine_lake["metadata_location"])
    location = os.path.dirname(os.path.dirname(urllib.parse.urlsplit(engine_lake["metadata_location"]).path))
    mink_metadata(checks, engine_lake, location, "D: the other engine's commit")
    checks.expect("D: the REST catalog's current snapshot: the other engine's", engine_id,
                  rest_current(catalog, FEED)[0].get("current-snapshot-id"))
    want = canon(mink_rows + engine_rows)
    union = read(node, FEED, "union")
    checks.expect("D: the union read: Mink's rows 1..10 and the other engine's 100..104", want, union)
    checks.expect(f"D: mink-query: SELECT id, region, amount FROM mink.{FEED} agrees", union, query_read(node, FEED))
    checks.expect("D: icebird (version-hint.text) agrees", union, icebird(checks, node, FEED, "D: committed"))
    checks.expect("D: the log read: rows 1..10 only", canon(mink_rows), read(node, FEED, "log"))

    # Tiering goes on from the other engine's snapshot.
    more = [row(i, "latam", f"{i}.75") for i in range(11, 16)]
    write(node, FEED, rows=more)
    lake = wait_tiered(checks, node, FEED, "D: after mink write of rows 11..15", engine_id)
    meta = mink_metadata(checks, lake, location, "D: tiered after the commit")
    snapshots = {s["snapshot-id"]: s for s in meta.get("snapshots", [])}
    new = snapshots.get(meta.get("current-snapshot-id"), {})
    checks.ok("D: Mink's new snapshot is current in its metadata, its parent the other engine's snapshot, "
              "one sequence number on",
              meta.get("current-snapshot-id") == lake["snapshot_id"] and new.get("parent-snapshot-id") == engine_id
              and new.get("sequence-number") == engine_snapshot.get("sequence-number", -1) + 1,
              json.dumps({"current": meta.get("current-snapshot-id"), "snapshot": new}))
    checks.ok("D: its mink-offsets moved on from the ones the other engine kept",
              new.get("summary", {}).get("mink-offsets") not in (None, offsets), json.dumps(new.get("summary")))
    want = canon(mink_rows + engine_rows + more)
    union = read(node, FEED, "union")
    checks.expect("D: tiered: the union read has Mink's rows 1..15 and the other engine's 100..104", want, union)
    checks.expect("D: tiered: icebird agrees", union, icebird(checks, node, FEED, "D: tiered"))
    checks.expect("D: tiered: mink-query agrees", union, query_read(node, FEED))
    checks.expect("D: tiered: the log read (mink read shop.feed) has rows 1..15, not 100..104",
                  canon(mink_rows + more), read(node, FEED, "log"))
    return union, lake


def part_d_keyed(checks, node, engine, catalog):
    """Another engine may not append to a primary-key table Mink tiers. (union rows, lake
    snapshot) for the checks after the restart; None when the table could not be set up."""
    args = create_args(PKFEED, primary_key=True)
    r = node.mink(*args, check=False)
    if not checks.expect(f"D: mink {' '.join(args)}", (0, ""), (r.returncode, r.stderr.strip())):
        return None
    rows = [row(i, ["us", "eu"][i % 2], f"{i}.10") for i in range(1, 6)]
    write(node, PKFEED, rows=rows)
    lake = wait_tiered(checks, node, PKFEED, "D: after upserts 1..5 to shop.pkfeed", 0)
    _, current = check_rest_schema(checks, catalog, PKFEED, [1], "D")
    offsets = (current or {}).get("summary", {}).get("mink-offsets")
    checks.ok("D: shop.pkfeed's current snapshot has mink-offsets", offsets is not None, json.dumps(current))
    union = read(node, PKFEED, "union")
    checks.expect("D: shop.pkfeed: the union read: rows 1..5", canon(rows), union)
    status, kind, message, _ = engine_commit(engine, catalog, PKFEED, [row(i, "apac", "1.00") for i in range(100, 105)],
                                             node, summary_extra={"mink-offsets": offsets or "{}"})
    checks.ok("D: the other engine's append (operation append, the current mink-offsets) to primary-key "
              "shop.pkfeed: 403 ForbiddenException naming replace",
              (status, kind) == (403, "ForbiddenException") and "replace" in message, f"{status} {kind}: {message}")
    check_untouched(checks, node, catalog, PKFEED, lake, union, "D: shop.pkfeed after the refusal")
    checks.expect("D: shop.pkfeed after the refusal: the snapshot read", union, read(node, PKFEED, "snapshot"))
    return union, lake


def run(checks, node, rest_url, engine):
    node.mink("db", "create", "shop")
    catalog = engine.RestCatalog(rest_url, TOKEN)
    a = part_a(checks, node, rest_url, engine, catalog)
    b = part_b(checks, node, engine, catalog)
    c = part_c(checks, node, rest_url, engine, catalog)
    d = {FEED: part_d(checks, node, engine, catalog), PKFEED: part_d_keyed(checks, node, engine, catalog)}

    rc = node.stop()
    checks.expect("the node stops cleanly", 0, rc)
    node.restart()
    if a is not None:
        union, lake = a
        checks.expect("A: after a restart: the union read is unchanged", union, read(node, LEGACY, "union"))
        checks.expect("A: after a restart: the lake snapshot is unchanged", lake["snapshot_id"],
                      lake_snapshot(node, LEGACY)["snapshot_id"])
    if b is not None:
        union, snapshot, lake = b
        checks.expect("B: after a restart: the union read is unchanged", union, read(node, KEYED, "union"))
        checks.expect("B: after a restart: the snapshot read is unchanged", snapshot, read(node, KEYED, "snapshot"))
        checks.expect("B: after a restart: the lake snapshot is unchanged", lake["snapshot_id"],
                      lake_snapshot(node, KEYED)["snapshot_id"])
    if c is not None:
        checks.expect("C: after a restart: the snapshot read (KV rebuilt from the attach)", c,
                      read(node, FILLED, "snapshot"))
    for table, kept in d.items():
        if kept is not None:
            union, lake = kept
            checks.expect(f"D: after a restart: the union read of {table} is unchanged", union,
                          read(node, table, "union"))
            checks.expect(f"D: after a restart: the lake snapshot of {table} is unchanged", lake["snapshot_id"],
                          lake_snapshot(node, table)["snapshot_id"])


def run_with_rest_catalog(node_name, token, run_checks):
    """The test's frame: `run_checks(checks, node, rest_url, engine)` on a node serving its
    Iceberg REST catalog with bearer token `token`; argv: path/to/mink path/to/mink-query."""
    minktest.hard_deadline(200)
    global QUERY
    if len(sys.argv) < 3:
        print(f"usage: {sys.argv[0]} path/to/mink path/to/mink-query", file=sys.stderr)
        sys.exit(2)
    mink_bin = sys.argv[1]
    QUERY = os.path.abspath(sys.argv[2])
    minktest.require_modules("avro")
    minktest.require_node_modules("icebird")
    import iceberg_engine as engine

    node = minktest.MinkNode(mink_bin, node_name)

    def body(checks):
        rest_port = minktest.free_port()
        node.start(extra=["--iceberg-rest-listen", f"127.0.0.1:{rest_port}"])
        run_checks(checks, node, f"http://127.0.0.1:{rest_port}", engine)
        checks.expect("the node stops cleanly", 0, node.stop())
    minktest.run_on_node(node, body, node_name)


if __name__ == "__main__":
    run_with_rest_catalog("lake-attach", TOKEN, run)
