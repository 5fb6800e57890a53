#include "kafka/server/fetch_ahead.h"

#include <algorithm>

namespace mink::kafka {

std::optional<std::pair<int64_t, int>> FetchAheadCache::ClaimInChain(uint64_t stream,
                                                                    int64_t offset, int64_t end,
                                                                    int64_t budget, int depth) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int link = 0; link < depth && offset < end; ++link) {
    auto [it, claimed] = entries_.try_emplace(Key{stream, offset, budget}, std::nullopt);
    if (claimed) return std::pair{offset, link};
    if (!it->second) return std::nullopt;  // pending
    // Stored: a link that stopped before the end it saw ends on its budget, so the next one
    // starts where it stopped; one that read up to that end waits for the fetch to see more.
    if (it->second->next_offset >= it->second->end_at_read) return std::nullopt;
    offset = it->second->next_offset;
  }
  return std::nullopt;
}

void FetchAheadCache::Complete(uint64_t stream, int64_t offset, int64_t budget,
                               std::optional<Entry> entry) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const Key key{stream, offset, budget};
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.has_value()) return;  // not claimed
    if (!entry || entry->records.size() > max_bytes_) {
      entries_.erase(it);
    } else {
      bytes_ += entry->records.size();
      it->second = std::move(entry);
      order_.push_back(key);
      // Oldest first out (a consumer that moved elsewhere leaves its entry behind).
      while (bytes_ > max_bytes_ && !order_.empty()) {
        auto old = entries_.find(order_.front());
        order_.pop_front();
        if (old == entries_.end() || !old->second) continue;  // taken already
        bytes_ -= old->second->records.size();
        entries_.erase(old);
      }
    }
  }
  done_.notify_all();
}

std::optional<FetchAheadCache::Entry> FetchAheadCache::Take(uint64_t stream, int64_t offset,
                                                            int64_t budget,
                                                            std::chrono::milliseconds wait) {
  const Key key{stream, offset, budget};
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  if (!it->second) {
    done_.wait_for(lock, wait, [&] {
      it = entries_.find(key);
      return it == entries_.end() || it->second.has_value();
    });
    if (it == entries_.end() || !it->second) return std::nullopt;
  }
  std::optional<Entry> out = std::move(it->second);
  entries_.erase(it);
  bytes_ -= out->records.size();
  // Its key stays in order_ until it reaches the front; eviction skips keys no longer stored.
  // A key stored again later appears twice: bounded by the number of stores, trimmed below.
  if (order_.size() > 4 * entries_.size() + 64) {
    std::erase_if(order_, [&](const Key& k) {
      auto e = entries_.find(k);
      return e == entries_.end() || !e->second;
    });
  }
  return out;
}

size_t FetchAheadCache::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

}  // namespace mink::kafka
