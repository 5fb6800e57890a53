"""Another Iceberg engine, for the tests: creates and appends to tables of its own through a
node's Iceberg REST catalog (docs/iceberg-rest.md) the way an outside writer does, with files
Mink did not write. Run with Debian's /usr/bin/python3 (python3-avro).

    meta = create_table_with_rows(f"http://127.0.0.1:{port}", TOKEN, "shop", "legacy", rows,
                                  bucket_count=2, mink_query_path=QUERY)

The table (schema `id` long required / `region` string / `amount` decimal(10,2), identifier
field `id` unless `identifier_field_ids=None` (then the schema has no "identifier-field-ids"),
partitioned by `bucket[N](id)`, format version 2) is created with
POST /v1/namespaces/{ns}/tables. With `by_region`, the spec is `identity(region)` then
`bucket[N](id)` (`region_required` makes the column required). Each append writes one Parquet
data file per non-empty partition under `<location>/data/[region=<r>/]id_bucket=<b>/` (DuckDB's Parquet writer through `mink-query exec`, with
the Iceberg field ids and the `iceberg.schema` key-value metadata), a manifest and a manifest list
(Avro, python3-avro, Iceberg v2's manifest_entry and manifest_file schemas with their field ids
and column statistics), and commits an `append` snapshot with POST /v1/namespaces/{ns}/tables/{t}
under the requirements assert-table-uuid and assert-ref-snapshot-id(main). append_rows also
appends to a table Mink tiers (its schema and bucket count as the catalog has them); options for
that: `summary_extra` (summary keys, e.g. {"mink-offsets": ...}), `assert_main=False` (no
assert-ref-snapshot-id) and `operation`. The files are written straight to the warehouse's
directory: the node must have a file:// store.

Rows are dicts {"id": int, "region": str or None, "amount": Decimal, str, int or None}.
"""

import decimal
import json
import os
import random
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import warnings

import avro.datafile
import avro.io
import avro.schema

# --- Iceberg's bucket transform -----------------------------------------------------------------

_MASK32 = 0xFFFFFFFF


def _rotl32(x, r):
    return ((x << r) | (x >> (32 - r))) & _MASK32


def murmur3_32(data, seed=0):
    """MurmurHash3 x86_32 of `data` (bytes), as a signed 32-bit int (Java's Guava answers)."""
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed & _MASK32
    n = len(data)
    tail_start = n - n % 4
    for i in range(0, tail_start, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * c1) & _MASK32
        k = _rotl32(k, 15)
        k = (k * c2) & _MASK32
        h ^= k
        h = _rotl32(h, 13)
        h = (h * 5 + 0xE6546B64) & _MASK32
    k = 0
    tail = data[tail_start:]
    if len(tail) >= 3:
        k ^= tail[2] << 16
    if len(tail) >= 2:
        k ^= tail[1] << 8
    if len(tail) >= 1:
        k ^= tail[0]
        k = (k * c1) & _MASK32
        k = _rotl32(k, 15)
        k = (k * c2) & _MASK32
        h ^= k
    h ^= n
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK32
    h ^= h >> 16
    return h - (1 << 32) if h & 0x80000000 else h


def hash_long(value):
    """Iceberg's bucket hash of an int or long: murmur3 of its 8 bytes, little-endian."""
    return murmur3_32(int(value).to_bytes(8, "little", signed=True))


def bucket_of(value, bucket_count):
    """Iceberg's bucket[N] transform of an int/long value."""
    return (hash_long(value) & 0x7FFFFFFF) % bucket_count


def self_test_bucket_hash():
    """The test vectors of the Iceberg spec (Appendix B); raises AssertionError on a mismatch."""
    vectors = [
        (hash_long(34), 2017239379),                       # int / long 34
        (hash_long(17486), -653330422),                    # date 2017-11-16 (days)
        (murmur3_32("iceberg".encode()), 1210000089),      # string
        (murmur3_32(bytes([0, 1, 2, 3])), -188683207),     # binary
        (murmur3_32(bytes([0x05, 0x8C])), -500754589),     # decimal 14.20 (unscaled 1420)
    ]
    for got, want in vectors:
        assert got == want, f"murmur3: {got} != {want}"


# --- The REST catalog ---------------------------------------------------------------------------

class RestError(Exception):
    """A catalog's error answer: HTTP status, Iceberg exception type, message."""

    def __init__(self, status, error_type, message, method="", path=""):
        super().__init__(f"{method} {path}: {status} {error_type}: {message}")
        self.status = status
        self.type = error_type
        self.message = message


