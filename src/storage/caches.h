#pragma once
// The two read caches of the storage layer.
//  - TailCache: the newest committed batches of each stream this node writes, so readers at the
//    end of a stream are served from memory. Bounded per stream.
//  - BlockCache: runs fetched from objects (a run = one stream's bytes in one object), LRU,
//    bounded in bytes.
// Both are thread-safe.

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/batch_format.h"

namespace mink::storage {

using BatchPtr = std::shared_ptr<const Batch>;

class TailCache {
 public:
  explicit TailCache(size_t bytes_per_stream) : bytes_per_stream_(bytes_per_stream) {}

  // Adds committed batches of a stream, in offset order, continuing what the cache holds (a gap
  // drops the older batches).
  void Add(uint64_t stream_id, const std::vector<BatchPtr>& batches);
  // Contiguous batches starting with the one holding `offset`, up to `max_bytes` (at least one);
  // empty if the cache does not hold `offset`.
  std::vector<BatchPtr> Get(uint64_t stream_id, int64_t offset, size_t max_bytes) const;
  void Drop(uint64_t stream_id);

 private:
  struct Tail {
    std::map<int64_t, BatchPtr> batches;  // by base offset
    size_t bytes = 0;
  };
  const size_t bytes_per_stream_;
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, Tail> tails_;
};

class BlockCache {
 public:
  explicit BlockCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  std::shared_ptr<const std::string> Get(const std::string& key) const;
  void Put(const std::string& key, std::shared_ptr<const std::string> block);
  size_t size_bytes() const;

 private:
  using Lru = std::list<std::pair<std::string, std::shared_ptr<const std::string>>>;
  const size_t capacity_;
  mutable std::mutex mutex_;
  mutable Lru lru_;  // front = most recently used
  std::unordered_map<std::string, Lru::iterator> index_;
  size_t bytes_ = 0;
};

}  // namespace mink::storage
