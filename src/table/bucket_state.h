#pragma once
// The working state of the buckets this node writes: a primary-key bucket's KV state (rebuilt
// from its newest KV snapshot plus the changelog after it) and every bucket's idempotent
// writers (rebuilt from its newest snapshot plus the batch headers after it). Never authoritative: it is rebuilt from the stream
// whenever it may be stale (a restart, a failed append).
//
// Thread-safe: the registry locks itself; a bucket's state belongs to whoever holds its mutex.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "kv/kv_store.h"
#include "metadata/metadata_log.h"
#include "storage/stream_store.h"
#include "table/catalog.h"
#include "table/writer_state.h"

namespace mink::table {

struct BucketState {
  uint64_t stream_id = 0;
  std::string label;
  std::mutex mutex;  // serialises writes (primary-key buckets and idempotent writers)
  bool loaded = false;
  bool keyed = false;  // a primary-key bucket (set by Load)
  std::atomic<bool> writers_stale{false};  // an append failed: rebuild the writer states
  // The KV state's working copy (a primary-key bucket's, once loaded; kv/kv_store.h).
  std::shared_ptr<kv::KvStore> kv;
  WriterStates writers;
  int32_t kv_schema_id = 0;
  // The auto-increment values this bucket may still hand out here: [next, end), a range taken
  // from the metadata log (never handed to another bucket or node).
  int64_t auto_increment_next = 0;
  int64_t auto_increment_end = 0;     // the KV state's values are rows of this schema of the table
  int64_t applied_offset = 0;   // the KV state covers the changelog below this offset
  int64_t snapshot_offset = 0;  // the newest snapshot covers the stream below this
  // The stream's epoch in the metadata state the last Load read: the state holds every batch
  // committed by that epoch's owner and the ones before it (the log orders them).
  int64_t loaded_epoch = -1;
  uint64_t snapshot_seq = 0;
  bool snapshotting = false;  // a snapshot's upload and commit run (with the mutex released)
  // A log bucket whose writers moved kv_snapshot_records offsets past its last snapshot: the
  // periodic snapshotter takes one at its next look (the appender does not wait for it).
  std::atomic<bool> snapshot_due{false};
};

// What the working copies of primary-key buckets hold and move (the node's metrics).
struct KvStats {
  uint64_t memory_bytes = 0;        // block cache and memtables in use
  uint64_t memory_limit_bytes = 0;  // their budget
  uint64_t uploaded_bytes = 0;      // SST bytes snapshots uploaded
  uint64_t fetched_bytes = 0;       // SST bytes restores fetched (the rest came from the cache)
};

class BucketStates {
 public:
  // A log bucket is due for a snapshot of its writers every `snapshot_records` offsets. Writer
  // states of a log bucket that has no snapshot yet are rebuilt from at most
  // `writer_replay_offsets` trailing offsets of the stream.
  BucketStates(metadata::MetadataLog* meta, storage::StreamStore* storage,
               int64_t snapshot_records, int64_t writer_replay_offsets)
      : meta_(meta),
        storage_(storage),
        snapshot_records_(snapshot_records),
        writer_replay_offsets_(writer_replay_offsets) {}
  ~BucketStates();

  // Where working copies live: the node's cache directory and memory budget. Until set (and in
  // tests that set none), a temporary directory with a 64 MB budget, made on first use.
  void SetKvEnvironment(std::unique_ptr<kv::KvEnvironment> env);
  KvStats kv_stats() const;

  // The state of the bucket with this stream, created empty (not loaded) on first use.
  BucketState* Get(uint64_t stream_id, const std::string& label);
  // Makes these streams' states be rebuilt before their next use (the bucket moved between
  // nodes, so the stream may hold writes this state has not seen).
  void Invalidate(const std::vector<uint64_t>& streams);
  // Forgets the states of these streams (a dropped table).
  void Forget(const std::vector<uint64_t>& streams);
  // Every state, by stream id.
  std::map<uint64_t, BucketState*> All() const;