class RestCatalog:
    """A minimal Iceberg REST client on urllib, with `Authorization: Bearer <token>`."""

    def __init__(self, url, token=None, timeout=30):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    @staticmethod
    def namespace_path(namespace):
        levels = [namespace] if isinstance(namespace, str) else list(namespace)
        return urllib.parse.quote("\x1f".join(levels), safe="")

    def request(self, method, path, body=None, headers=None):
        """The decoded JSON answer (None for an empty one); raises RestError for 4xx/5xx."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                text = r.read()
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                err = json.loads(text)["error"]
                raise RestError(e.code, err.get("type"), err.get("message"), method, path) from None
            except (ValueError, KeyError, TypeError):
                raise RestError(e.code, None, text.decode(errors="replace"), method, path) from None
        return json.loads(text) if text else None

    def table_path(self, namespace, name):
        return f"/v1/namespaces/{self.namespace_path(namespace)}/tables/{urllib.parse.quote(name, safe='')}"

    def create_table(self, namespace, request):
        return self.request("POST", f"/v1/namespaces/{self.namespace_path(namespace)}/tables", request)

    def load_table(self, namespace, name):
        return self.request("GET", self.table_path(namespace, name))

    def commit_table(self, namespace, name, requirements, updates):
        return self.request("POST", self.table_path(namespace, name),
                            {"requirements": requirements, "updates": updates})


# --- The table ----------------------------------------------------------------------------------

IDENTIFIER_FIELD_IDS = (1,)  # the default: `id`


def table_schema(identifier_field_ids=IDENTIFIER_FIELD_IDS, region_required=False):
    """The Iceberg schema of the tables of this engine; `identifier_field_ids` None leaves
    "identifier-field-ids" out (a table without identifier fields)."""
    schema = {
        "type": "struct",
        "schema-id": 0,
        "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"},
            {"id": 2, "name": "region", "required": region_required, "type": "string"},
            {"id": 3, "name": "amount", "required": False, "type": "decimal(10, 2)"},
        ],
    }
    if identifier_field_ids is not None:
        schema["identifier-field-ids"] = list(identifier_field_ids)
    return schema


SCHEMA = table_schema()
AMOUNT_SCALE = decimal.Decimal("0.01")


def partition_fields(bucket_count, by_region=False):
    fields = [{"source-id": 2, "field-id": 1000, "name": "region", "transform": "identity"}] if by_region else []
    fields.append({"source-id": 1, "field-id": 1000 + len(fields), "name": "id_bucket",
                   "transform": f"bucket[{bucket_count}]"})
    return fields


def create_table_request(name, bucket_count, location=None, properties=None,
                         identifier_field_ids=IDENTIFIER_FIELD_IDS, by_region=False, region_required=False):
    body = {
        "name": name,
        "schema": table_schema(identifier_field_ids, region_required),
        "partition-spec": {"spec-id": 0, "fields": partition_fields(bucket_count, by_region)},
        "write-order": {"order-id": 0, "fields": []},
        "properties": dict({"write.format.default": "parquet"}, **(properties or {})),
        "stage-create": False,
    }
    if location:
        body["location"] = location
    return body


def local_path(uri):
    """The file system path of a file:// URI of the warehouse."""
    parts = urllib.parse.urlsplit(uri)
    if parts.scheme != "file":
        raise ValueError(f"{uri}: this engine writes its files to a file:// warehouse only")
    return urllib.parse.unquote(parts.path)


def normalized_rows(rows):
    out = []
    for r in rows:
        if r.get("id") is None:
            raise ValueError(f"id is required: {r}")
        amount = r.get("amount")
        if amount is not None:
            exact = decimal.Decimal(str(amount))
            amount = exact.quantize(AMOUNT_SCALE)
            if amount != exact or len(amount.as_tuple().digits) > 10:
                raise ValueError(f"amount {exact} is not a decimal(10, 2)")
        out.append({"id": int(r["id"]), "region": r.get("region"), "amount": amount})
    return out


# --- Parquet ------------------------------------------------------------------------------------

def _sql_string(text):
    return "'" + text.replace("'", "''") + "'"


