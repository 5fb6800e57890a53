#include "table/bucket_state.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <future>
#include <optional>
#include <thread>

#include "base/log.h"
#include "kv/kv_snapshot.h"
#include "storage/object_keys.h"
#include "table/arrow_rows.h"
#include "table/changelog.h"
#include "table/kv_state.h"
#include "table/payload.h"
#include "table/row_codec.h"
#include "table/schema_evolution.h"

namespace mink::table {

using metadata::Command;
using metadata::State;

namespace {

// Segments read at once while replaying: a bucket written by many small WAL objects (one per
// flush) is hundreds of ranged GETs, each a round trip to the object store.
constexpr size_t kParallelSegmentReads = 16;
// Changes written to a working copy in one batch while it is converted or upgraded.
constexpr size_t kChangesPerBatch = 4096;
// The memory budget of the temporary working copies of a BucketStates given no environment.
constexpr uint64_t kTemporaryKvMemory = 64 << 20;

}  // namespace

Status BucketStates::Replay(uint64_t stream_id, int64_t from, int64_t end,
                            const std::function<Status(const storage::Batch&)>& visit) {
  // The parts of the segments that hold [from, end).
  struct Part {
    int64_t start, end;
    uint64_t length;  // the segment's bytes: one read of that size returns it
  };
  std::vector<Part> parts;
  meta_->Read([&](const State& s) {
    const metadata::StreamState* st = s.FindStream(stream_id);
    if (st == nullptr) return;
    auto it = st->segments.upper_bound(from);
    if (it != st->segments.begin()) --it;
    for (; it != st->segments.end() && it->second.start_offset < end; ++it) {
      const metadata::Segment& seg = it->second;
      if (seg.end_offset <= from) continue;
      parts.push_back({std::max(from, seg.start_offset), std::min(end, seg.end_offset),
                       std::max<uint64_t>(seg.length, 1)});
    }
  });
  int64_t at = from;
  // Visits the batches of `r` that continue from `at`.
  auto take = [&](const storage::ReadResult& r, int64_t until) -> Status {
    for (const auto& b : r.batches) {
      if (b->end_offset() <= at) continue;
      if (b->base_offset > at || b->base_offset >= until) break;
      MINK_RETURN_IF_ERROR(visit(*b));
      at = b->end_offset();
    }
    return Status::Ok();
  };
  // Reads on from `at`, in order, up to `until`.
  auto read_on = [&](int64_t until) -> Status {
    while (at < until) {
      MINK_ASSIGN_OR_RETURN(storage::ReadResult more, storage_->Read(stream_id, at, 4 << 20));
      const int64_t before = at;
      MINK_RETURN_IF_ERROR(take(more, end));
      if (at == before) break;
    }
    return Status::Ok();
  };
  for (size_t first = 0; first < parts.size(); first += kParallelSegmentReads) {
    const size_t last = std::min(parts.size(), first + kParallelSegmentReads);
    std::vector<std::future<Result<storage::ReadResult>>> reads;
    for (size_t i = first; i < last; ++i) {
      reads.push_back(std::async(std::launch::async, [this, stream_id, part = parts[i]] {
        return storage_->Read(stream_id, part.start, part.length);
      }));
    }
    for (size_t i = first; i < last; ++i) {
      Result<storage::ReadResult> r = reads[i - first].get();
      if (r.ok()) MINK_RETURN_IF_ERROR(take(*r, parts[i].end));
      // What a read left out (it came back short, failed, or compaction replaced the segment
      // under it) is read again in order.
      MINK_RETURN_IF_ERROR(read_on(parts[i].end));
    }
  }
  // Anything after the segments known when the replay started.
  return read_on(end);
}

BucketStates::~BucketStates() {
  // The working copies close before their environment, which removes their directories.
  buckets_.clear();
  kv_env_.reset();
  std::error_code ec;
  if (!temporary_cache_.empty()) std::filesystem::remove_all(temporary_cache_, ec);
}

void BucketStates::SetKvEnvironment(std::unique_ptr<kv::KvEnvironment> env) {
  std::lock_guard<std::mutex> lock(mutex_);
  kv_env_ = std::move(env);
}

KvStats BucketStates::kv_stats() const {
  KvStats stats;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kv_env_) {
      stats.memory_bytes = kv_env_->MemoryUsage();
      stats.memory_limit_bytes = kv_env_->memory_bytes();
    }
  }
  stats.uploaded_bytes = uploaded_bytes_;
  stats.fetched_bytes = fetched_bytes_;
  return stats;
}

