#include "lake/tiering.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "base/log.h"
#include "lake/snapshot_writer.h"
#include "table/arrow_rows.h"
#include "table/bucketing.h"

namespace mink::lake {
namespace {

using metadata::Command;

// One bucket's share of a snapshot.
struct BucketWork {
  table::TableBucket bucket;
  int64_t from = 0, end = 0;
  std::vector<table::Row> rows;     // data rows
  std::vector<table::Row> deleted;  // a primary-key table's keys touched (full rows, keys set)
};

}  // namespace

Result<int64_t> Tiering::TierTable(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  MINK_ASSIGN_OR_RETURN(auto table, tables_->Resolve(name));
  if (!table->d.lake_enabled) return FailedPreconditionError("table " + name + " is not tiered");
  MINK_ASSIGN_OR_RETURN(LakeLayout layout, LakeLayout::Of(table->d));
  metadata::LakeTableState lake;
  std::map<uint64_t, int64_t> ends;
  meta_->Read([&](const metadata::State& s) {
    if (auto it = s.lake_tables().find(table->id); it != s.lake_tables().end()) lake = it->second;
    for (const auto& b : tables_->AllBuckets(*table)) {
      if (const metadata::StreamState* st = s.FindStream(b.stream_id)) ends[b.stream_id] = st->end_offset;
    }
  });
  // The catalog's view first (rest: a snapshot it has that the state does not is adopted).
  MINK_ASSIGN_OR_RETURN(lake, committer_->Prepare(*table, name, std::move(lake)));
  std::vector<BucketWork> work;
  for (const auto& b : tables_->AllBuckets(*table)) {
    BucketWork w{b, 0, ends[b.stream_id], {}, {}};
    if (auto it = lake.offsets.find(b.stream_id); it != lake.offsets.end()) w.from = it->second;
    if (w.end > w.from) work.push_back(std::move(w));
  }
  if (work.empty()) return 0;

  // The rows: a log table's as they are; a primary-key table's folded by key.
  const bool keyed = table->d.has_primary_key();
  for (auto& w : work) {
    // key -> (its key columns, its latest row; none when deleted)
    std::map<std::string, std::pair<table::Row, std::optional<table::Row>>> latest;
    MINK_RETURN_IF_ERROR(tables_->VisitBucketRows(
        *table, w.bucket.stream_id, w.from, w.end,
        [&](table::Row row, table::ChangeType type, int64_t) -> Status {
          if (!keyed) {
            w.rows.push_back(std::move(row));
            return Status::Ok();
          }
          if (type == table::ChangeType::kUpdateBefore) return Status::Ok();
          std::vector<table::Value> key;
          table::Row keys(table->types.size());
          for (int k : table->pk) {
            key.push_back(row[static_cast<size_t>(k)]);
            keys[static_cast<size_t>(k)] = row[static_cast<size_t>(k)];
          }
          MINK_ASSIGN_OR_RETURN(std::string encoded, table::EncodeCompactedKey(key, table->pk_types));
          auto& entry = latest[encoded];
          entry.first = std::move(keys);
          if (type == table::ChangeType::kDelete) {
            entry.second = std::nullopt;
          } else {
            entry.second = std::move(row);
          }
          return Status::Ok();
        }));
    // Every key touched is deleted from the lake's older rows; its latest row, if any, is added
    // in the same snapshot (an equality delete does not apply to rows of its own snapshot).
    for (auto& [key, entry] : latest) {
      w.deleted.push_back(std::move(entry.first));
      if (entry.second) w.rows.push_back(std::move(*entry.second));
    }
  }

  MINK_ASSIGN_OR_RETURN(SnapshotWriter writer,
                        SnapshotWriter::Start(warehouse_, &parquet_, *table, name, tables_->AllBuckets(*table),
                                              lake, work_dir_));
  // The key columns alone, for delete files.
  std::vector<int> key_columns = table->pk;
  std::sort(key_columns.begin(), key_columns.end());
  std::vector<arrow::Field> key_fields;
  std::vector<table::LogicalType> key_types;
  for (int k : key_columns) {
    key_fields.push_back(table->schema->field(k));
    key_types.push_back(table->types[static_cast<size_t>(k)]);
  }
  const auto key_schema = std::make_shared<arrow::Schema>(std::move(key_fields));

  std::vector<std::pair<uint64_t, int64_t>> offsets;
  bool deletes = false;
  for (const auto& w : work) {
    offsets.emplace_back(w.bucket.stream_id, w.end);
    if (!w.rows.empty()) {
      std::vector<const table::Row*> pointers;
      for (const auto& r : w.rows) pointers.push_back(&r);
      MINK_ASSIGN_OR_RETURN(auto batch, table::RowsToBatch(pointers, table->schema, table->types));
      MINK_RETURN_IF_ERROR(writer.AddFile(w.bucket, 0, table->schema, {batch}, static_cast<int64_t>(w.rows.size())));
    }
    if (!w.deleted.empty()) {
      std::vector<table::Row> keys;
      for (const auto& r : w.deleted) {
        table::Row key;
        for (int k : key_columns) key.push_back(r[static_cast<size_t>(k)]);
        keys.push_back(std::move(key));
      }
      std::vector<const table::Row*> pointers;
      for (const auto& r : keys) pointers.push_back(&r);
      MINK_ASSIGN_OR_RETURN(auto batch, table::RowsToBatch(pointers, key_schema, key_types));
      MINK_RETURN_IF_ERROR(writer.AddFile(w.bucket, 2, key_schema, {batch}, static_cast<int64_t>(keys.size())));
      deletes = true;
    }
  }
  MINK_ASSIGN_OR_RETURN(metadata::CommitLakeSnapshot commit,
                        writer.Finish(deletes ? "overwrite" : "append", std::move(offsets)));
  commit.table_id = table->id;
  const int64_t snapshot_id = writer.snapshot_id(), seq = writer.sequence_number();
  const int64_t added_rows = writer.added_rows(), added_deletes = writer.added_deletes();
  MINK_RETURN_IF_ERROR(committer_->Publish(*table, name, lake, std::move(commit)).status());
  MINK_LOG_INFO("lake", "tiered {}: snapshot {} (sequence {}), {} rows, {} deletes", name,
                snapshot_id, seq, added_rows, added_deletes);
  return snapshot_id;
}

std::vector<std::string> Tiering::DueTables(int64_t now_ms) {
  std::vector<std::string> due;
  auto names = tables_->ListTables("");
  if (!names.ok()) return due;
  for (const auto& name : *names) {
    auto table = tables_->Resolve(name);
    if (!table.ok() || !(*table)->d.lake_enabled) continue;
    bool pending = false;
    int64_t last = 0;
    meta_->Read([&](const metadata::State& s) {
      const metadata::LakeTableState* lake = nullptr;
      if (auto it = s.lake_tables().find((*table)->id); it != s.lake_tables().end()) lake = &it->second;
      last = lake ? lake->last_updated_ms : 0;
      for (const auto& b : tables_->AllBuckets(**table)) {
        const metadata::StreamState* st = s.FindStream(b.stream_id);
        int64_t tiered = 0;
        if (lake) {
          if (auto o = lake->offsets.find(b.stream_id); o != lake->offsets.end()) tiered = o->second;
        }
        if (st != nullptr && st->end_offset > tiered) pending = true;
      }
    });
    if (pending && now_ms - last >= (*table)->d.lake_freshness_ms / 2) due.push_back(name);
  }
  return due;
}

void LakeWorker::Start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { Run(); });
}

void LakeWorker::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LakeWorker::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, poll_, [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    if (active_()) work_();
    lock.lock();
  }
}

}  // namespace mink::lake
