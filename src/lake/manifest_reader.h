#pragma once
// Reading Iceberg manifest lists and manifests (Avro object container files) that any engine
// wrote, with Apache Avro's C library (libavro-dev): reading needs nothing Iceberg-specific of
// the container, unlike writing (decision 0013). Fields are found by name, so files of other
// writers with more fields, or fields in another order, read the same. Only what Mink uses is
// kept.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "table/value.h"

namespace mink::lake {

// One entry of a manifest list: a manifest of a snapshot.
struct ManifestListRecord {
  std::string manifest_path;
  int64_t manifest_length = 0;
  int32_t partition_spec_id = 0;
  int32_t content = 0;  // 0 data, 1 deletes
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  int32_t added_files = 0;
  int32_t existing_files = 0;
  int64_t added_rows = 0;
  int64_t existing_rows = 0;
};

// One entry of a manifest: a data or delete file.
struct ManifestRecord {
  int32_t status = 0;  // 0 EXISTING, 1 ADDED, 2 DELETED
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> sequence_number;  // null: inherited from the manifest list
  int32_t content = 0;                     // 0 data, 1 position deletes, 2 equality deletes
  std::string file_path;
  std::string file_format;
  // The partition tuple, field by field in the spec's order (ints, longs, strings; null as none).
  std::vector<std::optional<table::Value>> partition;
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::vector<int32_t> equality_ids;
};

// The entries of the manifest list in `bytes`; DataLoss naming `what` when it is not one.
Result<std::vector<ManifestListRecord>> ReadManifestList(std::string_view bytes, const std::string& what);
// The entries of the manifest in `bytes`.
Result<std::vector<ManifestRecord>> ReadManifest(std::string_view bytes, const std::string& what);

}  // namespace mink::lake
