#include "table/bucket_preloader.h"

namespace mink::table {

BucketPreloader::BucketPreloader(std::function<void(uint64_t)> load)
    : load_(std::move(load)), thread_([this] { Run(); }) {}

BucketPreloader::~BucketPreloader() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BucketPreloader::Add(const std::vector<uint64_t>& streams) {
  if (streams.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.insert(queue_.end(), streams.begin(), streams.end());
  }
  cv_.notify_all();
}

void BucketPreloader::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    uint64_t stream = queue_.front();
    queue_.pop_front();
    lock.unlock();
    load_(stream);
    lock.lock();
  }
}

}  // namespace mink::table
