#include "lake/compaction.h"

#include <map>
#include <set>

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
  MINK_ASSIGN_OR_RETURN(auto table, tables_->Resolve(name));
  if (!table->d.lake_enabled) return FailedPreconditionError("table " + name + " is not tiered");
  auto read_lake = [&]() -> Result<metadata::LakeTableState> {
    metadata::LakeTableState lake;
    meta_->Read([&](const metadata::State& s) {
      if (auto it = s.lake_tables().find(table->id); it != s.lake_tables().end()) lake = it->second;
    });
    return tiering_->committer()->Prepare(*table, name, std::move(lake));
  };
  // The snapshot it starts from (between two tiering rounds).
  MINK_ASSIGN_OR_RETURN(metadata::LakeTableState lake, tiering_->Exclusive(read_lake));
  std::vector<table::TableBucket> buckets = tables_->AllBuckets(*table);
  const auto per_bucket = FilesPerBucket(lake);
  MINK_ASSIGN_OR_RETURN(SnapshotWriter writer,
                        SnapshotWriter::Start(warehouse_, &parquet_, *table, name, buckets, lake, work_dir_));
  InFlight in_flight(this, writer.file_tag());
  // The rewrite, beside tiering: each due bucket's files of that snapshot, deletes applied, into
  // one file that keeps the snapshot's sequence number, so deletes tiered meanwhile still apply.
  size_t compacted = 0, removed = 0;
  for (const auto& b : buckets) {
    auto n = per_bucket.find(b.stream_id);
    if (n == per_bucket.end() || n->second < min_files) continue;
    std::vector<metadata::LakeFile> files;
    for (const auto& f : lake.files) {
      if (f.stream_id == b.stream_id) files.push_back(f);
    }
    MINK_ASSIGN_OR_RETURN(auto rows, reader_->ReadFiles(*table, files, {}));
    int64_t count = 0;
    for (const auto& batch : rows) count += batch->num_rows();
    MINK_RETURN_IF_ERROR(writer.AddFile(b, 0, table->schema, std::move(rows), count, lake.sequence_number));
    for (const auto& f : files) writer.RemoveFile(f);
    removed += files.size();
    ++compacted;
  }
  if (compacted == 0) return int64_t{0};
  if (before_commit_) before_commit_();
  // The commit, between two tiering rounds: on top of what they committed meanwhile.
  return tiering_->Exclusive([&]() -> Result<int64_t> {
    MINK_ASSIGN_OR_RETURN(metadata::LakeTableState now, read_lake());
    MINK_RETURN_IF_ERROR(writer.Rebase(now));
    MINK_ASSIGN_OR_RETURN(metadata::CommitLakeSnapshot commit, writer.Finish("replace", {}));
    commit.table_id = table->id;
    MINK_RETURN_IF_ERROR(tiering_->committer()->Publish(*table, name, now, std::move(commit)).status());
    MINK_LOG_INFO("lake", "compacted {}: snapshot {} (sequence {}, files of sequence {}), {} buckets, {} files into {}",
                  name, writer.snapshot_id(), writer.sequence_number(), lake.sequence_number, compacted, removed,
                  compacted);
    return writer.snapshot_id();
  });
}

bool LakeCompaction::InFlightTag(const std::string& tag) const {
  std::lock_guard lock(mutex_);
  return in_flight_.count(tag) != 0;
}

LakeCompaction::InFlight::InFlight(LakeCompaction* c, std::string tag) : c_(c), tag_(std::move(tag)) {
  std::lock_guard lock(c_->mutex_);
  c_->in_flight_.insert(tag_);
}

LakeCompaction::InFlight::~InFlight() {
  std::lock_guard lock(c_->mutex_);
  c_->in_flight_.erase(tag_);
}

}  // namespace mink::lake
