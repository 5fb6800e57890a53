#include "table/table_store.h"

#include <chrono>
#include <future>

#include "base/log.h"
#include "metadata/out_of_touch.h"
#include "storage/object_keys.h"
#include "table/arrow_rows.h"
#include "table/kv_state.h"
#include "table/retention.h"
#include "table/row_codec.h"
#include "table/row_router.h"

namespace mink::table {

TableStore::TableStore(metadata::MetadataLog* meta, storage::StreamStore* storage,
                       TableOptions options, const BucketAssignment* assignment,
                       BucketForwarder* forwarder)
    : meta_(meta),
      forwarder_(forwarder),
      storage_(storage),
      options_(options),
      single_node_(storage->node()),
      ownership_(meta, storage, assignment != nullptr ? assignment : &single_node_),
      catalog_(meta, &ownership_),
      buckets_(meta, storage, options.kv_snapshot_records, options.writer_state_replay_offsets),
      log_writer_(&catalog_, &buckets_, storage),
      pk_writer_(meta, storage, &catalog_, &buckets_, options.kv_snapshot_records),
      reader_(meta, storage, &catalog_, &buckets_, options.snapshot_batch_rows),
      stats_(meta, storage, &catalog_),
      bucket_log_(meta, storage, &catalog_),
      lookup_(storage, &catalog_, &buckets_, [this](uint64_t s) { return StreamOwner(s); },
              forwarder),
      preloader_(std::make_unique<BucketPreloader>([this](uint64_t s) { Preload(s); })) {}

TableStore::~TableStore() { Stop(); }

void TableStore::Stop() {
  preloader_.reset();
  pk_writer_.Stop();
}

void TableStore::Preload(uint64_t stream) {
  if (!storage_->Writes(stream)) return;
  auto tables = catalog_.StreamTables();
  auto it = tables.find(stream);
  if (it == tables.end()) return;
  auto table = catalog_.Find(catalog_.TableName(it->second));
  if (!table.ok()) return;
  std::string label = meta_->Read([&](const metadata::State& s) {
    const metadata::StreamState* st = s.FindStream(stream);
    if (st == nullptr) return std::string();
    size_t slash = st->name.find('/');
    return slash == std::string::npos ? st->name : st->name.substr(slash + 1);
  });
  BucketState* bucket = buckets_.Get(stream, label);
  std::lock_guard<std::mutex> lock(bucket->mutex);
  if (!storage_->Writes(stream)) return;
  auto started = std::chrono::steady_clock::now();
  if (Status s = buckets_.Load(**table, bucket); !s.ok()) {
    MINK_LOG_WARN("table", "preloading {} {} failed (its first write loads it): {}",
                  (*table)->name, label, s.ToString());
    return;
  }
  MINK_LOG_INFO("table", "preloaded {} {} in {} ms", (*table)->name, label,
                std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - started).count());
}

Status TableStore::Start() {
  if (!options_.kv_cache_dir.empty()) {
    MINK_ASSIGN_OR_RETURN(auto env, kv::KvEnvironment::Open(options_.kv_cache_dir, options_.kv_memory_bytes));
    buckets_.SetKvEnvironment(std::move(env));
  }
  MINK_ASSIGN_OR_RETURN(size_t taken, ownership_.TakeAssigned());
  if (taken > 0) MINK_LOG_INFO("table", "took back {} bucket streams", taken);
  storage_->SetRetentionPolicy(TableRetentionPolicy(meta_, options_.default_log_ttl.count()));
  pk_writer_.StartPeriodicSnapshots(options_.kv_snapshot_interval);
  return Status::Ok();
}

Result<bool> TableStore::FollowAssignment(std::chrono::milliseconds drain_timeout) {
  BucketOwnership::Moves moves = ownership_.Pending();
  if (moves.empty()) return false;
  buckets_.Invalidate(moves.take);
  Status applied =
      ownership_.Apply(moves, drain_timeout, [&] { CheckpointWriters(moves.release); });
  for (const auto* list : {&moves.take, &moves.release, &moves.lost}) buckets_.Invalidate(*list);
  MINK_RETURN_IF_ERROR(applied);
  if (preloader_) preloader_->Add(moves.take);
  MINK_LOG_INFO("table", "buckets moved: took {}, released {}, lost {}", moves.take.size(),
                moves.release.size(), moves.lost.size());
  return true;
}

