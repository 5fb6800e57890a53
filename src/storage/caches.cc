#include "storage/caches.h"

#include <algorithm>

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

void BlockCache::CountAccessLocked(const std::string& key) {
  uint8_t& count = counts_[key];
  if (count < kMaxCount) ++count;
  // Aging: halve every count once the accesses since the last aging reach a multiple of the
  // keys tracked, so old popularity fades; forget keys whose count reaches zero.
  if (++accesses_since_aging_ >= std::max<size_t>(64, 8 * counts_.size())) {
    accesses_since_aging_ = 0;
    for (auto it = counts_.begin(); it != counts_.end();) {
      it->second = static_cast<uint8_t>(it->second / 2);
      if (it->second == 0 && !index_.count(it->first)) {
        it = counts_.erase(it);
      } else {
        ++it;
      }
    }
  }
}

uint8_t BlockCache::CountLocked(const std::string& key) const {
  auto it = counts_.find(key);
  return it == counts_.end() ? 0 : it->second;
}

CachedRunPtr BlockCache::Get(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (capacity_ == 0) return nullptr;
  CountAccessLocked(key);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  Lru& list = it->second.in_window ? window_ : main_;
  list.splice(list.begin(), list, it->second.it);
  return it->second.it->second;
}

uint8_t BlockCache::AccessCount(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return CountLocked(key);
}

void BlockCache::EraseLocked(std::unordered_map<std::string, Where>::iterator where) {
  const size_t bytes = where->second.it->second->bytes;
  if (where->second.in_window) {
    window_bytes_ -= bytes;
    window_.erase(where->second.it);
  } else {
    main_bytes_ -= bytes;
    main_.erase(where->second.it);
  }
  index_.erase(where);
}

bool BlockCache::Put(const std::string& key, CachedRunPtr run) {
  if (capacity_ == 0 || run->bytes > capacity_) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) EraseLocked(it);
  window_bytes_ += run->bytes;
  window_.emplace_front(key, std::move(run));
  index_[key] = Where{window_.begin(), true};
  // The newest run always stays in the window, even one larger than the window.
  while (window_bytes_ > window_capacity_ && window_.size() > 1) {
    auto oldest = std::move(window_.back());
    window_bytes_ -= oldest.second->bytes;
    window_.pop_back();
    index_.erase(oldest.first);
    AdmitLocked(std::move(oldest.first), std::move(oldest.second));
  }
  // A newest run larger than the window takes room from the main part.
  while (window_bytes_ + main_bytes_ > capacity_ && !main_.empty()) {
    EraseLocked(index_.find(main_.back().first));
  }
  return true;
}

void BlockCache::AdmitLocked(std::string key, CachedRunPtr run) {
  const size_t main_capacity = capacity_ - window_capacity_;
  if (run->bytes > main_capacity) return;
  // The least recently used runs that would have to go; admit only if each is less popular.
  if (main_bytes_ + run->bytes > main_capacity) {
    const uint8_t count = CountLocked(key);
    size_t freed = 0;
    for (auto v = main_.rbegin(); v != main_.rend() && main_bytes_ - freed + run->bytes > main_capacity;
         ++v) {
      if (CountLocked(v->first) >= count) return;
      freed += v->second->bytes;
    }
    while (main_bytes_ + run->bytes > main_capacity) EraseLocked(index_.find(main_.back().first));
  }
  main_bytes_ += run->bytes;
  main_.emplace_front(key, std::move(run));
  index_[key] = Where{main_.begin(), false};
}

size_t BlockCache::size_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return window_bytes_ + main_bytes_;
}

size_t BlockCache::entries() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return index_.size();
}

}  // namespace mink::storage
