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
      : next_(initial), max_(max), rng_(std::random_device{}()) {}

  // The next delay: uniformly random in [next/2, next], then next doubles up to max ("equal
  // jitter"), so concurrent retriers spread out instead of retrying in step.
  std::chrono::milliseconds Next() {
    auto current = next_;
    next_ = std::min(max_, next_ * 2);
    std::uniform_int_distribution<long> dist(current.count() / 2, current.count());
    return std::chrono::milliseconds(dist(rng_));
  }

 private:
  std::chrono::milliseconds next_;
  std::chrono::milliseconds max_;
  std::mt19937_64 rng_;
};

}  // namespace mink
