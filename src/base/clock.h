#pragma once
// Wall-clock time behind an interface, so retention and timestamps can be driven by tests.

#include <atomic>
#include <chrono>
#include <cstdint>

namespace mink {

class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch.
  virtual int64_t NowMillis() const = 0;
};

class SystemClock final : public Clock {
 public:
  int64_t NowMillis() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  // The process-wide instance.
  static const Clock* Get() {
    static const SystemClock clock;
    return &clock;
  }
};

// A clock that only moves when told to. Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_millis = 1'700'000'000'000) : now_(start_millis) {}
  int64_t NowMillis() const override { return now_.load(); }
  void Advance(int64_t millis) { now_.fetch_add(millis); }
  void Set(int64_t millis) { now_.store(millis); }

 private:
  std::atomic<int64_t> now_;
};

// Monotonic time for deadlines and latency measurement.
using SteadyTime = std::chrono::steady_clock::time_point;
inline SteadyTime SteadyNow() { return std::chrono::steady_clock::now(); }

}  // namespace mink
