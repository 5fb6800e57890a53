#pragma once
// PrimaryKeyWriter: writes to primary-key tables. For each bucket a write touches it looks up
// the current row of every key in the bucket's KV state (and the earlier rows of the same
// write), lets the merge engine produce the new row and the changelog records (changelog.h),
// appends the changelog, and applies the new rows to the KV state once the append commits.
// It writes a KV snapshot of a bucket every `kv_snapshot_records` changelog records, and of
// every bucket whose state moved every `kv_snapshot_interval`, so the changelog can expire.
//
// Thread-safe: a write locks its buckets in stream order; snapshots take the bucket's lock.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "metadata/metadata_log.h"
#include "storage/stream_store.h"
#include "table/bucket_state.h"
#include "table/catalog.h"
#include "table/requests.h"
#include "table/row_router.h"

namespace mink::table {

class PrimaryKeyWriter {
 public:
  PrimaryKeyWriter(metadata::MetadataLog* meta, storage::StreamStore* storage, Catalog* catalog,
                   BucketStates* buckets, int64_t kv_snapshot_records)
      : meta_(meta),
        storage_(storage),
        catalog_(catalog),
        buckets_(buckets),
        kv_snapshot_records_(kv_snapshot_records) {}
  ~PrimaryKeyWriter() { Stop(); }

  // Writes routed rows (`targets`: the columns of a partial update, or empty); returns once
  // every bucket's changelog is committed and applied.
  Result<WriteResult> Write(const ResolvedTable& table, const WriteRequest& request,
                            const std::vector<bool>& targets, std::vector<RoutedRow>& rows);

  // Snapshots every bucket this node writes whose state moved since its last snapshot: a
  // primary-key bucket's KV state and writers, a log bucket's idempotent writers (only the log
  // buckets marked snapshot_due with `only_due`).
  Status SnapshotAll(bool only_due = false);
  // Runs SnapshotAll every `interval` on a thread of its own until Stop (0: never), and looks
  // for due log buckets once a second.
  void StartPeriodicSnapshots(std::chrono::milliseconds interval);
  void Stop();

 private:
  // The next value of the table's auto-increment column for a new key of `bucket` (the caller
  // holds its mutex), from the bucket's range, taking a new range when it is used up.
  Result<int64_t> NextAutoIncrement(const ResolvedTable& table, BucketState* bucket);
  // Writes a KV snapshot of the bucket when enough changelog has passed since the last (or,
  // with `force`, any). The caller holds bucket->mutex.
  // The caller holds `lock` on bucket->mutex (released during the upload, held on return).
  Status MaybeSnapshot(const ResolvedTable& table, BucketState* bucket, bool force,
                       std::unique_lock<std::mutex>& lock);
  // Snapshots a log bucket's writers at its committed end, if it moved since the last.
  Status SnapshotLogWriters(BucketState* bucket);

  metadata::MetadataLog* const meta_;
  storage::StreamStore* const storage_;
  Catalog* const catalog_;
  BucketStates* const buckets_;
  const int64_t kv_snapshot_records_;

  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread snapshotter_;
};

}  // namespace mink::table