def write_parquet(path, rows, mink_query_path, env=None, compression="snappy", schema=SCHEMA):
    """One Parquet file of the rows with the field ids 1, 2, 3 and the `iceberg.schema` key (as
    Iceberg's Java writer puts there: `schema`, the table's), by DuckDB's COPY in `mink-query exec`."""
    values = ", ".join(
        "({}, {}, {})".format(r["id"], "NULL" if r["region"] is None else _sql_string(r["region"]),
                              "NULL" if r["amount"] is None else _sql_string(str(r["amount"])))
        for r in rows)
    sql = ("COPY (SELECT CAST(id AS BIGINT) AS id, CAST(region AS VARCHAR) AS region, "
           "CAST(amount AS DECIMAL(10,2)) AS amount "
           f"FROM (VALUES {values}) AS v(id, region, amount)) TO {_sql_string(path)} "
           f"(FORMAT parquet, COMPRESSION {compression}, FIELD_IDS {{id: 1, region: 2, amount: 3}}, "
           f"KV_METADATA {{\"iceberg.schema\": {_sql_string(json.dumps(schema))}}})")
    r = subprocess.run([mink_query_path, "exec", "--allow-local-files", "-e", sql], env=env, capture_output=True, text=True,
                       timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"mink-query COPY TO {path}: status {r.returncode}: {r.stderr.strip()}")
    return os.path.getsize(path)


# --- Avro: manifests and manifest lists (Iceberg spec, format version 2) -------------------------

def _opt(avro_type):
    return ["null", avro_type]


def _field(name, avro_type, field_id, optional=False, doc=None):
    f = {"name": name, "type": _opt(avro_type) if optional else avro_type, "field-id": field_id}
    if optional:
        f["default"] = None
    if doc:
        f["doc"] = doc
    return f


def _int_map(key_id, value_id, value_type):
    """Iceberg's Avro encoding of a map with int keys: an array of key/value records."""
    return {"type": "array", "logicalType": "map",
            "items": {"type": "record", "name": f"k{key_id}_v{value_id}",
                      "fields": [{"name": "key", "type": "int", "field-id": key_id},
                                 {"name": "value", "type": value_type, "field-id": value_id}]}}


def manifest_entry_schema(by_region=False):
    region = [_field("region", "string", 1000, optional=True)] if by_region else []
    partition = {"type": "record", "name": "r102",
                 "fields": region + [_field("id_bucket", "int", 1000 + len(region), optional=True)]}
    data_file = {"type": "record", "name": "r2", "fields": [
        _field("content", "int", 134, doc="Contents of the file: 0=data, 1=position deletes, 2=equality deletes"),
        _field("file_path", "string", 100, doc="Location URI with FS scheme"),
        _field("file_format", "string", 101, doc="File format name: avro, orc, or parquet"),
        _field("partition", partition, 102, doc="Partition data tuple, schema based on the partition spec"),
        _field("record_count", "long", 103, doc="Number of records in the file"),
        _field("file_size_in_bytes", "long", 104, doc="Total file size in bytes"),
        _field("column_sizes", _int_map(117, 118, "long"), 108, optional=True),
        _field("value_counts", _int_map(119, 120, "long"), 109, optional=True),
        _field("null_value_counts", _int_map(121, 122, "long"), 110, optional=True),
        _field("nan_value_counts", _int_map(138, 139, "long"), 137, optional=True),
        _field("lower_bounds", _int_map(126, 127, "bytes"), 125, optional=True),
        _field("upper_bounds", _int_map(129, 130, "bytes"), 128, optional=True),
        _field("key_metadata", "bytes", 131, optional=True),
        _field("split_offsets", {"type": "array", "items": "long", "element-id": 133}, 132, optional=True),
        _field("equality_ids", {"type": "array", "items": "int", "element-id": 136}, 135, optional=True),
        _field("sort_order_id", "int", 140, optional=True),
    ]}
    return {"type": "record", "name": "manifest_entry", "fields": [
        _field("status", "int", 0),
        _field("snapshot_id", "long", 1, optional=True),
        _field("sequence_number", "long", 3, optional=True),
        _field("file_sequence_number", "long", 4, optional=True),
        _field("data_file", data_file, 2),
    ]}