Status TableStore::ReleaseAll(std::chrono::milliseconds drain_timeout) {
  std::vector<uint64_t> written;
  for (uint64_t stream : meta_->Read([](const metadata::State& s) { return AllBucketStreams(s); })) {
    if (storage_->Writes(stream)) written.push_back(stream);
  }
  Status released =
      storage_->ReleaseStreams(written, drain_timeout, [&] { CheckpointWriters(written); });
  // After the checkpoint, which takes only states not marked stale.
  buckets_.Invalidate(written);
  return released;
}

void TableStore::CheckpointWriters(const std::vector<uint64_t>& streams) {
  auto states = buckets_.All();
  for (uint64_t stream : streams) {
    auto it = states.find(stream);
    if (it == states.end()) continue;
    BucketState* bucket = it->second;
    std::lock_guard<std::mutex> lock(bucket->mutex);
    // A primary-key bucket rebuilds its writers with its KV state: no checkpoint.
    if (!bucket->loaded || bucket->keyed || bucket->writers_stale ||
        bucket->writers.writers() == 0) {
      continue;
    }
    auto [end, epoch] = meta_->Read([&](const metadata::State& s) {
      const metadata::StreamState* st = s.FindStream(stream);
      return st == nullptr ? std::pair<int64_t, int64_t>{-1, 0}
                           : std::pair<int64_t, int64_t>{st->end_offset, st->epoch};
    });
    if (end < 0 || bucket->writers.MaxEndOffset() > end) continue;  // not settled: no checkpoint
    Status put = storage_->data_store()->Put(storage::WritersCheckpointKey(stream, epoch),
                                             bucket->writers.EncodeCheckpoint(end));
    if (!put.ok()) {
      MINK_LOG_WARN("table", "checkpointing the writers of {} (its next owner replays): {}",
                    bucket->label, put.ToString());
    }
  }
}

Result<int32_t> TableStore::BucketOwner(const std::string& name,
                                        const std::optional<std::string>& partition,
                                        int32_t bucket) const {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_.Find(name));
  MINK_ASSIGN_OR_RETURN(auto refs, catalog_.Buckets(*table, partition, bucket));
  if (refs.empty()) return NotFoundError("no bucket " + std::to_string(bucket) + " in " + name);
  return StreamOwner(refs.front().stream_id);
}

int32_t TableStore::StreamOwner(uint64_t stream_id) const {
  return meta_->Read([&](const metadata::State& s) {
    const metadata::StreamState* st = s.FindStream(stream_id);
    if (st == nullptr || st->owner_node == 0 ||
        st->owner_node_epoch != s.NodeEpoch(st->owner_node)) {
      return int32_t{0};
    }
    return st->owner_node;
  });
}

Result<TableInfo> TableStore::CreateTable(const std::string& name, const TableSpec& spec) {
  LakeSource* lake = lake_.load();
  std::optional<metadata::LakeAttach> attach;
  if (lake != nullptr) {
    MINK_ASSIGN_OR_RETURN(TableDescriptor d, MakeDescriptor(spec));
    if (d.lake_enabled) {
      MINK_ASSIGN_OR_RETURN(attach, lake->PrepareAttach(name, d));
    }
    if (attach && d.has_primary_key()) {
      // The lake's rows become each bucket's KV state at offset 0 (before any write); buckets
      // by index, of the table or of each partition the attach creates.
      const std::string json = d.ToJson();
      auto table = table::Resolve(0, name, json, std::move(d));
      const int32_t buckets = table->d.bucket_count * std::max<int32_t>(1, static_cast<int32_t>(attach->partitions.size()));
      for (int32_t b = 0; b < buckets; ++b) {
        MINK_ASSIGN_OR_RETURN(auto batches, lake->ReadAttached(*table, *attach, b));
        KvState kv;
        for (const auto& batch : batches) {
          for (const Row& row : BatchToRows(*batch, table->types)) {
            std::vector<Value> key;
            for (int k : table->pk) key.push_back(row[static_cast<size_t>(k)]);
            MINK_ASSIGN_OR_RETURN(std::string encoded, EncodeCompactedKey(key, table->pk_types));
            std::string value;
            EncodeRow(row, table->types, &value);
            kv.Put(encoded, std::move(value));
          }
        }
        if (kv.size() == 0) continue;
        const std::string key = storage::AttachedKvSnapshotKey(
            attach->commit.table_uuid, b, storage_->node().node_id, storage_->node().node_epoch,
            std::chrono::system_clock::now().time_since_epoch().count());
        const std::string data = kv.Snapshot(0, table->d.schema.schema_id, "");
        MINK_RETURN_IF_ERROR(storage_->data_store()->Put(key, data));
        attach->kv_snapshots.push_back(
            metadata::CommitKvSnapshot{static_cast<uint64_t>(b), key, storage_->data_bucket_id(), data.size(), 0});
        MINK_LOG_INFO("table", "{}: {} keys of the attached lake table in bucket {}", name, kv.size(), b);
      }
    }
  }
  return catalog_.CreateTable(name, spec, attach);
}

