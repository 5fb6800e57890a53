#pragma once
// A fixed pool of threads running queued tasks in submission order, for blocking work (object
// store calls, database calls). Stop() runs what is queued, then joins. RunTogether runs a set of
// tasks at once on a pool and the calling thread.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/thread_priority.h"

namespace mink {

class ThreadPool {
 public:
  // `name` (if given) names the pool's threads.
  explicit ThreadPool(int threads, const char* name = nullptr) {
    for (int i = 0; i < threads; ++i) {
      workers_.emplace_back([this, name] {
        if (name != nullptr) NameThisThread(name);
        Run();
      });
    }
  }
  ~ThreadPool() { Stop(); }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }

 private:
  void Run() {
    while (true) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

// Runs `tasks` at once on `pool` and the calling thread, and returns when all have run. The
// caller runs every task no pool thread has taken yet, so the call returns even when the pool's
// threads are all busy or the pool is stopped.
void RunTogether(ThreadPool* pool, std::vector<std::function<void()>> tasks);

}  // namespace mink
