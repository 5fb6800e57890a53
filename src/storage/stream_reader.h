#pragma once
// StreamReader: reads committed batches by offset. The stream index comes from the metadata
// state (segments: offset range -> object byte range); the newest batches of streams this node
// writes come from the tail cache; runs fetched from objects go through the block cache. Every
// batch is checked against its checksum; a damaged or missing object is a DataLoss error naming
// its key, never data. A reader at the end of a stream waits (long poll) for the next commit.
// The segments one read needs are fetched at once (a backlog of small WAL segments is one
// ranged GET each), and a read answers with what it loaded within kLoadBudget rather than
// making its caller, a Kafka fetch say, wait for all of it.
//
// Thread-safe; Read blocks the calling thread.

#include <chrono>
#include <map>
#include <memory>
#include <vector>

#include "base/thread_pool.h"
#include "metadata/metadata_log.h"
#include "object_store/object_store.h"
#include "storage/caches.h"

namespace mink::storage {

struct ReadResult {
  // Consecutive batches; the first holds the requested offset (it may start before it).
  std::vector<BatchPtr> batches;
  int64_t start_offset = 0;  // first readable offset of the stream
  int64_t end_offset = 0;    // one past the last committed offset (high watermark)
};

struct ReadStats {
  uint64_t object_reads = 0;  // ranged GETs issued
  uint64_t object_bytes = 0;
  uint64_t tail_hits = 0;
  uint64_t cache_hits = 0;
};

class StreamReader {
 public:
  // Segments a read has not begun fetching after this long are left to the next read (the
  // first segment is always fetched: every read progresses).
  static constexpr std::chrono::milliseconds kLoadBudget{1000};
  // Fetches running at once for one read, besides the reading thread.
  static constexpr int kLoadThreads = 8;

  StreamReader(metadata::MetadataLog* meta,
               std::map<int32_t, object_store::ObjectStore*> stores_by_bucket,
               BlockCache* blocks, TailCache* tail);

  // Batches from `offset` on, about `max_bytes` (at least one batch when any is available).
  // At the end of the stream it waits up to `max_wait` for a commit. OutOfRange when `offset` is
  // below the start or beyond the end; NotFound for an unknown stream.
  Result<ReadResult> Read(uint64_t stream_id, int64_t offset, size_t max_bytes,
                          std::chrono::milliseconds max_wait = std::chrono::milliseconds(0));

  ReadStats stats() const;

 private:
  // The verified batches of one segment the block cache does not have: fetched, checked and
  // decoded, then offered to the cache under `cache_key`.
  Result<CachedRunPtr> FetchSegment(const metadata::Segment& segment, const std::string& cache_key);
  // The runs of the longest prefix of `segments` loaded by `deadline` (at least the first, or
  // its error): from the block cache, which holds only runs verified when they were fetched,
  // and the misses fetched at once on loads_.
  Result<std::vector<CachedRunPtr>> LoadSegments(const std::vector<metadata::Segment>& segments,
                                                 SteadyTime deadline);

  metadata::MetadataLog* const meta_;
  const std::map<int32_t, object_store::ObjectStore*> stores_;
  BlockCache* const blocks_;
  TailCache* const tail_;
  mutable std::mutex stats_mutex_;
  ReadStats stats_;
  ThreadPool loads_{kLoadThreads, "segment-load"};
};

}  // namespace mink::storage