Status TableStore::DropTable(const std::string& name) {
  MINK_ASSIGN_OR_RETURN(std::vector<uint64_t> streams, catalog_.DropTable(name));
  buckets_.Forget(streams);
  return Status::Ok();
}

Result<WriteResult> TableStore::Write(const WriteRequest& request,
                                      const std::vector<arrow::RecordBatchPtr>& batches) {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_.Find(request.table));
  MINK_ASSIGN_OR_RETURN(RoutedWrite routed, RouteRows(*table, request, batches, &sticky_));
  if (routed.rows.empty()) return WriteResult{};
  if (!ownership_.assignment().new_buckets_wait_for_owners()) {
    return WriteHere(*table, request, routed.targets, routed.rows);
  }
  return WriteInCluster(*table, request, routed);
}

Result<WriteResult> TableStore::WriteHere(const ResolvedTable& table, const WriteRequest& request,
                                          const std::vector<bool>& targets,
                                          std::vector<RoutedRow>& rows) {
  if (table.d.has_primary_key()) return pk_writer_.Write(table, request, targets, rows);
  return log_writer_.Write(table, request, rows);
}

Result<std::optional<int32_t>> TableStore::ServedBucket(const ResolvedTable& table,
                                                        const std::string& partition,
                                                        int32_t first) {
  for (int32_t i = 0; i < table.d.bucket_count; ++i) {
    const int32_t bucket = (first + i) % table.d.bucket_count;
    std::string label;
    MINK_ASSIGN_OR_RETURN(uint64_t stream, catalog_.EnsurePartition(table, partition, bucket, &label));
    if (storage_->Writes(stream)) return std::optional<int32_t>(bucket);
  }
  return std::optional<int32_t>();
}