def manifest_file_schema():
    summary = {"type": "record", "name": "r508", "fields": [
        _field("contains_null", "boolean", 509),
        _field("contains_nan", "boolean", 518, optional=True),
        _field("lower_bound", "bytes", 510, optional=True),
        _field("upper_bound", "bytes", 511, optional=True),
    ]}
    return {"type": "record", "name": "manifest_file", "fields": [
        _field("manifest_path", "string", 500),
        _field("manifest_length", "long", 501),
        _field("partition_spec_id", "int", 502),
        _field("content", "int", 517),
        _field("sequence_number", "long", 515),
        _field("min_sequence_number", "long", 516),
        _field("added_snapshot_id", "long", 503),
        _field("added_files_count", "int", 504),
        _field("existing_files_count", "int", 505),
        _field("deleted_files_count", "int", 506),
        _field("added_rows_count", "long", 512),
        _field("existing_rows_count", "long", 513),
        _field("deleted_rows_count", "long", 514),
        _field("partitions", {"type": "array", "items": summary, "element-id": 508}, 507, optional=True),
        _field("key_metadata", "bytes", 519, optional=True),
    ]}


# python3-avro warns about Iceberg's `"logicalType": "map"` on arrays (an Avro logical type it does
# not know, so it reads the array it is): expected here, not printed.
_MAP_WARNING = "Unknown map, using array"


def _parse_schema(schema):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_MAP_WARNING)
        return avro.schema.parse(json.dumps(schema))


def write_avro(path, schema, metadata, records, codec="null"):
    """An Avro object container file; `metadata` are the file's Iceberg keys. Its size."""
    with open(path, "wb") as f:
        writer = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), _parse_schema(schema), codec=codec)
        for k, v in metadata.items():
            writer.set_meta(k, v.encode())
        for record in records:
            writer.append(record)
        writer.close()
    return os.path.getsize(path)


def read_avro(path):
    """(file metadata without avro.schema, records) of an Avro container file."""
    with open(path, "rb") as f, warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_MAP_WARNING)
        reader = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        meta = {k: v.decode() for k, v in reader.meta.items() if k != "avro.schema"}
        records = list(reader)
        reader.close()
    return meta, records


# Iceberg's single-value serialization (for bounds).
def _long_bytes(v):
    return int(v).to_bytes(8, "little", signed=True)


def _int_bytes(v):
    return int(v).to_bytes(4, "little", signed=True)


def _decimal_bytes(d):
    """The unscaled value, big-endian two's complement, in the fewest bytes."""
    unscaled = int(d.scaleb(2))  # decimal(10, 2): the value times 10^2
    length = 1
    while not -(1 << (8 * length - 1)) <= unscaled < (1 << (8 * length - 1)):
        length += 1
    return unscaled.to_bytes(length, "big", signed=True)


def _column_stats(rows):
    """value_counts, null_value_counts, lower_bounds, upper_bounds of a data file's rows."""
    columns = [(1, "id", _long_bytes), (2, "region", lambda s: s.encode()), (3, "amount", _decimal_bytes)]
    value_counts, nulls, lower, upper = [], [], [], []
    for field_id, name, serialize in columns:
        present = [r[name] for r in rows if r[name] is not None]
        value_counts.append({"key": field_id, "value": len(rows)})
        nulls.append({"key": field_id, "value": len(rows) - len(present)})
        if present:
            lower.append({"key": field_id, "value": serialize(min(present))})
            upper.append({"key": field_id, "value": serialize(max(present))})
    return value_counts, nulls, lower, upper


def write_manifest(path, uri, snapshot_id, files, bucket_count, schema=SCHEMA, by_region=False):
    """A data manifest of ADDED entries (sequence numbers null: inherited from the manifest list)
    for `files` (dicts path, bucket, region, rows, size); `schema` is the table's. Its length in
    bytes."""
    entries = []
    for f in files:
        value_counts, nulls, lower, upper = _column_stats(f["rows"])
        entries.append({
            "status": 1,
            "snapshot_id": snapshot_id,
            "sequence_number": None,
            "file_sequence_number": None,
            "data_file": {
                "content": 0,
                "file_path": f["path"],
                "file_format": "PARQUET",
                "partition": dict({"region": f["region"]} if by_region else {}, id_bucket=f["bucket"]),
                "record_count": len(f["rows"]),
                "file_size_in_bytes": f["size"],
                "column_sizes": None,
                "value_counts": value_counts,
                "null_value_counts": nulls,
                "nan_value_counts": None,
                "lower_bounds": lower,
                "upper_bounds": upper,
                "key_metadata": None,
                "split_offsets": [4],
                "equality_ids": None,
                "sort_order_id": 0,
            },
        })
    metadata = {
        "schema": json.dumps(schema),
        "schema-id": str(schema.get("schema-id", 0)),
        "partition-spec": json.dumps(partition_fields(bucket_count, by_region)),
        "partition-spec-id": "0",
        "format-version": "2",
        "content": "data",
    }
    return write_avro(path, manifest_entry_schema(by_region), metadata, entries)


