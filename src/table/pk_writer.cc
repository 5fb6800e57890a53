#include "table/pk_writer.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "base/clock.h"
#include "base/log.h"
#include "table/arrow_rows.h"
#include "table/changelog.h"
#include "table/payload.h"
#include "table/pending_append.h"
#include "table/row_codec.h"

namespace mink::table {

using metadata::Command;

Result<WriteResult> PrimaryKeyWriter::Write(const ResolvedTable& table,
                                            const WriteRequest& request,
                                            const std::vector<bool>& targets,
                                            std::vector<RoutedRow>& rows) {
  // The auto-increment column is always written: the key's value, or a new one for a new key.
  const int auto_column = table.d.auto_increment_column.empty()
                              ? -1
                              : table.d.schema.Find(table.d.auto_increment_column);
  std::vector<bool> merge_targets = targets;
  if (auto_column >= 0 && !merge_targets.empty()) merge_targets[static_cast<size_t>(auto_column)] = true;
  MINK_ASSIGN_OR_RETURN(RowMerger merger, RowMerger::Make(table.d, merge_targets));
  const bool is_delete = request.mode == WriteMode::kDelete;
  auto groups = GroupByBucket(rows);
  struct Work {
    BucketState* bucket;
    std::string label;
    uint64_t stream;
    std::vector<RoutedRow*> rows;
    std::map<std::string, std::optional<Row>> updates;  // the KV changes once committed
    PendingAppend pending;
    bool duplicate = false;
    WrittenBatch written;
    storage::BatchInput input;  // the changelog batch; no records: nothing to append
  };
  std::vector<Work> work;
  for (auto& [where, group] : groups) {
    std::string label;
    MINK_ASSIGN_OR_RETURN(uint64_t stream,
                          catalog_->EnsurePartition(table, where.first, where.second, &label));
    BucketState* bucket = buckets_->Get(stream, label);
    work.push_back(Work{bucket, label, stream, group, {}, {}, false, {}, {}});
  }
  // Lock the buckets in stream order (two writers never wait on each other in a cycle).
  std::vector<Work*> order;
  for (auto& w : work) order.push_back(&w);
  std::sort(order.begin(), order.end(), [](Work* a, Work* b) { return a->stream < b->stream; });
  std::vector<std::unique_lock<std::mutex>> locks;
  for (Work* w : order) {
    locks.emplace_back(w->bucket->mutex);
    MINK_RETURN_IF_ERROR(buckets_->LoadToWrite(table, w->bucket));
  }
  // Every bucket's changelog is computed and checked before any is appended, so a write that is
  // refused in one bucket (a sequence out of order, a row the engine refuses) stores nothing in
  // the others, and no KV state is left behind its changelog.
  for (auto& w : work) {
    if (request.writer_id >= 0) {
      MINK_ASSIGN_OR_RETURN(auto written,
                            buckets_->CheckWriter(table, w.bucket, request.writer_id,
                                                  WriterStates::kFirstEpoch, request.sequence, false));
      if (written) {
        w.duplicate = true;
        w.written = *written;
        continue;
      }
    }
    // The stored rows of the write's keys, in one multi-get.
    std::vector<std::string> keys;
    {
      std::unordered_set<std::string_view> seen;
      for (RoutedRow* r : w.rows) {
        if (seen.insert(r->key).second) keys.push_back(r->key);
      }
    }
    MINK_ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> values, w.bucket->kv->MultiGet(keys));
    std::unordered_map<std::string_view, const std::string*> stored;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (values[i]) stored.emplace(keys[i], &*values[i]);
    }
    // The merge engine sees the bucket's state plus the earlier rows of this write.
    std::vector<ChangeRecord> changes;
    for (RoutedRow* r : w.rows) {
      std::optional<Row> old;
      auto pending = w.updates.find(r->key);
      if (pending != w.updates.end()) {
        old = pending->second;
      } else if (auto found = stored.find(r->key); found != stored.end()) {
        MINK_ASSIGN_OR_RETURN(Row row, DecodeRow(*found->second, table.types));
        old = std::move(row);
      }
      if (auto_column >= 0 && !is_delete) {
        const auto c = static_cast<size_t>(auto_column);
        if (old) {
          r->row[c] = (*old)[c];
        } else {
          MINK_ASSIGN_OR_RETURN(int64_t id, NextAutoIncrement(table, w.bucket));
          r->row[c] = Value::Int(id);
        }
      }
      auto next = merger.Apply(old, r->row, is_delete, &changes);
      if (!next.ok()) {
        return InvalidArgumentError("row " + std::to_string(r->line) + ": " + next.status().message());
      }
      w.updates[r->key] = std::move(*next);
    }
    if (changes.empty()) continue;  // nothing changed (deletes of missing keys, first_row)
    std::vector<const Row*> change_rows;
    for (const auto& c : changes) {
      change_rows.push_back(&c.row);
      w.input.change_types.push_back(static_cast<char>(c.type));
    }
    MINK_RETURN_IF_ERROR(FillBatchInput(table, change_rows, request, &w.input));
    w.input.expect_stream_epoch = w.bucket->loaded_epoch;  // the KV state's ownership
  }
  WriteResult result;
  result.rows = static_cast<int64_t>(rows.size());
  Status failure;
  for (auto& w : work) {
    if (w.duplicate || w.input.record_count == 0) continue;
    auto submitted = SubmitAppend(storage_, w.stream, w.label, std::move(w.input));
    if (!submitted.ok()) {
      failure = submitted.status();
      break;
    }
    w.pending = std::move(*submitted);
  }
  for (auto& w : work) {
    if (w.duplicate) {
      result.buckets.push_back({w.label, w.written.base_offset, w.written.end_offset});
      continue;
    }
    if (!w.pending.appended) {
      if (w.input.record_count == 0) {  // nothing to append: the bucket's end, unchanged
        int64_t end = w.bucket->applied_offset;
        result.buckets.push_back({w.label, end, end});
      }
      continue;
    }
    Status s = w.pending.done.get();
    if (!s.ok()) {
      if (failure.ok()) failure = s;
      // The commit may still have landed (an ambiguous failure): rebuild from the log.
      w.bucket->loaded = false;
      w.bucket->kv.reset();
      w.bucket->writers = WriterStates();
      continue;
    }
    // Committed: the KV state takes the new values.
    std::vector<kv::KvChange> changes;
    changes.reserve(w.updates.size());
    for (auto& [key, value] : w.updates) {
      if (value) {
        std::string encoded;
        EncodeRow(*value, table.types, &encoded);
        changes.push_back({key, std::move(encoded)});
      } else {
        changes.push_back({key, std::nullopt});
      }
    }
    if (Status applied = w.bucket->kv->Apply(changes); !applied.ok()) {
      // The write stands (its changelog is committed); the working copy is rebuilt from it.
      MINK_LOG_WARN("table", "{} {}: the working copy is rebuilt: {}", table.name, w.label,
                    applied.ToString());
      w.bucket->loaded = false;
      w.bucket->kv.reset();
      w.bucket->writers = WriterStates();
    }
    w.bucket->applied_offset = w.pending.end;
    if (request.writer_id >= 0) {
      w.bucket->writers.Record(request.writer_id, WriterStates::kFirstEpoch,
                               WrittenBatch{request.sequence, w.pending.base, w.pending.end});
    }
    result.buckets.push_back({w.label, w.pending.base, w.pending.end});
  }
  // The buckets are released first: a snapshot's upload runs without its bucket's mutex.
  locks.clear();
  for (auto& w : work) {
    std::unique_lock<std::mutex> lock(w.bucket->mutex);
    Status snap = MaybeSnapshot(table, w.bucket, false, lock);
    (void)snap;  // a failed snapshot is retried at the next threshold; the write stands
  }
  if (!failure.ok()) return failure;
  return result;
}

