#include "storage/caches.h"

namespace mink::storage {
namespace {

size_t BatchBytes(const Batch& b) { return kBatchHeaderSize + b.change_types.size() + b.payload.size(); }

}  // namespace

void TailCache::Add(uint64_t stream_id, const std::vector<BatchPtr>& batches) {
  if (bytes_per_stream_ == 0 || batches.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  Tail& tail = tails_[stream_id];
  if (!tail.batches.empty()) {
    const Batch& last = *tail.batches.rbegin()->second;
    if (last.end_offset() != batches.front()->base_offset) {
      tail.batches.clear();
      tail.bytes = 0;
    }
  }
  for (const auto& b : batches) {
    tail.batches[b->base_offset] = b;
    tail.bytes += BatchBytes(*b);
  }
  while (tail.bytes > bytes_per_stream_ && tail.batches.size() > 1) {
    tail.bytes -= BatchBytes(*tail.batches.begin()->second);
    tail.batches.erase(tail.batches.begin());
  }
}

std::vector<BatchPtr> TailCache::Get(uint64_t stream_id, int64_t offset, size_t max_bytes) const {
  std::vector<BatchPtr> out;
  std::lock_guard<std::mutex> lock(mutex_);
  auto t = tails_.find(stream_id);
  if (t == tails_.end() || t->second.batches.empty()) return out;
  const auto& batches = t->second.batches;
  auto it = batches.upper_bound(offset);
  if (it == batches.begin()) return out;
  --it;
  if (it->second->end_offset() <= offset) return out;
  size_t bytes = 0;
  for (; it != batches.end(); ++it) {
    if (!out.empty() && (bytes + BatchBytes(*it->second) > max_bytes ||
                         out.back()->end_offset() != it->second->base_offset)) {
      break;
    }
    bytes += BatchBytes(*it->second);
    out.push_back(it->second);
  }
  return out;
}

void TailCache::Drop(uint64_t stream_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  tails_.erase(stream_id);
}

std::shared_ptr<const std::string> BlockCache::Get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void BlockCache::Put(const std::string& key, std::shared_ptr<const std::string> block) {
  if (capacity_ == 0 || block->size() > capacity_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(key);
  if (it != index_.end()) {
    bytes_ -= it->second->second->size();
    lru_.erase(it->second);
    index_.erase(it);
  }
  bytes_ += block->size();
  lru_.emplace_front(key, std::move(block));
  index_[key] = lru_.begin();
  while (bytes_ > capacity_ && !lru_.empty()) {
    bytes_ -= lru_.back().second->size();
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

size_t BlockCache::size_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace mink::storage