def manifest_list_record(manifest_uri, length, snapshot_id, sequence_number, files, by_region=False):
    buckets = sorted({f["bucket"] for f in files})
    regions = sorted({f["region"] for f in files})
    summaries = [{"contains_null": False, "contains_nan": False,
                  "lower_bound": regions[0].encode() if regions else None,
                  "upper_bound": regions[-1].encode() if regions else None}] if by_region else []
    return {
        "manifest_path": manifest_uri,
        "manifest_length": length,
        "partition_spec_id": 0,
        "content": 0,
        "sequence_number": sequence_number,
        "min_sequence_number": sequence_number,
        "added_snapshot_id": snapshot_id,
        "added_files_count": len(files),
        "existing_files_count": 0,
        "deleted_files_count": 0,
        "added_rows_count": sum(len(f["rows"]) for f in files),
        "existing_rows_count": 0,
        "deleted_rows_count": 0,
        "partitions": summaries + [{"contains_null": False, "contains_nan": False,
                                    "lower_bound": _int_bytes(buckets[0]) if buckets else None,
                                    "upper_bound": _int_bytes(buckets[-1]) if buckets else None}],
        "key_metadata": None,
    }


def write_manifest_list(path, snapshot_id, parent_id, sequence_number, records):
    metadata = {
        "snapshot-id": str(snapshot_id),
        "parent-snapshot-id": "null" if parent_id is None else str(parent_id),
        "sequence-number": str(sequence_number),
        "format-version": "2",
    }
    return write_avro(path, manifest_file_schema(), metadata, records)


# --- Writing and committing ---------------------------------------------------------------------

def _current_schema(metadata):
    return next(s for s in metadata["schemas"] if s.get("schema-id", 0) == metadata.get("current-schema-id", 0))


def _spec_fields(metadata):
    return next(s for s in metadata["partition-specs"]
                if s["spec-id"] == metadata.get("default-spec-id", 0))["fields"]


def _bucket_count(metadata):
    field = next(f for f in _spec_fields(metadata) if f["source-id"] == 1 and f["transform"].startswith("bucket["))
    return int(field["transform"][len("bucket["):-1])


def _by_region(metadata):
    return any(f["source-id"] == 2 and f["transform"] == "identity" for f in _spec_fields(metadata))