Result<WriteResult> TableStore::WriteInCluster(const ResolvedTable& table,
                                               const WriteRequest& request, RoutedWrite& routed) {
  const int32_t self = storage_->node().node_id;
  if (storage_->Fenced()) {
    // Out of touch with the metadata database: its view of the owners may be stale and nothing
    // it writes can commit. The client retries through another node.
    return UnavailableError(metadata::OutOfTouchMessage(std::to_string(self)) +
                            "; retry the write through another node");
  }
  std::vector<RoutedRow> here;
  std::vector<std::pair<uint64_t, std::string>> here_streams;  // stream, bucket label
  std::map<int32_t, std::vector<const Row*>> elsewhere;
  for (auto& [where, group] : GroupByBucket(routed.rows)) {
    std::string label;
    MINK_ASSIGN_OR_RETURN(uint64_t stream,
                          catalog_.EnsurePartition(table, where.first, where.second, &label));
    const bool idempotent = request.writer_id >= 0 && request.sequence >= 0;
    if (!storage_->Writes(stream) && table.bucket_key.empty() && !idempotent) {
      // Rows without a bucket key may go to any bucket: one this node serves, if it has one.
      // Not an idempotent write's: its bucket follows from its writer and sequence (RouteRows),
      // so a retry through any node reaches the bucket whose writer state knows it.
      MINK_ASSIGN_OR_RETURN(std::optional<int32_t> served,
                            ServedBucket(table, where.first, where.second));
      if (served) {
        for (RoutedRow* r : group) r->bucket = *served;
        MINK_ASSIGN_OR_RETURN(stream, catalog_.EnsurePartition(table, where.first, *served, &label));
      }
    }
    if (storage_->Writes(stream)) {
      for (RoutedRow* r : group) here.push_back(std::move(*r));
      here_streams.emplace_back(stream, label);
      continue;
    }
    const int32_t owner = StreamOwner(stream);
    if (owner == 0 || owner == self || request.forwarded || forwarder_ == nullptr) {
      // Retriable: the bucket is between owners, or the sender's view of its owner was old.
      return UnavailableError(
          "bucket " + label + " of " + table.name + " is " +
          (owner == 0 || owner == self ? std::string("moving between nodes")
                                       : "served by node " + std::to_string(owner)) +
          ", not by node " + std::to_string(self) + "; retry the write");
    }
    for (RoutedRow* r : group) elsewhere[owner].push_back(&r->row);
  }
  // The other nodes' shares are sent while this node writes its own.
  WriteRequest forwarded = request;
  forwarded.forwarded = true;
  std::vector<std::pair<int32_t, std::future<Result<WriteResult>>>> sent;
  for (const auto& [node, rows] : elsewhere) {
    MINK_ASSIGN_OR_RETURN(arrow::RecordBatchPtr batch, RowsToBatch(rows, table.schema, table.types));
    sent.emplace_back(node, std::async(std::launch::async, [this, node, &forwarded, batch] {
                        return forwarder_->Write(node, forwarded, {batch});
                      }));
  }
  Result<WriteResult> local =
      here.empty() ? WriteResult{} : WriteHere(table, request, routed.targets, here);
  // A bucket that moved away while this write was on its way (it started draining, or its
  // commit was fenced by the new owner) is retriable, like one that had moved before the write
  // came: the writer id and sequence keep the retry exact.
  if (!local.ok() && local.status().code() == StatusCode::kAborted) {
    local = UnavailableError(local.status().message() + "; retry the write");
  } else if (!local.ok() && local.status().code() == StatusCode::kFailedPrecondition) {
    for (const auto& [stream, label] : here_streams) {
      if (storage_->Writes(stream)) continue;
      local = UnavailableError("bucket " + label + " of " + table.name + " moved off node " +
                               std::to_string(self) + " during the write; retry the write");
      break;
    }
  }
  WriteResult result;
  Status failure = local.status();
  if (local.ok()) result = std::move(*local);
  for (auto& [node, answer] : sent) {
    Result<WriteResult> remote = answer.get();
    if (!remote.ok()) {
      if (failure.ok()) {
        // Fenced there (the bucket moved, as above), or the node stopped or stalled during
        // the call: the writer id and sequence make a retry exact.
        const StatusCode got = remote.status().code();
        const StatusCode code = got == StatusCode::kAborted || got == StatusCode::kCancelled ||
                                        got == StatusCode::kDeadlineExceeded
                                    ? StatusCode::kUnavailable
                                    : got;
        failure = Status(code, "node " + std::to_string(node) + ": " + remote.status().message());
      }
      continue;
    }
    result.rows += remote->rows;
    for (auto& b : remote->buckets) result.buckets.push_back(std::move(b));
  }
  // Some shares may have been written: a retry with the same writer id and sequence writes
  // only the rest.
  MINK_RETURN_IF_ERROR(failure);
  return result;
}

Result<LakeSnapshotInfo> TableStore::LakeSnapshot(const std::string& name) const {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_.Find(name));
  if (!table->d.lake_enabled) {
    return FailedPreconditionError("table " + name + " is not tiered (mink table create ... --lake iceberg)");
  }
  LakeSnapshotInfo info;
  std::map<uint64_t, int64_t> offsets;
  meta_->Read([&](const metadata::State& s) {
    auto lake = s.lake_tables().find(table->id);
    if (lake == s.lake_tables().end()) return;
    info.snapshot_id = lake->second.snapshot_id;
    info.sequence_number = lake->second.sequence_number;
    info.metadata_location = lake->second.metadata_location;
    if (!lake->second.snapshots.empty()) info.timestamp_ms = lake->second.snapshots.back().timestamp_ms;
    offsets = lake->second.offsets;
  });
  for (const auto& b : catalog_.AllBuckets(*table)) {
    auto o = offsets.find(b.stream_id);
    info.buckets.emplace_back(b.label, o == offsets.end() ? 0 : o->second);
  }
  return info;
}

Result<arrow::SchemaPtr> TableStore::TableSchema(const std::string& name) const {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_.Find(name));
  return table->schema;
}

}  // namespace mink::table
