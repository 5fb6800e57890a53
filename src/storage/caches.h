#pragma once
// The two read caches of the storage layer.
//  - TailCache: the newest committed batches of each stream this node writes, so readers at the
//    end of a stream are served from memory. Bounded per stream.
//  - BlockCache: runs fetched from objects (a run = one stream's bytes in one object), kept as
//    the batches decoded from them after their checksums were verified, so a hit costs neither a
//    checksum nor a copy. LRU, bounded in bytes, with frequency-based admission so that one scan
//    larger than the cache does not evict everything (see BlockCache).
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

// The batches of one run, decoded from verified bytes.
struct CachedRun {
  std::vector<BatchPtr> batches;
  size_t bytes = 0;  // the run's length in its object
};
using CachedRunPtr = std::shared_ptr<const CachedRun>;

// LRU bounded in bytes, with admission by frequency when full (in the spirit of TinyLFU): every
// Get, hit or miss, counts an access of its key; counts are halved every few accesses so they
// follow a changing workload. A new run that needs room is admitted only if its key was accessed
// more often than each of the runs it would evict. A cyclic scan of n runs over a cache that
// holds n - 1 therefore keeps n - 1 of them and misses once a cycle, instead of missing every
// time as a plain LRU does; a run read once never pushes out runs read repeatedly.
class BlockCache {
 public:
  explicit BlockCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  CachedRunPtr Get(const std::string& key);
  // Returns whether the run was admitted.
  bool Put(const std::string& key, CachedRunPtr run);
  size_t size_bytes() const;
  size_t entries() const;

 private:
  static constexpr uint8_t kMaxCount = 15;
  void CountAccessLocked(const std::string& key);
  uint8_t CountLocked(const std::string& key) const;

  using Lru = std::list<std::pair<std::string, CachedRunPtr>>;
  const size_t capacity_;
  mutable std::mutex mutex_;
  Lru lru_;  // front = most recently used
  std::unordered_map<std::string, Lru::iterator> index_;
  size_t bytes_ = 0;
  // Recent access counts of cached and uncached keys, saturating at kMaxCount.
  std::unordered_map<std::string, uint8_t> counts_;
  uint64_t accesses_since_aging_ = 0;
};

}  // namespace mink::storage
