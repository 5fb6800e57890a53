#pragma once
// Settings of the storage layer; `mink serve` fills them from its configuration (wal.*,
// storage.*, compaction.*, retention.*).

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace mink::storage {

struct StorageOptions {
  // WAL: one object per flush interval or when max_bytes fills, several uploads in flight.
  std::chrono::milliseconds wal_flush_interval{10};
  size_t wal_max_bytes = 8 << 20;
  int wal_max_inflight_uploads = 4;
  // Seal the open object at once, without waiting for the flush interval, while fewer than this
  // many uploads are running and it is smaller than wal_eager_max_bytes (0: only the interval
  // and max_bytes seal). An append at a low rate then waits only for its Put and commit, and
  // appends that arrive while the upload runs are grouped into the next object (group commit).
  // At high rates the open object outgrows the limit during an upload, so the interval's larger
  // objects, several uploads at once, keep the throughput (unlimited, small objects collapsed it).
  int wal_eager_uploads = 1;
  size_t wal_eager_max_bytes = 256 << 10;
  // Seal at once, without waiting for the flush interval, when the open object holds at least
  // this many bytes and an upload slot is free (0: off). Under moderate load an append then
  // waits for a short upload of a small object instead of the interval plus a long upload; at
  // full load every slot is busy, so objects grow larger while they wait and keep throughput.
  size_t wal_seal_bytes = 512 << 10;
  // Appends wait (then fail with ResourceExhausted) while this much is not yet committed.
  size_t max_pending_bytes = 256 << 20;
  std::chrono::milliseconds append_wait_timeout{10'000};
  // An upload is retried with backoff until this long has passed, then its appends fail.
  std::chrono::milliseconds upload_deadline{30'000};
  // WAL objects committed together at most (group commit).
  int max_objects_per_commit = 32;

  // Reads: recent committed batches of owned streams stay in memory; fetched runs are cached.
  size_t tail_bytes_per_stream = 4 << 20;
  size_t block_cache_bytes = 64 << 20;
  int read_threads = 4;

  // Compaction of WAL runs into per-stream objects of ~stream_object_bytes, in blocks of
  // ~block_bytes; WAL objects younger than compaction_min_age are left alone.
  std::chrono::milliseconds compaction_interval{30'000};
  std::chrono::milliseconds compaction_min_age{10'000};
  size_t stream_object_bytes = 64 << 20;
  size_t block_bytes = 1 << 20;
  // Stream objects smaller than this are merged with their neighbours.
  size_t small_object_bytes = 8 << 20;

  // Garbage: replaced objects are deleted after delete_grace; objects that were uploaded but
  // never committed are deleted once older than orphan_grace (and never committed after half of
  // it, so the sweep cannot race a late commit).
  std::chrono::milliseconds gc_interval{60'000};
  std::chrono::milliseconds delete_grace{5 * 60'000};
  std::chrono::milliseconds orphan_grace{60 * 60'000};

  // Retention: batches older than this are trimmed (0 = keep forever).
  std::chrono::milliseconds retention{7LL * 24 * 3600 * 1000};
  std::chrono::milliseconds retention_interval{60'000};
};

}  // namespace mink::storage
