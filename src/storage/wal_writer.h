#pragma once
// WalWriter: the write path of a node. Appends of every stream the node owns gather in one open
// WAL object; it is sealed every wal_flush_interval (or when wal_max_bytes fills), uploaded
// (several uploads in flight, each retried with backoff), and committed to the metadata log in
// seal order, several objects per command when they are ready together (group commit). An append
// is acknowledged (its callback gets OK) only after its object is durable and the commit is in
// the log. The commit names each stream's epoch and offset range; the metadata state refuses a
// stream whose epoch or owner moved on (fencing) or whose range does not continue the committed
// end, and the writer then fails that stream's appends and stops writing it.
//
// Threads: a sealer and an upload pool. The upload thread that finishes the oldest object also
// commits (one at a time; the others leave their objects to it), so a commit costs no hand-off
// to another thread. Append is thread-safe and never blocks on I/O (it waits only when
// max_pending_bytes are in flight). Callbacks run on the committing upload thread (or the
// sealer, for appends dropped before upload) and must be quick.

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/thread_pool.h"
#include "metadata/metadata_log.h"
#include "metrics/metrics.h"
#include "object_store/object_store.h"
#include "storage/batch_format.h"
#include "storage/caches.h"
#include "storage/storage_options.h"

namespace mink::storage {

struct NodeIdentity {
  int32_t node_id = 0;
  int64_t node_epoch = 0;
};

using AppendCallback = std::function<void(Status)>;

class WalWriter {
 public:
  WalWriter(const StorageOptions& options, metadata::MetadataLog* meta,
            object_store::ObjectStore* wal_store, int32_t wal_bucket_id, NodeIdentity node,
            TailCache* tail);
  ~WalWriter();

  // Starts writing a stream this node opened at `epoch`; appends continue at `committed_end`.
  void Adopt(uint64_t stream_id, int64_t epoch, int64_t committed_end);
  // Stops writing a stream; its appends not yet sealed fail with Aborted.
  void Release(uint64_t stream_id);
  // Stops taking appends of these streams and waits (at most `timeout`) until every append
  // already taken was committed or failed, then stops writing them. Whether all settled.
  bool Drain(const std::vector<uint64_t>& stream_ids, std::chrono::milliseconds timeout);
  // Whether this node writes the stream (and is not draining it).
  bool Owns(uint64_t stream_id) const;
  // The epoch at which this node writes the stream, or -1 when it does not (or is draining it).
  int64_t WriteEpoch(uint64_t stream_id) const;

  // Assigns the batch its offsets and queues it; returns its base offset. `done` is called once
  // with OK when the batch is committed, or with the reason it never will be.
  Result<int64_t> Append(uint64_t stream_id, BatchInput input, AppendCallback done);

  // What this node's commits appended to each stream (acknowledged records and their encoded
  // bytes) since the process started, for /metrics.
  struct AppendTotals {
    int64_t records = 0;
    int64_t bytes = 0;
  };
  std::map<uint64_t, AppendTotals> CommittedTotals() const;

  // Seals what is open and finishes everything in flight (uploads and commits are bounded by
  // upload_deadline and the metadata append timeout), then stops the threads.
  void Stop();

 private:
  struct Pending {
    uint64_t stream_id;
    uint64_t generation;
    int64_t epoch;
    int64_t base_offset;
    BatchInput input;
    AppendCallback done;
  };
  struct SealedRun {
    uint64_t stream_id;
    uint64_t generation;
    int64_t epoch;
    int64_t start_offset, end_offset;
    uint64_t position, length;
    int64_t max_timestamp_ms;
    int64_t max_record_time_ms = metadata::kUnknownRecordTime;
    std::vector<BatchPtr> batches;
    std::vector<AppendCallback> callbacks;
  };
  struct Sealed {
    std::string key;
    std::string bytes;  // freed once uploaded
    uint64_t size = 0;
    size_t pending_bytes = 0;
    std::vector<SealedRun> runs;
    SteadyTime sealed_at;
    enum class State { kUploading, kUploaded, kFailed } state = State::kUploading;
    Status error;
  };
  struct Owned {
    int64_t epoch;
    uint64_t generation = 0;  // new on adoption and when offsets are rewound after a failure
    int64_t next_offset;      // offset of the next append
    bool draining = false;    // Drain: no new appends
  };
  // Generations are the writer's, not a stream's: a stream released and adopted again never
  // gets a generation that runs of its earlier ownership still carry.
  uint64_t generations_ = 0;

  void SealLoop();
  // Commits the uploaded objects at the front of sealed_, in seal order, unless another thread
  // is doing so. Called with mutex_ held (it lets go while committing).
  void CommitReady(std::unique_lock<std::mutex>& lock);
  std::shared_ptr<Sealed> Seal(std::vector<Pending> batches);
  void Upload(const std::shared_ptr<Sealed>& sealed);
  // Commits a group of uploaded objects; fails the runs the metadata log refuses.
  void Commit(const std::vector<std::shared_ptr<Sealed>>& group);
  // Fails every append of a run, and rewinds or releases its stream.
  void FailRun(SealedRun* run, const Status& why, bool fenced);
  // Counts a stream's settled appends down (unsettled_). Called with mutex_ held.
  void Settle(uint64_t stream_id, int64_t appends);
  void Finish(const std::vector<std::shared_ptr<Sealed>>& group);

  const StorageOptions options_;
  metadata::MetadataLog* const meta_;
  object_store::ObjectStore* const wal_store_;
  const int32_t wal_bucket_id_;
  const NodeIdentity node_;
  TailCache* const tail_;

  mutable std::mutex mutex_;
  std::condition_variable seal_cv_;    // open object grew, or uploads finished
  std::condition_variable space_cv_;   // pending bytes went down
  std::map<uint64_t, Owned> owned_;
  std::map<uint64_t, int64_t> unsettled_;  // appends taken, not yet committed or failed
  std::vector<Pending> open_;          // the open WAL object
  size_t open_bytes_ = 0;
  SteadyTime open_since_;
  size_t pending_bytes_ = 0;           // appended, not yet committed or failed
  int uploads_in_flight_ = 0;
  bool committing_ = false;            // an upload thread is in CommitReady
  std::deque<std::shared_ptr<Sealed>> sealed_;  // in seal order, until committed or failed
  uint64_t next_object_seq_ = 0;
  int64_t last_timestamp_ms_ = 0;
  bool stopping_ = false;

  mutable std::mutex totals_mutex_;
  std::map<uint64_t, AppendTotals> totals_;  // CommittedTotals
  metrics::Histogram upload_seconds_, commit_seconds_;
  metrics::Counter uploaded_bytes_, upload_retries_;

  ThreadPool uploads_;
  std::thread sealer_;
};

}  // namespace mink::storage