Result<int64_t> PrimaryKeyWriter::NextAutoIncrement(const ResolvedTable& table,
                                                    BucketState* bucket) {
  if (bucket->auto_increment_next >= bucket->auto_increment_end) {
    // A new range from the metadata log: the values after every range handed out before, so
    // none is used twice (an unused rest is lost when the bucket moves or the node restarts).
    const int64_t count = table.d.auto_increment_cache_size;
    int64_t first = 0;
    auto seq = meta_->Append([&](const metadata::State& s) -> Result<Command> {
      const metadata::TableState* t = s.FindTable(table.id);
      if (t == nullptr) return NotFoundError("table " + table.name + " does not exist");
      first = t->next_auto_increment;
      return Command(metadata::AllocateAutoIncrement{table.id, first, count});
    });
    if (!seq.ok()) return seq.status();
    bucket->auto_increment_next = first;
    bucket->auto_increment_end = first + count;
  }
  const int64_t id = bucket->auto_increment_next;
  const int c = table.d.schema.Find(table.d.auto_increment_column);
  if (c >= 0 && table.types[static_cast<size_t>(c)].kind == TypeKind::kInt && id > INT32_MAX) {
    return ResourceExhaustedError("auto-increment column '" + table.d.auto_increment_column +
                                  "' of " + table.name + " has used every INT value");
  }
  ++bucket->auto_increment_next;
  return id;
}

