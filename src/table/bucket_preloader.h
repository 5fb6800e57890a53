#pragma once
// BucketPreloader: rebuilds the working state of buckets this node has just taken over (KV
// state, idempotent writers) on a thread of its own, so that the first write after a move does
// not wait for the replay. The write takes the bucket's mutex, which the preloader holds while
// it loads: a write that arrives first simply loads the state itself.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mink::table {

class BucketPreloader {
 public:
  // `load` rebuilds one stream's bucket state (and does nothing for a stream not written here).
  explicit BucketPreloader(std::function<void(uint64_t)> load);
  ~BucketPreloader();  // stops after the stream being loaded; the rest are dropped
  BucketPreloader(const BucketPreloader&) = delete;
  BucketPreloader& operator=(const BucketPreloader&) = delete;

  void Add(const std::vector<uint64_t>& streams);

 private:
  void Run();

  const std::function<void(uint64_t)> load_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<uint64_t> queue_;
  bool stopping_ = false;
  std::thread thread_;  // started last, after everything it uses
};

}  // namespace mink::table
