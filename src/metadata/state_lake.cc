// The lake domain of the state machine: tiered tables' Iceberg snapshots, files and tiered
// offsets (the built-in lake catalog). A commit must follow the current snapshot (so two
// tiering workers cannot both commit on top of one), and offsets only move forward, up to what
// the bucket streams hold.

#include <algorithm>
#include <set>

#include "metadata/state.h"

namespace mink::metadata {

Status State::CheckCommand(const CommitLakeSnapshot& c) const {
  const TableState* t = FindTable(c.table_id);
  if (t == nullptr) return NotFoundError("table id " + std::to_string(c.table_id) + " does not exist");
  auto lake = lake_tables_.find(c.table_id);
  const int64_t current = lake == lake_tables_.end() ? 0 : lake->second.snapshot_id;
  if (c.parent_snapshot_id != current) {
    return AbortedError("the lake of " + t->full_name() + " is at snapshot " +
                        std::to_string(current) + ", not " + std::to_string(c.parent_snapshot_id));
  }
  const int64_t sequence = lake == lake_tables_.end() ? 0 : lake->second.sequence_number;
  if (c.snapshot.sequence_number != sequence + 1 || c.snapshot.snapshot_id <= 0 ||
      c.snapshot.parent_id != c.parent_snapshot_id) {
    return InvalidArgumentError("lake snapshot " + std::to_string(c.snapshot.snapshot_id) +
                                " does not follow snapshot " + std::to_string(current) +
                                " at sequence number " + std::to_string(sequence + 1));
  }
  if (current == 0 && (c.table_uuid.empty() || c.location.empty())) {
    return InvalidArgumentError("the first lake snapshot names the table's uuid and location");
  }
  std::set<uint64_t> streams(t->streams.begin(), t->streams.end());
  for (const auto& [name, p] : t->partitions) streams.insert(p.streams.begin(), p.streams.end());
  for (const auto& [stream, end] : c.offsets) {
    const StreamState* st = FindStream(stream);
    if (!streams.count(stream) || st == nullptr) {
      return InvalidArgumentError("stream " + std::to_string(stream) + " is not a bucket of " +
                                  t->full_name());
    }
    if (end > st->end_offset) {
      return InvalidArgumentError("lake offset " + std::to_string(end) + " is beyond the end of stream " +
                                  std::to_string(stream));
    }
    if (lake != lake_tables_.end()) {
      auto previous = lake->second.offsets.find(stream);
      if (previous != lake->second.offsets.end() && end < previous->second) {
        return InvalidArgumentError("lake offset of stream " + std::to_string(stream) +
                                    " would move back");
      }
    }
  }
  return Status::Ok();
}

void State::ApplyCommand(const CommitLakeSnapshot& c, int64_t time_ms) {
  LakeTableState& lake = lake_tables_[c.table_id];
  if (lake.snapshot_id == 0) {
    lake.table_uuid = c.table_uuid;
    lake.location = c.location;
  }
  if (!lake.metadata_location.empty()) {
    lake.metadata_log.emplace_back(lake.metadata_location, lake.last_updated_ms);
  }
  lake.metadata_location = c.metadata_location;
  lake.snapshot_id = c.snapshot.snapshot_id;
  lake.sequence_number = c.snapshot.sequence_number;
  lake.last_updated_ms = std::max(time_ms, c.snapshot.timestamp_ms);
  lake.snapshots.push_back(c.snapshot);
  std::set<std::string> removed(c.removed_files.begin(), c.removed_files.end());
  std::erase_if(lake.files, [&](const LakeFile& f) { return removed.count(f.path) > 0; });
  lake.files.insert(lake.files.end(), c.added_files.begin(), c.added_files.end());
  std::set<std::string> gone(c.removed_manifests.begin(), c.removed_manifests.end());
  std::erase_if(lake.manifests, [&](const LakeManifest& m) { return gone.count(m.path) > 0; });
  lake.manifests.insert(lake.manifests.end(), c.added_manifests.begin(), c.added_manifests.end());
  for (const auto& [stream, end] : c.offsets) lake.offsets[stream] = end;
}

}  // namespace mink::metadata