Result<kv::KvEnvironment*> BucketStates::KvEnv() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!kv_env_) {
    std::string dir = (std::filesystem::temp_directory_path() / "mink-kv-XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) return UnavailableError("cannot create a directory for working copies");
    temporary_cache_ = dir;
    MINK_ASSIGN_OR_RETURN(kv_env_, kv::KvEnvironment::Open(dir, kTemporaryKvMemory));
  }
  return kv_env_.get();
}

Result<std::shared_ptr<kv::KvStore>> BucketStates::OpenSnapshot(const BucketState& bucket, bool keyed,
                                                                const std::string& object_key,
                                                                const std::string& bytes,
                                                                int64_t* covered, int32_t* schema_id,
                                                                std::string* writers) {
  MINK_ASSIGN_OR_RETURN(kv::KvEnvironment * env, KvEnv());
  if (kv::IsManifest(bytes)) {
    MINK_ASSIGN_OR_RETURN(kv::SnapshotManifest manifest, kv::DecodeManifest(bytes, object_key));
    *covered = manifest.offset;
    *schema_id = manifest.schema_id;
    *writers = std::move(manifest.writers);
    if (!keyed) return std::shared_ptr<kv::KvStore>();
    kv::RestoreStats stats;
    auto store = kv::RestoreSnapshot(storage_->data_store(), env, bucket.stream_id, manifest, &stats);
    fetched_bytes_ += stats.fetched_bytes;
    if (store.ok() && stats.fetched_files > 0) {
      MINK_LOG_INFO("table", "restored {} from {}: {} of {} files fetched ({} bytes)", bucket.label,
                    object_key, stats.fetched_files, stats.files, stats.fetched_bytes);
    }
    return store;
  }
  // A snapshot of the format before manifests: its entries go into a new working copy.
  MINK_ASSIGN_OR_RETURN(KvState legacy, KvState::Load(bytes, object_key, covered, schema_id, writers));
  if (!keyed) return std::shared_ptr<kv::KvStore>();
  MINK_ASSIGN_OR_RETURN(std::shared_ptr<kv::KvStore> store, env->Create(bucket.stream_id));
  std::vector<kv::KvChange> changes;
  for (const auto& [key, value] : legacy.entries()) {
    changes.push_back({key, value});
    if (changes.size() >= kChangesPerBatch) {
      MINK_RETURN_IF_ERROR(store->Apply(changes));
      changes.clear();
    }
  }
  MINK_RETURN_IF_ERROR(store->Apply(changes));
  return store;
}

BucketState* BucketStates::Get(uint64_t stream_id, const std::string& label) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& b = buckets_[stream_id];
  if (!b) {
    b = std::make_unique<BucketState>();
    b->stream_id = stream_id;
    b->label = label;
  }
  return b.get();
}

void BucketStates::Invalidate(const std::vector<uint64_t>& streams) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (uint64_t s : streams) {
    auto it = buckets_.find(s);
    if (it != buckets_.end()) it->second->writers_stale = true;
  }
}

