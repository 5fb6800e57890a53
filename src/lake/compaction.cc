#include "lake/compaction.h"

#include <map>

#include "base/log.h"
#include "lake/snapshot_writer.h"

namespace mink::lake {
namespace {

// Live files per bucket stream.
std::map<uint64_t, size_t> FilesPerBucket(const metadata::LakeTableState& lake) {
  std::map<uint64_t, size_t> count;
  for (const auto& f : lake.files) ++count[f.stream_id];
  return count;
}

}  // namespace

std::vector<std::string> LakeCompaction::DueTables() {
  std::vector<std::string> due;
  auto names = tables_->ListTables("");
  if (!names.ok()) return due;
  for (const auto& name : *names) {
    auto table = tables_->Resolve(name);
    if (!table.ok() || !(*table)->d.lake_enabled || !(*table)->d.lake_auto_compaction) continue;
    const bool piled_up = meta_->Read([&](const metadata::State& s) {
      auto lake = s.lake_tables().find((*table)->id);
      if (lake == s.lake_tables().end()) return false;
      for (const auto& [stream, n] : FilesPerBucket(lake->second)) {
        if (n >= kMinFiles) return true;
      }
      return false;
    });
    if (piled_up) due.push_back(name);
  }
  return due;
}

Result<int64_t> LakeCompaction::CompactTable(const std::string& name, size_t min_files) {
  return tiering_->Exclusive([&]() -> Result<int64_t> {
    MINK_ASSIGN_OR_RETURN(auto table, tables_->Resolve(name));
    if (!table->d.lake_enabled) return FailedPreconditionError("table " + name + " is not tiered");
    metadata::LakeTableState lake;
    meta_->Read([&](const metadata::State& s) {
      if (auto it = s.lake_tables().find(table->id); it != s.lake_tables().end()) lake = it->second;
    });
    MINK_ASSIGN_OR_RETURN(lake, tiering_->committer()->Prepare(*table, name, std::move(lake)));
    std::vector<table::TableBucket> buckets = tables_->AllBuckets(*table);
    const auto per_bucket = FilesPerBucket(lake);
    MINK_ASSIGN_OR_RETURN(SnapshotWriter writer,
                          SnapshotWriter::Start(warehouse_, &parquet_, *table, name, buckets, lake, work_dir_));
    size_t compacted = 0, removed = 0;
    for (const auto& b : buckets) {
      auto n = per_bucket.find(b.stream_id);
      if (n == per_bucket.end() || n->second < min_files) continue;
      // The bucket's rows as the lake has them now: deletes applied, under the current schema.
      MINK_ASSIGN_OR_RETURN(auto rows, reader_->ReadBucket(*table, b.stream_id));
      int64_t count = 0;
      for (const auto& batch : rows.rows) count += batch->num_rows();
      MINK_RETURN_IF_ERROR(writer.AddFile(b, 0, table->schema, std::move(rows.rows), count));
      for (const auto& f : lake.files) {
        if (f.stream_id != b.stream_id) continue;
        writer.RemoveFile(f);
        ++removed;
      }
      ++compacted;
    }
    if (compacted == 0) return int64_t{0};
    MINK_ASSIGN_OR_RETURN(metadata::CommitLakeSnapshot commit, writer.Finish("replace", {}));
    commit.table_id = table->id;
    MINK_RETURN_IF_ERROR(tiering_->committer()->Publish(*table, name, lake, std::move(commit)));
    MINK_LOG_INFO("lake", "compacted {}: snapshot {} (sequence {}), {} buckets, {} files into {}", name,
                  writer.snapshot_id(), writer.sequence_number(), compacted, removed, compacted);
    return writer.snapshot_id();
  });
}

}  // namespace mink::lake