  // Rebuilds a bucket's KV state and writer states from the stream if it is not loaded (or
  // its writers are stale), and brings the KV state's rows to the table's current schema. The
  // caller holds bucket->mutex. Unavailable (retriable) when `table` is older than the state
  // (the table's schema changed while the caller held it).
  Status Load(const ResolvedTable& table, BucketState* bucket);
  // Load for a writer of the bucket: the state must be of the ownership this node writes the
  // stream at now, since a state kept from an earlier one misses what the owners between wrote
  // (a retry accepted twice, a sequence refused that is next). Aborted (retriable: the bucket
  // moved) when this node does not write the stream, is fenced, or took it again while it
  // rebuilt. A rebuild first catches up with the log (Unavailable when it cannot be read), so a
  // batch whose commit's answer was lost is judged on the log, not on what this node applied.
  // The writer passes bucket->loaded_epoch as its appends' expect_stream_epoch.
  Status LoadToWrite(const ResolvedTable& table, BucketState* bucket);
  // Whether a writer's answer from this state still stands: this node writes the stream at the
  // epoch the state was loaded at. A refusal (a sequence out of order) is only given when so.
  bool StillWrites(const BucketState& bucket) const {
    return storage_->WriteEpoch(bucket.stream_id) == bucket.loaded_epoch;
  }
  // The writers' check of a batch against a state LoadToWrite loaded: its refusal stands only
  // while this node still writes the bucket at that epoch; else Aborted (the new owner answers
  // the retry).
  Result<std::optional<WrittenBatch>> CheckWriter(const ResolvedTable& table, BucketState* bucket,
                                                  int64_t writer_id, int16_t writer_epoch,
                                                  int32_t sequence, bool strict) const;

  // Writes a snapshot of the bucket at `offset` (every batch below it is committed): its KV
  // state (a primary-key bucket's; a log bucket has none) and its writers that wrote within
  // WriterStates::kIdleExpiryMs, committed to the metadata log. The caller holds `lock` on
  // bucket->mutex: the state is checkpointed under it (a memtable flush at most), then it is
  // released while the files upload and the commit runs, so writes to the bucket go on, and
  // held again on return. Ok without a snapshot while another of the bucket runs. When the
  // commit's outcome is unknown the objects stay (the log may reference them; the orphan sweep
  // removes them if not).
  Status WriteSnapshot(BucketState* bucket, int64_t offset, std::unique_lock<std::mutex>& lock);
  // A log bucket's idempotent writer wrote up to `end`: marks it snapshot_due when that is
  // snapshot_records past its last snapshot.
  void NoteWritten(BucketState* bucket, int64_t end) const {
    if (end - bucket->snapshot_offset >= snapshot_records_) bucket->snapshot_due = true;
  }

 private:
  // Brings a loaded KV state's rows to the table's current schema.
  Status UpgradeKv(const ResolvedTable& table, BucketState* bucket);
  Result<kv::KvEnvironment*> KvEnv();
  // WriteSnapshot's part without the bucket's mutex: uploads the files of `checkpoint` the
  // store does not hold yet (none for a log bucket: `store` null), puts the manifest `key` and
  // commits it.
  Status CommitSnapshot(uint64_t stream_id, const std::string& label, const std::string& key,
                        int64_t offset, int32_t schema_id, int64_t stream_epoch,
                        std::string writers, kv::KvStore* store, const kv::Checkpoint* checkpoint);
  // The working copy of the snapshot object `bytes` (a manifest, or the format before it,
  // converted), with the offset it covers, its rows' schema id and its writers section.
  Result<std::shared_ptr<kv::KvStore>> OpenSnapshot(const BucketState& bucket, bool keyed,
                                                    const std::string& object_key,
                                                    const std::string& bytes, int64_t* covered,
                                                    int32_t* schema_id, std::string* writers);
  // Visits the batches of [from, end) of a stream in offset order, reading up to 16 segments at
  // once (the first batch may start before `from`).
  Status Replay(uint64_t stream_id, int64_t from, int64_t end,
                const std::function<Status(const storage::Batch&)>& visit);

  metadata::MetadataLog* const meta_;
  storage::StreamStore* const storage_;
  const int64_t snapshot_records_;
  const int64_t writer_replay_offsets_;
  mutable std::mutex mutex_;
  std::map<uint64_t, std::unique_ptr<BucketState>> buckets_;  // by stream id
  std::unique_ptr<kv::KvEnvironment> kv_env_;  // guarded by mutex_
  std::string temporary_cache_;                // removed at the end when kv_env_ made it
  std::atomic<uint64_t> uploaded_bytes_{0};
  std::atomic<uint64_t> fetched_bytes_{0};
};

}  // namespace mink::table
