#pragma once
// LakeBatchCache: decoded Parquet reads of lake files, kept for the reads that follow. A lake
// file never changes once written, so an entry (one data file read with a given set of delete
// files, columns and filters) is never stale; a newer snapshot's delete files make a new key.
// Bounded in bytes, least recently used out first.
//
// Thread-safe.

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "arrow_format/record_batch.h"

namespace mink::lake {

class LakeBatchCache {
 public:
  using Batches = std::shared_ptr<const std::vector<arrow::RecordBatchPtr>>;

  explicit LakeBatchCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  Batches Get(const std::string& key);
  // Keeps `batches` unless they alone are larger than the cache.
  void Put(const std::string& key, Batches batches);
  size_t size_bytes() const;
  // Forgets every entry (benchmarks measure reads that decode).
  void Clear();

  // The bytes the buffers of `batches` hold.
  static size_t BytesOf(const std::vector<arrow::RecordBatchPtr>& batches);

 private:
  struct Entry {
    std::string key;
    Batches batches;
    size_t bytes = 0;
  };
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::list<Entry> lru_;  // front = most recently used
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
};

}  // namespace mink::lake
