// TableStore's write path: validate, route rows to partitions and buckets, append (log tables)
// or run the merge engine and append the changelog (primary-key tables).

#include <algorithm>
#include <future>
#include <set>

#include "table/arrow_rows.h"
#include "table/bucketing.h"
#include "table/changelog.h"
#include "table/payload.h"
#include "table/row_codec.h"
#include "table/table_internal.h"

namespace mink::table {

using metadata::Command;
using metadata::State;

namespace {

// Waits for an append's commit.
struct PendingAppend {
  std::string label;
  uint64_t stream_id = 0;
  int64_t base = 0;
  int64_t end = 0;
  std::shared_ptr<std::promise<Status>> committed;
  std::future<Status> done;
  bool appended = false;
};

Result<PendingAppend> Submit(storage::StreamStore* storage, uint64_t stream_id,
                             const std::string& label, storage::BatchInput input) {
  PendingAppend p;
  p.label = label;
  p.stream_id = stream_id;
  p.committed = std::make_shared<std::promise<Status>>();
  p.done = p.committed->get_future();
  int32_t count = input.record_count;
  auto promise = p.committed;
  MINK_ASSIGN_OR_RETURN(p.base, storage->Append(stream_id, std::move(input),
                                                [promise](Status s) { promise->set_value(s); }));
  p.end = p.base + count;
  p.appended = true;
  return p;
}

std::string BucketLabel(int64_t partition_id, int32_t bucket) {
  std::string b = "b" + std::to_string(bucket);
  return partition_id > 0 ? "p" + std::to_string(partition_id) + "/" + b : b;
}

}  // namespace

Result<uint64_t> TableStore::EnsurePartition(const Table& table, const std::string& partition,
                                             int32_t bucket, std::string* label) {
  auto lookup = [&](const State& s, uint64_t* stream) {
    const metadata::TableState* t = s.FindTable(table.id);
    if (t == nullptr) return false;
    if (!t->partitioned) {
      *stream = t->streams[static_cast<size_t>(bucket)];
      *label = BucketLabel(0, bucket);
      return true;
    }
    auto p = t->partitions.find(partition);
    if (p == t->partitions.end()) return false;
    *stream = p->second.streams[static_cast<size_t>(bucket)];
    *label = BucketLabel(p->second.partition_id, bucket);
    return true;
  };
  uint64_t stream = 0;
  if (meta_->Read([&](const State& s) { return lookup(s, &stream); })) return stream;
  // Created on first write, owned by this node.
  const auto& node = storage_->node();
  auto seq = meta_->Append([&](const State& s) -> Result<Command> {
    const metadata::TableState* t = s.FindTable(table.id);
    if (t == nullptr) return NotFoundError("table " + table.name + " does not exist");
    if (t->partitions.count(partition)) return AlreadyExistsError("created meanwhile");
    return Command(metadata::CreatePartition{table.id, partition, t->next_partition_id,
                                             s.next_stream_id(), node.node_id, node.node_epoch});
  });
  if (!seq.ok() && seq.status().code() != StatusCode::kAlreadyExists) return seq.status();
  std::vector<uint64_t> streams = meta_->Read([&](const State& s) {
    const metadata::TableState* t = s.FindTable(table.id);
    auto p = t ? t->partitions.find(partition) : decltype(t->partitions.end()){};
    return (t && p != t->partitions.end()) ? p->second.streams : std::vector<uint64_t>{};
  });
  storage_->AdoptOwned(streams);
  if (meta_->Read([&](const State& s) { return lookup(s, &stream); })) return stream;
  return NotFoundError("partition " + partition + " of " + table.name + " disappeared");
}

Result<WriteResult> TableStore::Write(const WriteRequest& request,
                                      const std::vector<arrow::RecordBatchPtr>& batches) {
  MINK_ASSIGN_OR_RETURN(auto table_ptr, FindTable(request.table));
  const Table& table = *table_ptr;
  const TableDescriptor& d = table.d;
  const size_t n = table.types.size();
  const bool keyed = d.has_primary_key();
  const bool is_delete = request.mode == WriteMode::kDelete;
  if (is_delete && !keyed) {
    return InvalidArgumentError("deletes need a primary-key table; " + table.name +
                                " is a log table");
  }
  // Which columns the write names: a partial update lists them; otherwise the batches' columns.
  std::vector<bool> targets;
  if (!request.columns.empty()) {
    if (!keyed) return InvalidArgumentError("partial updates need a primary-key table");
    targets.assign(n, false);
    for (const auto& c : request.columns) {
      int i = d.schema.Find(c);
      if (i < 0) return InvalidArgumentError("unknown column '" + c + "' in table " + table.name);
      targets[static_cast<size_t>(i)] = true;
    }
    for (int k : table.pk) targets[static_cast<size_t>(k)] = true;
  }
  // Convert and validate everything before writing anything.
  std::vector<RoutedRow> rows;
  int64_t line = 0;
  for (const auto& batch : batches) {
    const arrow::Schema& schema = *batch->schema();
    std::vector<int> to_table;
    std::vector<bool> present(n, false);
    for (const auto& f : schema.fields()) {
      int i = d.schema.Find(f.name());
      if (i < 0) {
        return InvalidArgumentError("unknown column '" + f.name() + "' in table " + table.name);
      }
      const LogicalType& t = table.types[static_cast<size_t>(i)];
      if (!ArrowTypeMatches(*f.type(), t)) {
        return InvalidArgumentError("column '" + f.name() + "' is " + t.ToString() + " (Arrow " +
                                    ToArrowType(t)->ToString() + "), not Arrow " +
                                    f.type()->ToString());
      }
      to_table.push_back(i);
      present[static_cast<size_t>(i)] = true;
    }
    std::vector<ColumnReader> readers;
    for (int c = 0; c < batch->num_columns(); ++c) {
      readers.emplace_back(batch->Column(c), table.types[static_cast<size_t>(to_table[static_cast<size_t>(c)])]);
    }
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      RoutedRow routed;
      routed.line = ++line;
      routed.row.assign(n, Value());
      for (size_t c = 0; c < readers.size(); ++c) {
        routed.row[static_cast<size_t>(to_table[c])] = readers[c].Get(r);
      }
      for (size_t i = 0; i < n; ++i) {
        const Column& col = d.schema.columns[i];
        bool key = std::find(table.pk.begin(), table.pk.end(), static_cast<int>(i)) != table.pk.end();
        bool checked = key || (!is_delete && (targets.empty() || targets[i]));
        if (checked && col.not_null && routed.row[i].is_null()) {
          return InvalidArgumentError("row " + std::to_string(routed.line) + ": column '" +
                                      col.name + "' is NOT NULL" +
                                      (present[i] ? " but the value is null" : " but missing"));
        }
      }
      if (!table.partition.empty()) {
        auto name = PartitionName(routed.row, table.partition, table.partition_types);
        if (!name.ok()) {
          return InvalidArgumentError("row " + std::to_string(routed.line) + ": " +
                                      name.status().message());
        }
        routed.partition = *name;
      }
      if (!table.bucket_key.empty()) {
        std::vector<Value> key_values;
        for (int k : table.bucket_key) key_values.push_back(routed.row[static_cast<size_t>(k)]);
        auto key = EncodeBucketKey(d.bucket_function, key_values, table.bucket_types);
        if (!key.ok()) {
          return InvalidArgumentError("row " + std::to_string(routed.line) + ": " +
                                      key.status().message());
        }
        routed.bucket = BucketOf(d.bucket_function, *key, d.bucket_count);
      }
      if (keyed) {
        std::vector<Value> key_values;
        for (int k : table.pk) key_values.push_back(routed.row[static_cast<size_t>(k)]);
        MINK_ASSIGN_OR_RETURN(routed.key, EncodeCompactedKey(key_values, table.pk_types));
      }
      rows.push_back(std::move(routed));
    }
  }
  if (rows.empty()) return WriteResult{};
  if (table.bucket_key.empty()) {
    // No bucket key: the whole write goes to one bucket, a different one each time.
    int32_t b = static_cast<int32_t>(sticky_.fetch_add(1) % static_cast<uint64_t>(d.bucket_count));
    for (auto& r : rows) r.bucket = b;
  }
  if (keyed) return WriteKeyed(table, request, targets, rows);
  return WriteLog(table, request, rows);
}

