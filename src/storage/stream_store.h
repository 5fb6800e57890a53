#pragma once
// StreamStore: the storage layer of one node. Streams are created and opened (owned) through the
// metadata log; the node's WalWriter writes the streams it owns, the StreamReader reads any
// stream, and a maintenance thread compacts WAL objects into per-stream objects, deletes objects
// nobody references any more (after a grace period) and objects that were uploaded but never
// committed, and trims streams by retention.
//
// Thread-safe. Stop() (or the destructor) finishes in-flight writes and stops the threads.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/thread_pool.h"
#include "metadata/metadata_log.h"
#include "object_store/object_store.h"
#include "storage/caches.h"
#include "storage/storage_options.h"
#include "storage/stream_reader.h"
#include "storage/wal_writer.h"

namespace mink::storage {

struct StoreSet {
  std::shared_ptr<object_store::ObjectStore> data;  // stream objects
  int32_t data_bucket_id = -2;
  std::shared_ptr<object_store::ObjectStore> wal;   // WAL objects
  int32_t wal_bucket_id = -3;
};

struct AppendResult {
  int64_t base_offset = 0;
  int64_t end_offset = 0;
};

// How long a stream keeps its data, and how far it may be trimmed at most (a primary-key
// changelog only as far as its newest KV snapshot covers).
struct RetentionRule {
  int64_t ttl_ms = 0;  // 0 = forever
  int64_t max_trim_offset = INT64_MAX;
};
using RetentionPolicy = std::function<RetentionRule(uint64_t stream_id)>;

struct MaintenanceStats {
  uint64_t compactions = 0;        // ReplaceSegments committed
  uint64_t objects_deleted = 0;    // unreferenced objects deleted after the grace period
  uint64_t orphans_deleted = 0;    // uploaded-but-never-committed objects deleted
  uint64_t trims = 0;
};

class StreamStore {
 public:
  // Registers a new process epoch of `node_id` in the metadata log (fencing older processes of
  // the same node) and returns the identity to open the store with.
  static Result<NodeIdentity> RegisterNode(metadata::MetadataLog* meta, int32_t node_id);

  // `maintenance` = false leaves compaction, GC and retention to explicit Run* calls (tests).
  static Result<std::unique_ptr<StreamStore>> Open(const StorageOptions& options,
                                                   metadata::MetadataLog* meta, StoreSet stores,
                                                   NodeIdentity node, bool maintenance = true);
  ~StreamStore();
  void Stop();
  // Stops compaction, GC and retention (a pass in progress ends at its next object), so a node
  // that is stopping does no maintenance while it hands its streams on. Stop calls it too.
  void StopMaintenance();

  // A new stream (not yet owned by anyone).
  Result<uint64_t> CreateStream(const std::string& name);
  // Takes ownership of a stream at its epoch + 1 (fencing the previous owner) and starts writing
  // it at its committed end.
  Status OpenStream(uint64_t stream_id) { return OpenStreams({stream_id}); }
  // The same for several streams with one metadata command. A stream another owner took again
  // before this call read the outcome is skipped (Writes says which were opened).
  Status OpenStreams(const std::vector<uint64_t>& stream_ids);
  // Starts writing streams the metadata already shows as owned by this node process (created
  // owned, e.g. with a table). Streams owned by someone else are skipped.
  void AdoptOwned(const std::vector<uint64_t>& stream_ids);
  bool Writes(uint64_t stream_id) const { return writer_->Owns(stream_id); }
  // The epoch at which this node writes the stream, or -1 when it does not.
  int64_t WriteEpoch(uint64_t stream_id) const { return writer_->WriteEpoch(stream_id); }
  // Stops writing a stream here (local; the next owner fences us anyway).
  void CloseStream(uint64_t stream_id);
  // Gives streams up for another node to open (a planned move, a shutdown): stops taking
  // appends of them, waits at most `drain_timeout` for those taken to be committed or failed,
  // then releases the ones this node process still owns (one metadata command).
  // `drained`, if given, runs before the release when every append was settled in time (the
  // streams' ends are final): the table layer hands over what it keeps of them.
  Status ReleaseStreams(const std::vector<uint64_t>& stream_ids,
                        std::chrono::milliseconds drain_timeout,
                        const std::function<void()>& drained = {});
  Status DeleteStream(uint64_t stream_id);

  // Queues a batch and returns its base offset; `done` gets OK once the batch is committed.
  Result<int64_t> Append(uint64_t stream_id, BatchInput input, AppendCallback done);
  // Appends and waits for the commit.
  Result<AppendResult> AppendAndWait(uint64_t stream_id, BatchInput input);

