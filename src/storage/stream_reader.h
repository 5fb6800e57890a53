#pragma once
// StreamReader: reads committed batches by offset. The stream index comes from the metadata
// state (segments: offset range -> object byte range); the newest batches of streams this node
// writes come from the tail cache; runs fetched from objects go through the block cache. Every
// batch is checked against its checksum; a damaged or missing object is a DataLoss error naming
// its key, never data. A reader at the end of a stream waits (long poll) for the next commit.
//
// Thread-safe; Read blocks the calling thread.

#include <chrono>
#include <map>
#include <memory>
#include <vector>

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
  // The verified batches of one segment: from the block cache, or fetched, checked and decoded
  // (and then offered to the cache).
  Result<CachedRunPtr> LoadSegment(const metadata::Segment& segment);

  metadata::MetadataLog* const meta_;
  const std::map<int32_t, object_store::ObjectStore*> stores_;
  BlockCache* const blocks_;
  TailCache* const tail_;
  mutable std::mutex stats_mutex_;
  ReadStats stats_;
};

}  // namespace mink::storage
