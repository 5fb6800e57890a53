#pragma once
// DatabaseClock: the metadata database server's clock, read through this machine's. Liveness
// (heartbeat times, who is live, lease expiry) is judged on one clock for every node, the
// database's, so a node whose own clock runs ahead or behind neither looks dead nor outlives its
// lease. Refresh measures the offset (the server's time against the middle of the round trip);
// NowMillis adds the last offset to this machine's clock and never blocks.
//
// Thread-safe.

#include <atomic>
#include <cstdint>

#include "base/clock.h"
#include "base/result.h"
#include "metadata/log_store.h"

namespace mink::metadata {

class DatabaseClock final : public Clock {
 public:
  // Measures the offset now: an error when the database cannot be read (the last offset stays).
  Status Refresh(LogStore* store);
  int64_t NowMillis() const override {
    return SystemClock::Get()->NowMillis() + offset_ms_.load(std::memory_order_relaxed);
  }
  int64_t offset_ms() const { return offset_ms_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> offset_ms_{0};
};

}  // namespace mink::metadata
