#pragma once
// A Mink table as an Apache Iceberg v2 table (docs/lake.md): its schema with field ids, its
// partition spec, and the files Iceberg readers read: manifests and manifest lists (Avro) and
// the table metadata (JSON). Parquet data files are written by the tiering worker.
//
// Field ids: a column's Iceberg field id is its Mink column id + 1, so ids survive renames and
// schema changes. Partition spec: an identity partition per Mink partition column (field ids
// from 1000), then bucket[N] of the bucket-key column when there is one (Mink buckets a tiered
// table with Iceberg's bucket transform, so Mink bucket b is Iceberg bucket b).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/random_id.h"
#include "base/result.h"
#include "metadata/state.h"
#include "table/descriptor.h"
#include "table/value.h"

namespace mink::lake {

// A snapshot as table metadata and the REST API's add-snapshot write it (JSON).
std::string SnapshotJson(const metadata::LakeSnapshot& snapshot);

struct IcebergField {
  int32_t id = 0;
  std::string name;
  std::string type;  // Iceberg's type string: "long", "decimal(10,2)", "timestamptz", ...
  bool required = false;
  table::LogicalType mink_type;
};

struct IcebergPartitionField {
  int32_t source_id = 0;
  int32_t field_id = 0;
  std::string name;
  std::string transform;  // "identity" or "bucket[N]"
  std::string avro_type;  // the type of the transform's result in manifests' partition records
  std::string logical_type;  // "date" for a date, else ""
  bool is_bucket = false;
};

// One data or delete file as a manifest entry describes it.
struct ManifestEntry {
  std::string path;
  int32_t content = 0;  // 0 data, 2 equality deletes
  std::vector<std::optional<table::Value>> partition;  // per partition field
  int64_t record_count = 0;
  int64_t size = 0;
  std::vector<int32_t> equality_ids;  // for content 2
  // An entry carried over into a rewritten manifest (EXISTING) names the snapshot that added it
  // and its sequence number; a new one (ADDED, 0 here) inherits both from the manifest.
  int64_t existing_snapshot_id = 0;
  int64_t existing_sequence_number = 0;
  // A new entry's own data sequence number, when it is not the snapshot's: a compaction's file
  // keeps the sequence number of the snapshot it read, so deletes committed since still apply.
  int64_t added_sequence_number = 0;
};

class LakeLayout {
 public:
  // The Iceberg shape of a table of `d`; InvalidArgument for what cannot be tiered.
  static Result<LakeLayout> Of(const table::TableDescriptor& d);

  const std::vector<IcebergField>& fields() const { return fields_; }
  const std::vector<IcebergPartitionField>& partition() const { return partition_; }
  // Field ids of the primary key (Iceberg's identifier fields; equality deletes use them).
  const std::vector<int32_t>& identifier_ids() const { return identifier_ids_; }
  int32_t schema_id() const { return schema_id_; }
  int32_t last_column_id() const { return last_column_id_; }
  int32_t last_partition_id() const {
    return partition_.empty() ? 999 : partition_.back().field_id;
  }

  std::string SchemaJson() const;          // the schema object
  std::string PartitionFieldsJson() const;  // the spec's fields (manifests' "partition-spec")
  // A manifest's partition values of the rows of Mink partition `partition_name` ("" when
  // unpartitioned) and bucket `bucket`.
  Result<std::vector<std::optional<table::Value>>> PartitionValues(const std::string& partition_name,
                                                                   int32_t bucket) const;
  // The other way: the Mink partition name ("" when unpartitioned) and the bucket (0 when the
  // spec has no bucket field) of a file with the manifest partition values `values`. Values the
  // table could not hold (a bucket out of range, a name Mink cannot give a partition) are
  // InvalidArgument.
  Result<std::pair<std::string, int32_t>> PartitionOf(const std::vector<std::optional<table::Value>>& values) const;

  // A manifest (Avro): `entries` added by `snapshot_id` (or carried over, EXISTING); content 0
  // data, 1 deletes.
  std::string Manifest(int32_t content, int64_t snapshot_id,
                       const std::vector<ManifestEntry>& entries) const;
  // A manifest list (Avro) of `manifests`.
  static std::string ManifestList(int64_t snapshot_id, int64_t parent_id, int64_t sequence_number,
                                  const std::vector<metadata::LakeManifest>& manifests);
  // The table metadata (JSON) after `lake`'s last commit, written to `lake.metadata_location`:
  // every schema the table had (current last), its snapshots with the schema each was written in.
  std::string TableMetadata(const metadata::LakeTableState& lake) const;

 private:
  int32_t schema_id_ = 0;
  int32_t last_column_id_ = 0;
  std::vector<IcebergField> fields_;
  std::vector<IcebergPartitionField> partition_;
  std::vector<int32_t> identifier_ids_;
  std::vector<std::string> past_schemas_;  // JSON, oldest first
  int32_t bucket_count_ = 1;
};

}  // namespace mink::lake