namespace {

// Rows grouped by (partition, bucket), in first-appearance order of the groups.
std::vector<std::pair<std::pair<std::string, int32_t>, std::vector<RoutedRow*>>> Group(
    std::vector<RoutedRow>& rows) {
  std::vector<std::pair<std::pair<std::string, int32_t>, std::vector<RoutedRow*>>> groups;
  std::map<std::pair<std::string, int32_t>, size_t> index;
  for (auto& r : rows) {
    auto key = std::make_pair(r.partition, r.bucket);
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({key, {}});
    groups[it->second].second.push_back(&r);
  }
  return groups;
}

}  // namespace

Result<WriteResult> TableStore::WriteLog(const Table& table, const WriteRequest& request,
                                         std::vector<RoutedRow>& rows) {
  auto groups = Group(rows);
  std::vector<PendingAppend> pending;
  std::vector<std::unique_lock<std::mutex>> locks;
  std::vector<Bucket*> buckets;
  WriteResult result;
  result.rows = static_cast<int64_t>(rows.size());
  Status failure;
  for (auto& [where, group] : groups) {
    std::string label;
    MINK_ASSIGN_OR_RETURN(uint64_t stream, EnsurePartition(table, where.first, where.second, &label));
    Bucket* bucket = nullptr;
    if (request.writer_id >= 0) {
      // An idempotent writer: check and record its sequence under the bucket's lock.
      MINK_ASSIGN_OR_RETURN(bucket, GetBucket(table, stream, label));
      locks.emplace_back(bucket->mutex);
      MINK_RETURN_IF_ERROR(LoadBucket(table, bucket));
      MINK_ASSIGN_OR_RETURN(auto written,
                            bucket->writers.Check(request.writer_id, WriterStates::kFirstEpoch,
                                                  request.sequence, false));
      if (written) {
        result.buckets.push_back({label, written->base_offset, written->end_offset});
        continue;
      }
    }
    std::vector<const Row*> group_rows;
    for (auto* r : group) group_rows.push_back(&r->row);
    MINK_ASSIGN_OR_RETURN(auto batch, RowsToBatch(group_rows, table.schema, table.types));
    storage::BatchInput input;
    input.record_count = static_cast<int32_t>(group_rows.size());
    input.writer_id = request.writer_id;
    input.batch_sequence = request.sequence;
    input.schema_id = table.d.schema.schema_id;
    MINK_ASSIGN_OR_RETURN(input.payload, EncodePayload(*batch, table.codec));
    auto submitted = Submit(storage_, stream, label, std::move(input));
    if (!submitted.ok()) {
      failure = submitted.status();
      break;
    }
    pending.push_back(std::move(*submitted));
    buckets.push_back(bucket);
  }
  for (size_t i = 0; i < pending.size(); ++i) {
    Status s = pending[i].done.get();
    if (!s.ok()) {
      if (failure.ok()) failure = s;
      continue;
    }
    if (buckets[i] != nullptr) {
      buckets[i]->writers.Record(request.writer_id, WriterStates::kFirstEpoch,
                                 WrittenBatch{request.sequence, pending[i].base, pending[i].end});
    }
    result.buckets.push_back({pending[i].label, pending[i].base, pending[i].end});
  }
  if (!failure.ok()) return failure;
  return result;
}

