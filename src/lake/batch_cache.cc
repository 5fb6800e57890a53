#include "lake/batch_cache.h"

namespace mink::lake {
namespace {

size_t BytesOfArray(const arrow::ArrayData& data) {
  size_t bytes = 0;
  for (const auto& b : data.buffers) {
    if (b != nullptr) bytes += static_cast<size_t>(b->size());
  }
  for (const auto& child : data.children) bytes += BytesOfArray(*child);
  return bytes;
}

}  // namespace

size_t LakeBatchCache::BytesOf(const std::vector<arrow::RecordBatchPtr>& batches) {
  size_t bytes = 0;
  for (const auto& batch : batches) {
    for (const auto& column : batch->columns()) bytes += BytesOfArray(*column);
  }
  return bytes;
}

LakeBatchCache::Batches LakeBatchCache::Get(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->batches;
}

void LakeBatchCache::Put(const std::string& key, Batches batches) {
  const size_t bytes = BytesOf(*batches);
  if (bytes > capacity_) return;
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  while (!lru_.empty() && bytes_ + bytes > capacity_) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
  lru_.push_front(Entry{key, std::move(batches), bytes});
  index_[key] = lru_.begin();
  bytes_ += bytes;
}

void LakeBatchCache::Clear() {
  std::lock_guard lock(mutex_);
  lru_.clear();
  index_.clear();
  bytes_ = 0;
}

size_t LakeBatchCache::size_bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace mink::lake