  Result<ReadResult> Read(uint64_t stream_id, int64_t offset, size_t max_bytes,
                          std::chrono::milliseconds max_wait = std::chrono::milliseconds(0)) {
    return reader_->Read(stream_id, offset, max_bytes, max_wait);
  }
  // Makes offsets below `new_start` unreadable.
  Status Trim(uint64_t stream_id, int64_t new_start);
  // The first offset whose batch was committed at or after `timestamp_ms` (the end offset if
  // there is none).
  Result<int64_t> OffsetAtTime(uint64_t stream_id, int64_t timestamp_ms);
  // Offset ranges [first, second) of the committed segments that may hold a record whose
  // timestamp is at or after `record_time_ms`, in offset order with adjacent ones merged: the
  // segments whose record-time bound reaches it, and of those without a bound, the ones
  // committed at or after `record_time_ms - undeclared_slack_ms`. Empty for an unknown stream.
  std::vector<std::pair<int64_t, int64_t>> RecordTimeRanges(uint64_t stream_id,
                                                            int64_t record_time_ms,
                                                            int64_t undeclared_slack_ms);

  // Per-stream retention (the table layer's TTLs); without a policy every stream keeps its data
  // for options.retention.
  void SetRetentionPolicy(RetentionPolicy policy);
  // Whether the maintenance thread's garbage collection runs now (default: always). A cluster
  // runs it on the coordinator alone, so that one node deletes objects and forgets them; each
  // node compacts and trims only the streams it owns.
  void SetGarbageCollectionGate(std::function<bool()> gate);
  // Whether this node is fenced off the cluster now (it has not reached the metadata database
  // for too long: cluster::DatabaseTouch): Append then refuses at once (Aborted, as a bucket
  // that moved away) instead of waiting for a commit that cannot come. Set before the first
  // Append; without one a node never fences itself.
  void SetFence(std::function<bool()> fenced) { fenced_ = std::move(fenced); }
  bool Fenced() const { return fenced_ && fenced_(); }

  // One run of each maintenance task (the maintenance thread runs them periodically).
  // Compaction compacts each owned stream until nothing in it is worth compacting (at most 64
  // objects of stream_object_bytes per stream and run).
  Status RunCompaction();
  Status RunGarbageCollection();
  Status RunRetention();
  MaintenanceStats maintenance_stats() const;
  ReadStats read_stats() const { return reader_->stats(); }
  // Records and bytes this node's commits appended to each stream (WalWriter::CommittedTotals).
  std::map<uint64_t, WalWriter::AppendTotals> append_totals() const { return writer_->CommittedTotals(); }

  const NodeIdentity& node() const { return node_; }
  // The store for objects other than WAL objects (stream objects, KV snapshots).
  object_store::ObjectStore* data_store() const { return stores_.data.get(); }
  int32_t data_bucket_id() const { return stores_.data_bucket_id; }
  metadata::MetadataLog* meta() { return meta_; }

 private:
  StreamStore(const StorageOptions& options, metadata::MetadataLog* meta, StoreSet stores,
              NodeIdentity node);
  void MaintenanceLoop();
  object_store::ObjectStore* StoreFor(int32_t bucket_id) const;
  // Whether this node owns `stream_id` in the metadata state, with its epoch and committed end.
  bool OwnedStream(uint64_t stream_id, int64_t* epoch, int64_t* end) const;
  // Compacts one stream's oldest eligible run of segments into one stream object; false when
  // nothing was worth it, or the stream changed meanwhile (the metadata log refused the swap).
  Result<bool> CompactStream(uint64_t stream_id);

  const StorageOptions options_;
  metadata::MetadataLog* const meta_;
  const StoreSet stores_;
  const NodeIdentity node_;
  TailCache tail_;
  BlockCache blocks_;
  std::unique_ptr<StreamReader> reader_;
  std::unique_ptr<WalWriter> writer_;

  bool Stopping() const;  // StopMaintenance was called
  mutable std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  MaintenanceStats stats_;
  RetentionPolicy retention_policy_;
  std::function<bool()> gc_gate_;  // under mutex_
  std::function<bool()> fenced_;   // set once, before appends
  uint64_t next_object_seq_ = 0;
  // Compaction's ranged GETs, a window at a time, and garbage collection's deletes
  // (maintenance.cc); before maintenance_, which uses it and is joined first.
  ThreadPool compaction_loads_{8, "compaction-load"};
  // Garbage collection, on the maintenance thread only: whether the last pass left expired
  // objects for the next (which then runs at once), and when the orphan sweep last listed.
  bool gc_backlog_ = false;
  SteadyTime last_orphan_sweep_{};
  std::thread maintenance_;
};

}  // namespace mink::storage