Result<WriteResult> TableStore::WriteKeyed(const Table& table, const WriteRequest& request,
                                           const std::vector<bool>& targets,
                                           std::vector<RoutedRow>& rows) {
  MINK_ASSIGN_OR_RETURN(RowMerger merger, RowMerger::Make(table.d, targets));
  const bool is_delete = request.mode == WriteMode::kDelete;
  auto groups = Group(rows);
  struct Work {
    Bucket* bucket;
    std::string label;
    uint64_t stream;
    std::vector<RoutedRow*> rows;
    std::map<std::string, std::optional<Row>> updates;  // the KV changes once committed
    PendingAppend pending;
    bool duplicate = false;
    WrittenBatch written;
  };
  std::vector<Work> work;
  for (auto& [where, group] : groups) {
    std::string label;
    MINK_ASSIGN_OR_RETURN(uint64_t stream, EnsurePartition(table, where.first, where.second, &label));
    MINK_ASSIGN_OR_RETURN(Bucket * bucket, GetBucket(table, stream, label));
    work.push_back(Work{bucket, label, stream, group, {}, {}, false, {}});
  }
  // Lock the buckets in stream order (two writers never wait on each other in a cycle).
  std::vector<Work*> order;
  for (auto& w : work) order.push_back(&w);
  std::sort(order.begin(), order.end(), [](Work* a, Work* b) { return a->stream < b->stream; });
  std::vector<std::unique_lock<std::mutex>> locks;
  for (Work* w : order) {
    locks.emplace_back(w->bucket->mutex);
    MINK_RETURN_IF_ERROR(LoadBucket(table, w->bucket));
  }
  WriteResult result;
  result.rows = static_cast<int64_t>(rows.size());
  Status failure;
  for (auto& w : work) {
    if (request.writer_id >= 0) {
      MINK_ASSIGN_OR_RETURN(auto written,
                            w.bucket->writers.Check(request.writer_id, WriterStates::kFirstEpoch,
                                                    request.sequence, false));
      if (written) {
        w.duplicate = true;
        w.written = *written;
        continue;
      }
    }
    // The merge engine sees the bucket's state plus the earlier rows of this write.
    std::vector<ChangeRecord> changes;
    for (RoutedRow* r : w.rows) {
      std::optional<Row> old;
      auto pending = w.updates.find(r->key);
      if (pending != w.updates.end()) {
        old = pending->second;
      } else if (const std::string* stored = w.bucket->kv.Get(r->key)) {
        MINK_ASSIGN_OR_RETURN(Row row, DecodeRow(*stored, table.types));
        old = std::move(row);
      }
      auto next = merger.Apply(old, r->row, is_delete, &changes);
      if (!next.ok()) {
        return InvalidArgumentError("row " + std::to_string(r->line) + ": " + next.status().message());
      }
      w.updates[r->key] = std::move(*next);
    }
    if (changes.empty()) {
      // Nothing changed (deletes of missing keys, first_row duplicates): nothing to append.
      w.pending.label = w.label;
      continue;
    }
    std::vector<const Row*> change_rows;
    storage::BatchInput input;
    for (const auto& c : changes) {
      change_rows.push_back(&c.row);
      input.change_types.push_back(static_cast<char>(c.type));
    }
    MINK_ASSIGN_OR_RETURN(auto batch, RowsToBatch(change_rows, table.schema, table.types));
    input.record_count = static_cast<int32_t>(changes.size());
    input.writer_id = request.writer_id;
    input.batch_sequence = request.sequence;
    input.schema_id = table.d.schema.schema_id;
    MINK_ASSIGN_OR_RETURN(input.payload, EncodePayload(*batch, table.codec));
    auto submitted = Submit(storage_, w.stream, w.label, std::move(input));
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
      if (w.pending.label == w.label) {
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
      w.bucket->kv = KvState();
      w.bucket->writers = WriterStates();
      continue;
    }
    // Committed: the KV state takes the new values.
    for (auto& [key, value] : w.updates) {
      if (value) {
        std::string encoded;
        EncodeRow(*value, table.types, &encoded);
        w.bucket->kv.Put(key, std::move(encoded));
      } else {
        w.bucket->kv.Erase(key);
      }
    }
    w.bucket->applied_offset = w.pending.end;
    if (request.writer_id >= 0) {
      w.bucket->writers.Record(request.writer_id, WriterStates::kFirstEpoch,
                               WrittenBatch{request.sequence, w.pending.base, w.pending.end});
    }
    result.buckets.push_back({w.label, w.pending.base, w.pending.end});
  }
  for (auto& w : work) {
    Status snap = MaybeSnapshot(table, w.bucket, false);
    (void)snap;  // a failed snapshot is retried at the next threshold; the write stands
  }
  if (!failure.ok()) return failure;
  return result;
}

