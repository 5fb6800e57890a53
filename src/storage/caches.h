#pragma once
// The two read caches of the storage layer.
//  - TailCache: the newest committed batches of each stream this node writes, so readers at the
//    end of a stream are served from memory. Bounded per stream.
//  - BlockCache: runs fetched from objects (a run = one stream's bytes in one object), kept as
//    the batches decoded from them after their checksums were verified, so a hit costs neither a
//    checksum nor a copy. Bounded in bytes: a small window for what was just read, and a main
//    part with frequency-based admission so that one scan larger than the cache does not evict
//    everything (see BlockCache).
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

// Bounded in bytes, W-TinyLFU style: a small LRU window (an eighth of the capacity) that every
// new run enters, in front of a main LRU guarded by frequency. Every Get, hit or miss, counts an
// access of its key; counts are halved every few accesses so they follow a changing workload.
// A run leaving the window enters the main part only if its key was accessed more often than
// each main run it would evict.
//  - The window keeps what was just read for the read that follows: a sequential reader whose
//    reads end mid-run reads that run again next, and without the window a full cache would
//    refuse the run (read once so far) and the reader would fetch it twice.
//  - The admission keeps a cyclic scan larger than the cache from evicting everything (a plain
//    LRU misses every read of it), and a run read once never pushes out runs read repeatedly.
class BlockCache {
 public:
  explicit BlockCache(size_t capacity_bytes)
      : capacity_(capacity_bytes), window_capacity_(capacity_bytes / 8) {}

  CachedRunPtr Get(const std::string& key);
  // How often the key was asked for lately (Get counts misses too), without counting an access.
  uint8_t AccessCount(const std::string& key) const;
  // Returns whether the run was kept (false only for a run larger than the whole cache).
  bool Put(const std::string& key, CachedRunPtr run);
  size_t size_bytes() const;
  size_t entries() const;

 private:
  static constexpr uint8_t kMaxCount = 15;
  using Lru = std::list<std::pair<std::string, CachedRunPtr>>;
  struct Where {
    Lru::iterator it;
    bool in_window = false;
  };

  void CountAccessLocked(const std::string& key);
  uint8_t CountLocked(const std::string& key) const;
  // Moves a run out of the window: into the main part if admitted, else it is dropped.
  void AdmitLocked(std::string key, CachedRunPtr run);
  void EraseLocked(std::unordered_map<std::string, Where>::iterator where);

  const size_t capacity_;
  const size_t window_capacity_;
  mutable std::mutex mutex_;
  Lru window_;  // front = most recently used
  Lru main_;    // front = most recently used
  std::unordered_map<std::string, Where> index_;
  size_t window_bytes_ = 0, main_bytes_ = 0;
  // Recent access counts of cached and uncached keys, saturating at kMaxCount.
  std::unordered_map<std::string, uint8_t> counts_;
  uint64_t accesses_since_aging_ = 0;
};

}  // namespace mink::storage
