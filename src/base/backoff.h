#pragma once
// Jittered exponential backoff for retries of transient failures (object store 5xx, throttling,
// timeouts, metadata conflicts). Every retry loop also has a deadline.

#include <algorithm>
#include <chrono>
#include <random>

namespace mink {

class Backoff {
 public:
  Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max)
      : next_(initial), max_(max) {}

  // The next delay: uniformly random in [next/2, next], then next doubles up to max ("equal
  // jitter"), so concurrent retriers spread out instead of retrying in step.
  std::chrono::milliseconds Next() {
    auto current = next_;
    next_ = std::min(max_, next_ * 2);
    std::uniform_int_distribution<long> dist(current.count() / 2, current.count());
    return std::chrono::milliseconds(dist(ThreadRng()));
  }

 private:
  // One generator per thread, seeded once. A Backoff is made for every append, upload and
  // metadata transaction, and most never retry; seeding each from std::random_device cost 4.6%
  // of the storage benchmark's CPU samples.
  static std::mt19937_64& ThreadRng() {
    static thread_local std::mt19937_64 rng(std::random_device{}());
    return rng;
  }

  std::chrono::milliseconds next_;
  std::chrono::milliseconds max_;
};

}  // namespace mink