void BucketStates::Forget(const std::vector<uint64_t>& streams) {
  std::vector<std::unique_ptr<BucketState>> gone;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (uint64_t s : streams) {
      auto it = buckets_.find(s);
      if (it == buckets_.end()) continue;
      gone.push_back(std::move(it->second));
      buckets_.erase(it);
    }
  }
  // A snapshot uploads without the bucket's mutex and takes it again at the end: a state goes
  // only once no snapshot of it runs (bounded: a minute).
  for (const auto& bucket : gone) {
    for (int waited = 0; waited < 6000; ++waited) {
      {
        std::lock_guard<std::mutex> lock(bucket->mutex);
        if (!bucket->snapshotting) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

Status BucketStates::LoadToWrite(const ResolvedTable& table, BucketState* bucket) {
  auto moved = [&](const char* when) {
    bucket->writers_stale = true;
    return AbortedError("bucket " + bucket->label + " of " + table.name + " " + when +
                        " node " + std::to_string(storage_->node().node_id));
  };
  const int64_t epoch = storage_->WriteEpoch(bucket->stream_id);
  if (epoch < 0) return moved("is not written by");
  // A fenced node's appends fail; its answers must all say so, not judge a sequence on a state
  // the log may have moved past (librdkafka takes an out-of-order answer to a retry as fatal).
  if (storage_->Fenced()) return moved("is not written now (out of touch with the metadata database) by");
  if (bucket->loaded && bucket->loaded_epoch != epoch) bucket->writers_stale = true;
  if (!bucket->loaded || bucket->writers_stale) {
    // Rebuilt after an append whose outcome may be unknown: the log may hold that batch while
    // this node has not applied it yet, so the state is rebuilt from the log as it is now.
    if (Status caught = meta_->CatchUp(); !caught.ok()) {
      bucket->writers_stale = true;
      return UnavailableError("the writers of bucket " + bucket->label + " of " + table.name +
                              " are rebuilt from the metadata log, which cannot be read now: " +
                              caught.message());
    }
  }
  MINK_RETURN_IF_ERROR(Load(table, bucket));
  if (bucket->loaded_epoch != epoch) return moved("changed owners while its state was rebuilt on");
  return Status::Ok();
}

Result<std::optional<WrittenBatch>> BucketStates::CheckWriter(const ResolvedTable& table,
                                                              BucketState* bucket,
                                                              int64_t writer_id,
                                                              int16_t writer_epoch,
                                                              int32_t sequence, bool strict) const {
  auto checked = bucket->writers.Check(writer_id, writer_epoch, sequence, strict);
  if (checked.ok() || (StillWrites(*bucket) && !storage_->Fenced())) return checked;
  bucket->writers_stale = true;
  return AbortedError("bucket " + bucket->label + " of " + table.name + " changed owners during the write");
}

std::map<uint64_t, BucketState*> BucketStates::All() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<uint64_t, BucketState*> all;
  for (const auto& [stream, b] : buckets_) all[stream] = b.get();
  return all;
}

Status BucketStates::Load(const ResolvedTable& table, BucketState* bucket) {
  if (bucket->writers_stale.exchange(false)) {
    bucket->loaded = false;
    bucket->writers.Clear();
  }
  if (bucket->loaded) return UpgradeKv(table, bucket);
  // Rebuilt from nothing: what was here may be older than the stream (another node wrote it).
  bucket->kv.reset();
  bucket->writers.Clear();
  bucket->snapshot_offset = 0;
  int64_t start = 0, end = 0, epoch = 0;
  std::optional<metadata::KvSnapshotState> snapshot;
  meta_->Read([&](const State& s) {
    const metadata::StreamState* st = s.FindStream(bucket->stream_id);
    if (st != nullptr) {
      start = st->start_offset;
      end = st->end_offset;
      epoch = st->epoch;
    }
    auto it = s.kv_snapshots().find(bucket->stream_id);
    if (it != s.kv_snapshots().end()) snapshot = it->second;
  });
  int64_t from = start;          // the KV state is rebuilt from here
  int64_t writers_from = start;  // and the writer states from here
  std::string used_checkpoint;
  const bool keyed = table.d.has_primary_key();
  bucket->keyed = keyed;
  bucket->kv_schema_id = table.d.schema.schema_id;
  if (snapshot) {
    // A primary-key bucket's snapshot holds its KV state and writers; a log bucket's only its
    // writers (BucketStates::WriteSnapshot).
    MINK_ASSIGN_OR_RETURN(std::string bytes, storage_->data_store()->Get(snapshot->key));
    int64_t covered = 0;
    int32_t schema_id = 0;
    std::string writers;
    MINK_ASSIGN_OR_RETURN(std::shared_ptr<kv::KvStore> kv,
                          OpenSnapshot(*bucket, keyed, snapshot->key, bytes, &covered, &schema_id,
                                       &writers));
    if (!writers.empty()) {
      int64_t at = 0;
      MINK_ASSIGN_OR_RETURN(bucket->writers, WriterStates::DecodeCheckpoint(writers, &at));
    }
    writers_from = std::max(start, covered);
    bucket->snapshot_offset = covered;
    if (keyed) {
      bucket->kv = std::move(kv);
      bucket->kv_schema_id = schema_id;
      MINK_RETURN_IF_ERROR(UpgradeKv(table, bucket));
      from = writers_from;
    }
  } else if (keyed && start > 0) {
    return DataLossError("bucket " + bucket->label + " of " + table.name +
                         ": the changelog was trimmed to " + std::to_string(start) +
                         " and no KV snapshot covers it");
  } else if (!keyed) {
    // A log bucket never snapshotted (written before its writers were): the trailing offsets.
    writers_from = std::max(start, end - writer_replay_offsets_);
  } else {
    MINK_ASSIGN_OR_RETURN(kv::KvEnvironment * env, KvEnv());
    MINK_ASSIGN_OR_RETURN(bucket->kv, env->Create(bucket->stream_id));
  }
  if (!keyed) {
    from = writers_from;
    // The writers the previous owner left at a planned hand-off, when newer than the snapshot.
    std::string checkpoint;
    if (epoch > 1 && storage_->Writes(bucket->stream_id)) {
      checkpoint = storage::WritersCheckpointKey(bucket->stream_id, epoch - 1);
      if (auto got = storage_->data_store()->Get(checkpoint); got.ok()) {
        int64_t at = 0;
        auto states = WriterStates::DecodeCheckpoint(*got, &at);
        if (states.ok() && at >= std::max(start, bucket->snapshot_offset) && at <= end) {
          bucket->writers = std::move(*states);
          from = writers_from = at;
          used_checkpoint = checkpoint;
        }
      }
    }
  }
  // The changelog's batches are read under the current schema, whatever schema wrote them.
  std::vector<int> all_columns;
  for (int c = 0; c < static_cast<int>(table.types.size()); ++c) all_columns.push_back(c);
  MINK_ASSIGN_OR_RETURN(TableBatchDecoder decoder, TableBatchDecoder::Make(table.d, all_columns));
  MINK_RETURN_IF_ERROR(Replay(bucket->stream_id, from, end, [&](const storage::Batch& batch) {
    const storage::Batch* b = &batch;
    if (b->writer_id >= 0 && b->base_offset >= writers_from) {  // below: the snapshot has it
      int32_t last = table.d.sequence_per_record ? b->batch_sequence + b->record_count - 1 : -1;
      bucket->writers.Record(b->writer_id, b->writer_epoch,
                             WrittenBatch{b->batch_sequence, b->base_offset, b->end_offset(), last,
                                          nullptr, b->timestamp_ms});
    }
    if (keyed && b->end_offset() > from) {
      if (b->schema_id > table.d.schema.schema_id) {
        return UnavailableError("the schema of " + table.name +
                                " changed during the request; retry");
      }
      auto decoded = decoder.Decode(b->payload, b->schema_id);
      if (!decoded.ok()) {
        return decoded.status().WithContext("bucket " + bucket->label + " of " + table.name +
                                            " offset " + std::to_string(b->base_offset));
      }
      std::vector<Row> rows = BatchToRows(**decoded, table.types);
      std::vector<kv::KvChange> changes;
      for (size_t i = 0; i < rows.size(); ++i) {
        if (b->base_offset + static_cast<int64_t>(i) < from) continue;
        auto type = static_cast<ChangeType>(i < b->change_types.size() ? b->change_types[i] : 1);
        if (type == ChangeType::kUpdateBefore) continue;
        std::vector<Value> key_values;
        for (int k : table.pk) key_values.push_back(rows[i][static_cast<size_t>(k)]);
        MINK_ASSIGN_OR_RETURN(std::string key, EncodeCompactedKey(key_values, table.pk_types));
        if (type == ChangeType::kDelete) {
          changes.push_back({std::move(key), std::nullopt});
        } else {
          std::string value;
          EncodeRow(rows[i], table.types, &value);
          changes.push_back({std::move(key), std::move(value)});
        }
      }
      MINK_RETURN_IF_ERROR(bucket->kv->Apply(changes));
    }
    return Status::Ok();
  }));
  bucket->applied_offset = end;
  bucket->loaded_epoch = epoch;
  bucket->loaded = true;
  // Used once: the next hand-off leaves a newer one.
  if (!used_checkpoint.empty()) (void)storage_->data_store()->Delete(used_checkpoint);
  if (keyed) {
    MINK_LOG_INFO("table", "rebuilt {} {} : {} keys, snapshot at {}, replayed {}..{}", table.name,
                  bucket->label, bucket->kv->ApproximateKeys(), bucket->snapshot_offset, from, end);
  }
  return Status::Ok();
}

Status BucketStates::WriteSnapshot(BucketState* bucket, int64_t offset,
                                   std::unique_lock<std::mutex>& lock) {
  if (bucket->snapshotting) return Status::Ok();
  const auto& node = storage_->node();
  const std::string key = "kv/" + std::to_string(bucket->stream_id) + "/" +
                          std::to_string(offset) + "-n" + std::to_string(node.node_id) + "e" +
                          std::to_string(node.node_epoch) + "s" +
                          std::to_string(bucket->snapshot_seq++);
  bucket->writers.Expire(meta_->clock()->NowMillis() - WriterStates::kIdleExpiryMs);
  std::string writers = bucket->writers.EncodeCheckpoint(offset);
  const int32_t schema_id = bucket->kv_schema_id;
  const int64_t stream_epoch = bucket->loaded_epoch > 0 ? bucket->loaded_epoch : 0;
  // The working copy at `offset`: its files, hard-linked while the mutex keeps writes out.
  std::shared_ptr<kv::KvStore> store = bucket->keyed ? bucket->kv : nullptr;
  std::unique_ptr<kv::Checkpoint> checkpoint;
  if (store) {
    MINK_ASSIGN_OR_RETURN(checkpoint, store->MakeCheckpoint());
  }
  bucket->snapshotting = true;
  lock.unlock();
  Status written = CommitSnapshot(bucket->stream_id, bucket->label, key, offset, schema_id,
                                  stream_epoch, std::move(writers), store.get(), checkpoint.get());
  checkpoint.reset();
  lock.lock();
  bucket->snapshotting = false;
  if (written.ok()) bucket->snapshot_offset = std::max(bucket->snapshot_offset, offset);
  return written;
}

Status BucketStates::CommitSnapshot(uint64_t stream_id, const std::string& label,
                                    const std::string& key, int64_t offset, int32_t schema_id,
                                    int64_t stream_epoch, std::string writers, kv::KvStore* store,
                                    const kv::Checkpoint* checkpoint) {
  object_store::ObjectStore* objects = storage_->data_store();
  kv::UploadedSnapshot up;
  if (store != nullptr) {
    // The working copy's files: those the object store holds already are named, not uploaded.
    MINK_ASSIGN_OR_RETURN(kv::KvEnvironment * env, KvEnv());
    MINK_ASSIGN_OR_RETURN(up, kv::UploadCheckpoint(objects, env, *store, *checkpoint, offset,
                                                   schema_id, std::move(writers)));
  } else {
    up.manifest.offset = offset;
    up.manifest.schema_id = schema_id;
    up.manifest.writers = std::move(writers);
  }
  const std::string data = kv::EncodeManifest(up.manifest);
  // Objects nobody will reference: the files just uploaded (keys of their own, never reused).
  auto drop_new = [&] {
    for (const auto& k : up.new_keys) (void)objects->Delete(k);
  };
  if (Status put = objects->Put(key, data); !put.ok()) {
    drop_new();
    return put;
  }
  metadata::CommitKvSnapshot commit{stream_id, key, storage_->data_bucket_id(), data.size(), offset};
  commit.stream_epoch = stream_epoch;
  for (const auto& [name, f] : up.manifest.files) commit.files.push_back({f.key, f.size});
  auto seq = meta_->Append(Command(std::move(commit)));
  if (!seq.ok()) {
    // Refused: nobody references the snapshot. Outcome unknown: the log may, so it stays.
    if (!IsOutcomeUnknown(seq.status())) {
      (void)objects->Delete(key);
      drop_new();
    }
    return seq.status();
  }
  uploaded_bytes_ += up.uploaded_bytes;
  // Confirmed: from now on these files are in the store for the next snapshot to name.
  if (store != nullptr) {
    store->set_stored_files(
        std::map<std::string, kv::StoredFile>(up.manifest.files.begin(), up.manifest.files.end()));
    if (auto env = KvEnv(); env.ok()) kv::PruneCachedFiles(*env, stream_id, up.manifest);
  }
  MINK_LOG_DEBUG("table", "KV snapshot {} of {}: {} files, {} of {} bytes uploaded", key, label,
                 up.manifest.files.size(), up.uploaded_bytes, up.state_bytes);
  return Status::Ok();
}

Status BucketStates::UpgradeKv(const ResolvedTable& table, BucketState* bucket) {
  const int32_t current = table.d.schema.schema_id;
  if (!bucket->keyed || bucket->kv_schema_id == current) return Status::Ok();
  if (bucket->kv_schema_id > current) {
    return UnavailableError("the schema of " + table.name + " changed during the request; retry");
  }
  const TableSchema* from = table.d.SchemaById(bucket->kv_schema_id);
  if (from == nullptr) {
    return DataLossError("bucket " + bucket->label + " of " + table.name + " holds rows of schema " +
                         std::to_string(bucket->kv_schema_id) + ", which the table never had");
  }
  std::vector<LogicalType> from_types;
  for (const auto& c : from->columns) from_types.push_back(c.type);
  // Every row rewritten in place, read from a view taken before the first rewrite.
  std::vector<kv::KvChange> changes;
  auto cursor = bucket->kv->Scan();
  for (; cursor->Valid(); cursor->Next()) {
    MINK_ASSIGN_OR_RETURN(Row row, DecodeRow(cursor->value(), from_types));
    std::string encoded;
    EncodeRow(UpgradeRow(row, *from, table.d.schema), table.types, &encoded);
    changes.push_back({std::string(cursor->key()), std::move(encoded)});
    if (changes.size() >= kChangesPerBatch) {
      MINK_RETURN_IF_ERROR(bucket->kv->Apply(changes));
      changes.clear();
    }
  }
  MINK_RETURN_IF_ERROR(cursor->status());
  MINK_RETURN_IF_ERROR(bucket->kv->Apply(changes));
  bucket->kv_schema_id = current;
  return Status::Ok();
}

}  // namespace mink::table
