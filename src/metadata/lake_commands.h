#pragma once
// Metadata commands of the lake domain: the Iceberg snapshots of tiered tables (the built-in
// lake catalog). A commit records a new snapshot, the files it adds and removes, and the offset
// each bucket was tiered to, together: so tiering is exactly once (docs/lake.md).

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metadata/kv_commands.h"

namespace mink::metadata {

// A data or delete file of a lake table.
struct LakeFile {
  std::string path;             // its URI in the warehouse
  int32_t content = 0;          // Iceberg's: 0 data, 2 equality deletes
  int64_t sequence_number = 0;  // the data sequence number of the snapshot that added it
  int64_t snapshot_id = 0;
  uint64_t stream_id = 0;       // the bucket stream whose rows it holds
  int64_t record_count = 0;
  int64_t size = 0;

  bool operator==(const LakeFile&) const = default;
};

// A manifest of a lake table (a manifest list lists every live one).
struct LakeManifest {
  std::string path;
  int64_t length = 0;
  int32_t content = 0;  // 0 data, 1 deletes
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t snapshot_id = 0;  // the snapshot that added it
  int32_t added_files = 0;
  int64_t added_rows = 0;
  int32_t existing_files = 0;  // carried over from earlier manifests (a rewrite)
  int64_t existing_rows = 0;

  bool operator==(const LakeManifest&) const = default;
};

struct LakeSnapshot {
  int64_t snapshot_id = 0;
  int64_t parent_id = 0;  // 0: none
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;
  std::map<std::string, std::string> summary;
  int32_t schema_id = 0;

  bool operator==(const LakeSnapshot&) const = default;
};

struct CommitLakeSnapshot {
  static constexpr std::string_view kKind = "lake.commit";
  int64_t table_id = 0;
  int64_t parent_snapshot_id = 0;  // the table's current lake snapshot (0: its first)
  std::string table_uuid;          // with the first snapshot: the Iceberg table's identity
  std::string location;            // and its location in the warehouse
  LakeSnapshot snapshot;
  std::string metadata_location;   // the metadata file that has the new snapshot
  std::vector<LakeFile> added_files;
  std::vector<std::string> removed_files;
  std::vector<LakeManifest> added_manifests;
  std::vector<std::string> removed_manifests;
  std::vector<std::pair<uint64_t, int64_t>> offsets;  // bucket stream -> tiered below this

  bool operator==(const CommitLakeSnapshot&) const = default;
};

// An existing table of the lake catalog (created by another engine through the Iceberg REST
// API) that a new Mink table takes over: part of that table's table.create, so the Mink table
// exists attached or not at all. Valid while the catalog table's metadata file is still
// `metadata_location`. `commit` is its current snapshot as the first lake.commit of the Mink
// table (no offsets: nothing of the log is in it). A partitioned table is created with the
// `partitions` the lake's files are in (partition ids and streams in that order). Until the
// create assigns the streams, a file's or KV snapshot's stream_id is the index of its bucket
// among the table's: partition index × bucket count + bucket number.
struct LakeAttach {
  std::vector<std::string> space;  // the catalog table's namespace (the Mink database)
  std::string name;
  std::string metadata_location;
  // The table is in an external catalog (lake.catalog = rest), which the state does not hold:
  // nothing of the built-in catalog is checked or removed.
  bool external = false;
  int64_t last_sequence_number = 0;
  std::vector<std::string> partitions;  // of a partitioned table, in the order they are created
  CommitLakeSnapshot commit;
  // A primary-key table's rows in the lake as KV snapshots at offset 0, one per bucket that has
  // rows (stream_id: the bucket's index), so its KV state has them from the start.
  std::vector<CommitKvSnapshot> kv_snapshots;

  bool operator==(const LakeAttach&) const = default;
};

}  // namespace mink::metadata
