#pragma once
// OrphanSweep: removes the files of tiering and compaction rounds that never committed (a crash,
// a lost race with another coordinator, a failed commit) from tiered tables' locations.
//
// Every file a round writes is named after the round's tag, `<sequence number>-<uuid>`: data
// and delete files `<tag>-<n>.parquet`, manifests `<tag>-m<n>.avro`, the manifest list
// `snap-<snapshot id>-1-<tag>.avro` (docs/lake.md, The Iceberg table). The committed rounds are
// the table's snapshots, whose manifest lists name their tags. A file whose tag is not among
// them and whose sequence number is at most the table's current one belongs to a round that can
// no longer commit (a commit needs the next sequence number), so it is removed; files of a
// later sequence number may be a round in flight and stay. Metadata files, the version hint and
// files of other names (other engines' files in an attached table) are never removed.
//
// Thread-safe.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "lake/tiering.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "table/table_store.h"

namespace mink::lake {

class OrphanSweep {
 public:
  static constexpr int64_t kIntervalMs = 10 * 60 * 1000;

  // `in_flight`: whether a round tag is a snapshot still being written outside the tiering
  // lock (a compaction); its files are spared.
  OrphanSweep(metadata::MetadataLog* meta, table::TableStore* tables, Warehouse* warehouse, Tiering* tiering,
              std::function<bool(const std::string&)> in_flight = nullptr)
      : meta_(meta), tables_(tables), warehouse_(warehouse), tiering_(tiering), in_flight_(std::move(in_flight)) {}

  // Removes the files of `name`'s lake that no committed round wrote; how many.
  Result<size_t> SweepTable(const std::string& name);
  // Sweeps each tiered table once the lake has committed a round after this sweeper first saw
  // the table (so every round cut before this node began tiering is past), then every
  // kIntervalMs. `now_ms` is a steady clock's.
  void RunIfDue(int64_t now_ms);

 private:
  metadata::MetadataLog* const meta_;
  table::TableStore* const tables_;
  Warehouse* const warehouse_;
  Tiering* const tiering_;
  const std::function<bool(const std::string&)> in_flight_;
  struct Seen {
    int64_t first_sequence_number = 0;  // when this sweeper first saw the table
    int64_t last_sweep_ms = -1;         // -1: not swept yet
  };
  std::mutex mutex_;  // guards seen_; RunIfDue runs on the tiering worker only
  std::map<int64_t, Seen> seen_;  // by table id
};

}  // namespace mink::lake