Status PrimaryKeyWriter::MaybeSnapshot(const ResolvedTable& table, BucketState* bucket,
                                       bool force, std::unique_lock<std::mutex>& lock) {
  if (!table.d.has_primary_key() || !bucket->loaded) return Status::Ok();
  int64_t pending = bucket->applied_offset - bucket->snapshot_offset;
  if (pending <= 0 || (!force && pending < kv_snapshot_records_)) return Status::Ok();
  const int64_t offset = bucket->applied_offset;
  MINK_RETURN_IF_ERROR(buckets_->WriteSnapshot(bucket, offset, lock));
  MINK_LOG_DEBUG("table", "KV snapshot of {} {} at offset {}", table.name, bucket->label, offset);
  return Status::Ok();
}

Status PrimaryKeyWriter::SnapshotAll(bool only_due) {
  const std::map<uint64_t, int64_t> stream_table = catalog_->StreamTables();
  std::vector<std::pair<int64_t, BucketState*>> all;
  for (auto& [stream, b] : buckets_->All()) {
    if (only_due && !b->snapshot_due) continue;
    auto it = stream_table.find(stream);
    if (it != stream_table.end()) all.emplace_back(it->second, b);
  }
  for (auto& [table_id, bucket] : all) {
    std::string name = catalog_->TableName(table_id);
    if (name.empty()) continue;
    MINK_ASSIGN_OR_RETURN(auto table, catalog_->Find(name));
    if (!table->d.has_primary_key()) {
      MINK_RETURN_IF_ERROR(SnapshotLogWriters(bucket));
      continue;
    }
    std::unique_lock<std::mutex> lock(bucket->mutex);
    // A bucket that moved to another node is that node's to snapshot.
    if (bucket->writers_stale || !storage_->Writes(bucket->stream_id)) continue;
    Status s = MaybeSnapshot(*table, bucket, true, lock);
    if (s.code() == StatusCode::kAborted) {
      // Refused (the stream's epoch moved on since this state was loaded): rebuilt before its
      // next use; the other buckets go on.
      bucket->writers_stale = true;
      continue;
    }
    MINK_RETURN_IF_ERROR(s);
  }
  return Status::Ok();
}

Status PrimaryKeyWriter::SnapshotLogWriters(BucketState* bucket) {
  std::unique_lock<std::mutex> lock(bucket->mutex);
  bucket->snapshot_due = false;
  // The committed end first, then staleness: a failed append marks the writers stale before
  // a later batch can commit at its offsets, so writers not stale now hold no batch that failed
  // below this end.
  const int64_t committed = meta_->Read([&](const metadata::State& s) {
    const metadata::StreamState* st = s.FindStream(bucket->stream_id);
    return st != nullptr ? st->end_offset : 0;
  });
  if (!bucket->loaded || bucket->keyed || bucket->writers_stale ||
      !storage_->Writes(bucket->stream_id) || committed <= bucket->snapshot_offset) {
    return Status::Ok();
  }
  MINK_RETURN_IF_ERROR(buckets_->WriteSnapshot(bucket, committed, lock));
  MINK_LOG_DEBUG("table", "writers snapshot of {} at offset {} ({} writers)", bucket->label,
                 committed, bucket->writers.writers());
  return Status::Ok();
}

void PrimaryKeyWriter::StartPeriodicSnapshots(std::chrono::milliseconds interval) {
  if (interval.count() <= 0) return;
  snapshotter_ = std::thread([this, interval] {
    // Every interval a snapshot of each bucket that moved; in between, once a second, of the
    // log buckets whose writers are due (NoteWritten).
    const auto look = std::min<std::chrono::milliseconds>(interval, std::chrono::seconds(1));
    auto next_all = SteadyNow() + interval;
    std::unique_lock<std::mutex> lock(stop_mutex_);
    while (!stopping_) {
      stop_cv_.wait_for(lock, look, [&] { return stopping_; });
      if (stopping_) break;
      lock.unlock();
      const bool all = SteadyNow() >= next_all;
      if (all) next_all = SteadyNow() + interval;
      Status s = SnapshotAll(/*only_due=*/!all);
      if (!s.ok()) MINK_LOG_WARN("table", "periodic KV snapshots failed: {}", s.ToString());
      lock.lock();
    }
  });
}

void PrimaryKeyWriter::Stop() {
  {
    std::lock_guard<std::mutex> lock(stop_mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (snapshotter_.joinable()) snapshotter_.join();
}

}  // namespace mink::table