Result<TableStore::AppendOutcome> TableStore::AppendToBucket(
    const std::string& name, int32_t bucket_index, const arrow::RecordBatch& batch,
    int64_t max_record_time_ms, const WriterBatch& writer, std::function<void(Status)> done) {
  MINK_ASSIGN_OR_RETURN(auto table, FindTable(name));
  if (table->d.has_primary_key()) {
    return FailedPreconditionError(name + " is a primary-key table; bucket appends need a log table");
  }
  if (!batch.schema()->Equals(*table->schema, false)) {
    return InvalidArgumentError("batch schema does not match table " + name);
  }
  if (batch.num_rows() <= 0) return InvalidArgumentError("an empty batch");
  MINK_ASSIGN_OR_RETURN(uint64_t stream, BucketStream(name, bucket_index));
  storage::BatchInput input;
  input.record_count = static_cast<int32_t>(batch.num_rows());
  input.writer_id = writer.id;
  input.writer_epoch = writer.epoch;
  input.batch_sequence = writer.first_sequence;
  input.schema_id = table->d.schema.schema_id;
  input.max_record_time_ms = max_record_time_ms;
  MINK_ASSIGN_OR_RETURN(input.payload, EncodePayload(batch, table->codec));
  if (writer.id < 0) {
    MINK_ASSIGN_OR_RETURN(int64_t base, storage_->Append(stream, std::move(input), std::move(done)));
    return AppendOutcome{base, false};
  }
  // Idempotent: check, append and record under the bucket's lock, so batches of one writer are
  // checked in the order they are appended. The state counts a batch as written from its append;
  // if the append fails, the state is rebuilt from the log before the next check.
  MINK_ASSIGN_OR_RETURN(Bucket * bucket, GetBucket(*table, stream, "b" + std::to_string(bucket_index)));
  std::unique_lock<std::mutex> lock(bucket->mutex);
  if (bucket->writers_stale.exchange(false)) {
    bucket->loaded = false;
    bucket->writers.Clear();
  }
  MINK_RETURN_IF_ERROR(LoadBucket(*table, bucket));
  MINK_ASSIGN_OR_RETURN(auto written, bucket->writers.Check(writer.id, writer.epoch,
                                                            writer.first_sequence, writer.strict));
  if (written) {
    if (written->Last() != writer.last_sequence) {
      return OutOfRangeError("batch with sequences " + std::to_string(writer.first_sequence) +
                             ".." + std::to_string(writer.last_sequence) +
                             " overlaps an earlier batch of writer " + std::to_string(writer.id));
    }
    lock.unlock();
    // A retry is answered when the batch it repeats is committed, with that commit's status.
    if (written->commit) {
      written->commit->OnDone(std::move(done));
    } else {
      done(Status::Ok());
    }
    return AppendOutcome{written->base_offset, true};
  }
  int32_t count = input.record_count;
  auto commit = std::make_shared<PendingCommit>();
  auto callback = [bucket, commit, done = std::move(done)](Status s) {
    // Rebuild the writer states from what is committed before the next check. (No lock here:
    // this runs on the thread making storage commits, which an appender holding the lock may
    // wait for.)
    if (!s.ok()) bucket->writers_stale = true;
    commit->Resolve(s);
    done(std::move(s));
  };
  MINK_ASSIGN_OR_RETURN(int64_t base, storage_->Append(stream, std::move(input), std::move(callback)));
  bucket->writers.Record(writer.id, writer.epoch,
                         WrittenBatch{writer.first_sequence, base, base + count,
                                      writer.last_sequence, std::move(commit)});
  return AppendOutcome{base, false};
}

}  // namespace mink::table