def append_rows(catalog, namespace, name, rows, mink_query_path, env=None, summary_extra=None,
                assert_main=True, operation="append"):
    """Appends `rows` to a table of the catalog (one this module created, or one Mink tiers): data
    files, a manifest, a manifest list that keeps the live manifests of the current snapshot, and a
    commit of a snapshot whose summary's "operation" is `operation` (the summary's other keys:
    `summary_extra`'s, e.g. {"mink-offsets": ...}, over the append's totals), whose requirements
    are the table's uuid and, with `assert_main`, main at the snapshot it read. The commit's answer
    ({"metadata-location", "metadata"}); raises RestError when the catalog refuses it."""
    loaded = catalog.load_table(namespace, name)
    metadata = loaded["metadata"]
    location = metadata["location"].rstrip("/")
    bucket_count = _bucket_count(metadata)
    by_region = _by_region(metadata)
    schema = _current_schema(metadata)
    current = metadata.get("current-snapshot-id")
    parent_id = current if current is not None and current >= 0 else None
    sequence_number = metadata.get("last-sequence-number", 0) + 1
    snapshot_id = random.getrandbits(62) + 1
    commit_uuid = str(uuid.uuid4())
    rows = normalized_rows(rows)

    by_partition = {}  # (region or "", bucket) -> rows
    for r in rows:
        by_partition.setdefault((r["region"] if by_region else "", bucket_of(r["id"], bucket_count)), []).append(r)
    files = []
    for task, (region, b) in enumerate(sorted(by_partition)):
        directory = f"{location}/data/" + (f"region={region}/" if by_region else "") + f"id_bucket={b}"
        uri = f"{directory}/{task:05d}-0-{commit_uuid}-00001.parquet"
        path = local_path(uri)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        size = write_parquet(path, by_partition[(region, b)], mink_query_path, env, schema=schema)
        files.append({"path": uri, "bucket": b, "region": region, "rows": by_partition[(region, b)], "size": size})

    os.makedirs(local_path(f"{location}/metadata"), exist_ok=True)
    manifest_uri = f"{location}/metadata/{commit_uuid}-m0.avro"
    manifest_length = write_manifest(local_path(manifest_uri), manifest_uri, snapshot_id, files, bucket_count,
                                     schema, by_region)
    records = []
    previous_summary = {}
    if parent_id is not None:
        parent = next(s for s in metadata["snapshots"] if s["snapshot-id"] == parent_id)
        previous_summary = parent.get("summary", {})
        records = read_avro(local_path(parent["manifest-list"]))[1]
    records.append(manifest_list_record(manifest_uri, manifest_length, snapshot_id, sequence_number, files,
                                        by_region))
    list_uri = f"{location}/metadata/snap-{snapshot_id}-1-{commit_uuid}.avro"
    write_manifest_list(local_path(list_uri), snapshot_id, parent_id, sequence_number, records)

    def total(key, added):
        return str(int(previous_summary.get(key, "0")) + added)
    added_size = sum(f["size"] for f in files)
    summary = {
        "operation": operation,
        "added-data-files": str(len(files)),
        "added-records": str(len(rows)),
        "added-files-size": str(added_size),
        "changed-partition-count": str(len(files)),
        "total-records": total("total-records", len(rows)),
        "total-files-size": total("total-files-size", added_size),
        "total-data-files": total("total-data-files", len(files)),
        "total-delete-files": total("total-delete-files", 0),
        "total-position-deletes": total("total-position-deletes", 0),
        "total-equality-deletes": total("total-equality-deletes", 0),
    }
    summary.update(summary_extra or {})
    snapshot = {
        "snapshot-id": snapshot_id,
        "sequence-number": sequence_number,
        "timestamp-ms": int(time.time() * 1000),
        "manifest-list": list_uri,
        "summary": summary,
        "schema-id": metadata.get("current-schema-id", 0),
    }
    if parent_id is not None:
        snapshot["parent-snapshot-id"] = parent_id
    requirements = [{"type": "assert-table-uuid", "uuid": metadata["table-uuid"]}]
    if assert_main:
        requirements.append({"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": parent_id})
    updates = [
        {"action": "add-snapshot", "snapshot": snapshot},
        {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": snapshot_id},
    ]
    return catalog.commit_table(namespace, name, requirements, updates)


def create_table(catalog, namespace, name, bucket_count, location=None, properties=None,
                 identifier_field_ids=IDENTIFIER_FIELD_IDS, by_region=False, region_required=False):
    """POST /v1/namespaces/{ns}/tables (no snapshot); the LoadTableResult. `identifier_field_ids`
    None: a schema without "identifier-field-ids"."""
    return catalog.create_table(namespace, create_table_request(name, bucket_count, location, properties,
                                                                identifier_field_ids, by_region, region_required))


def create_table_with_rows(rest_url, token, namespace, name, rows, bucket_count, mink_query_path, env=None,
                           identifier_field_ids=IDENTIFIER_FIELD_IDS, by_region=False, region_required=False):
    """Creates `namespace.name` through the REST catalog at `rest_url` (see create_table) and
    commits one append snapshot of `rows` (see append_rows). The commit's answer:
    {"metadata-location", "metadata"}. `env` is the environment of mink-query (the writer of the
    Parquet files)."""
    catalog = RestCatalog(rest_url, token)
    create_table(catalog, namespace, name, bucket_count, identifier_field_ids=identifier_field_ids,
                 by_region=by_region, region_required=region_required)
    return append_rows(catalog, namespace, name, rows, mink_query_path, env)


# --- Reading back -------------------------------------------------------------------------------

def icebird_read(metadata_location):
    """The rows of the table whose metadata file is `metadata_location` (file://) as icebird (npm)
    reads them (tests/node/icebird_read.mjs with that metadata file: tables committed through the
    REST catalog have no version-hint.text), as a list of dicts with sorted keys, in icebird's
    order. Raises RuntimeError when icebird fails."""
    path = local_path(metadata_location)
    table_dir = os.path.dirname(os.path.dirname(path))
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node", "icebird_read.mjs")
    r = subprocess.run(["node", script, table_dir, os.path.basename(path)], capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"icebird_read.mjs {table_dir}: {r.stderr.strip()[-2000:]}")
    return [json.loads(line) for line in r.stdout.splitlines()]
