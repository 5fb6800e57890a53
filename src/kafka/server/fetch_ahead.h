#pragma once
// Read-ahead for Fetch: librdkafka (like the Java client) has one Fetch in flight per broker and
// sends the next only after it has parsed the last response, so a consumer reading a backlog
// alternates between waiting for the broker and parsing. After serving a partition from offset
// X up to Y, the broker encodes the records from Y on a read-ahead thread while the client
// parses; the next Fetch at Y takes them from here. The read-ahead runs up to a few fetches
// deep (a chain from Y: each entry's next offset is where the next one starts), so that a fetch
// finds its records encoded even when the client asks again sooner than one encode takes.
//
// Entries are Kafka record batches of committed, immutable offsets, keyed by (stream, offset,
// byte budget), so a hit is exactly what the fetch would have encoded itself. Bounded in bytes
// (oldest first out); an entry is used once.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

namespace mink::kafka {

class FetchAheadCache {
 public:
  struct Entry {
    std::string records;
    int64_t next_offset = 0;  // the offset after the last record encoded
    int64_t end_at_read = 0;  // the stream's committed end when the read-ahead read it

    // Whether a fetch from the entry's offset with its budget, against a stream now readable in
    // [start, end), would encode exactly these records: the entry is full, or it stopped before
    // the end it saw (so on its budget: committed batches do not change), or nothing was
    // committed after it.
    bool ServesFetch(int64_t fetch_offset, int64_t budget, int64_t start, int64_t end) const {
      if (fetch_offset < start) return false;  // trimmed meanwhile
      return static_cast<int64_t>(records.size()) >= budget || next_offset < end_at_read ||
             next_offset >= end;
    }
  };

  explicit FetchAheadCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // Where a read-ahead of the chain that starts at `offset` should run, claimed: the first of the
  // chain's first `depth` links that is neither stored nor pending and starts before `end` (the
  // committed end). `.second` is the link's place in the chain (0: at `offset`). nullopt when a
  // link is pending (its completion goes on with the chain) or the chain is `depth` long.
  std::optional<std::pair<int64_t, int>> ClaimInChain(uint64_t stream, int64_t offset,
                                                      int64_t end, int64_t budget, int depth);
  // Ends a claim: stores `entry` (nullopt: the read-ahead found nothing to store).
  void Complete(uint64_t stream, int64_t offset, int64_t budget, std::optional<Entry> entry);
  // Takes the entry for (stream, offset, budget), waiting up to `wait` if its read-ahead is still
  // running (the fetch would do the same work itself).
  std::optional<Entry> Take(uint64_t stream, int64_t offset, int64_t budget,
                            std::chrono::milliseconds wait);

  size_t bytes() const;

 private:
  using Key = std::tuple<uint64_t, int64_t, int64_t>;
  const size_t max_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable done_;
  std::map<Key, std::optional<Entry>> entries_;  // nullopt: pending
  std::deque<Key> order_;                         // stored entries, oldest first
  size_t bytes_ = 0;
};

}  // namespace mink::kafka
