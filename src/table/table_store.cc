#include "table/table_store.h"

#include "base/log.h"
#include "table/retention.h"
#include "table/row_router.h"

namespace mink::table {

TableStore::TableStore(metadata::MetadataLog* meta, storage::StreamStore* storage,
                       TableOptions options, const BucketAssignment* assignment)
    : meta_(meta),
      storage_(storage),
      options_(options),
      single_node_(storage->node()),
      ownership_(meta, storage, assignment != nullptr ? assignment : &single_node_),
      catalog_(meta, &ownership_),
      buckets_(meta, storage, options.writer_state_replay_offsets),
      log_writer_(&catalog_, &buckets_, storage),
      pk_writer_(meta, storage, &catalog_, &buckets_, options.kv_snapshot_records),
      reader_(meta, storage, &catalog_, &buckets_, options.snapshot_batch_rows),
      stats_(meta, storage, &catalog_),
      bucket_log_(meta, storage, &catalog_) {}

TableStore::~TableStore() { Stop(); }

void TableStore::Stop() { pk_writer_.Stop(); }

Status TableStore::Start() {
  MINK_ASSIGN_OR_RETURN(size_t taken, ownership_.TakeAssigned());
  if (taken > 0) MINK_LOG_INFO("table", "took back {} bucket streams", taken);
  storage_->SetRetentionPolicy(TableRetentionPolicy(meta_));
  pk_writer_.StartPeriodicSnapshots(options_.kv_snapshot_interval);
  return Status::Ok();
}

Result<bool> TableStore::FollowAssignment(std::chrono::milliseconds drain_timeout) {
  BucketOwnership::Moves moves = ownership_.Pending();
  if (moves.empty()) return false;
  buckets_.Invalidate(moves.take);
  Status applied = ownership_.Apply(moves, drain_timeout);
  for (const auto* list : {&moves.take, &moves.release, &moves.lost}) buckets_.Invalidate(*list);
  MINK_RETURN_IF_ERROR(applied);
  MINK_LOG_INFO("table", "buckets moved: took {}, released {}, lost {}", moves.take.size(),
                moves.release.size(), moves.lost.size());
  return true;
}

Status TableStore::ReleaseAll(std::chrono::milliseconds drain_timeout) {
  std::vector<uint64_t> written;
  for (uint64_t stream : meta_->Read([](const metadata::State& s) { return AllBucketStreams(s); })) {
    if (storage_->Writes(stream)) written.push_back(stream);
  }
  buckets_.Invalidate(written);
  return storage_->ReleaseStreams(written, drain_timeout);
}

Result<int32_t> TableStore::BucketOwner(const std::string& name,
                                        const std::optional<std::string>& partition,
                                        int32_t bucket) const {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_.Find(name));
  MINK_ASSIGN_OR_RETURN(auto refs, catalog_.Buckets(*table, partition, bucket));
  if (refs.empty()) return NotFoundError("no bucket " + std::to_string(bucket) + " in " + name);
  return meta_->Read([&](const metadata::State& s) {
    const metadata::StreamState* st = s.FindStream(refs.front().stream_id);
    if (st == nullptr || st->owner_node == 0 ||
        st->owner_node_epoch != s.NodeEpoch(st->owner_node)) {
      return int32_t{0};
    }
    return st->owner_node;
  });
}

Status TableStore::DropTable(const std::string& name) {
  MINK_ASSIGN_OR_RETURN(std::vector<uint64_t> streams, catalog_.DropTable(name));
  buckets_.Forget(streams);
  return Status::Ok();
}

Result<WriteResult> TableStore::Write(const WriteRequest& request,
                                      const std::vector<arrow::RecordBatchPtr>& batches) {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_.Find(request.table));
  const bool cluster = ownership_.assignment().new_buckets_wait_for_owners();
  std::function<bool(int32_t)> writable;
  if (cluster && !table->d.partitioned()) {
    writable = [&](int32_t bucket) {
      auto stream = catalog_.BucketStream(request.table, bucket);
      return stream.ok() && storage_->Writes(*stream);
    };
  }
  MINK_ASSIGN_OR_RETURN(RoutedWrite routed, RouteRows(*table, request, batches, &sticky_, writable));
  if (routed.rows.empty()) return WriteResult{};
  if (writable) {
    // Nothing is written unless this node serves every bucket the rows go to.
    for (const auto& r : routed.rows) {
      if (writable(r.bucket)) continue;
      MINK_ASSIGN_OR_RETURN(int32_t owner, BucketOwner(request.table, std::nullopt, r.bucket));
      return FailedPreconditionError(
          "bucket b" + std::to_string(r.bucket) + " of " + request.table + " is served by " +
          (owner == 0 ? std::string("no node right now (it is moving)")
                      : "node " + std::to_string(owner)) +
          ", not node " + std::to_string(storage_->node().node_id) + ": write its rows there");
    }
  }
  if (table->d.has_primary_key()) {
    return pk_writer_.Write(*table, request, routed.targets, routed.rows);
  }
  return log_writer_.Write(*table, request, routed.rows);
}

Result<arrow::SchemaPtr> TableStore::TableSchema(const std::string& name) const {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_.Find(name));
  return table->schema;
}

}  // namespace mink::table
