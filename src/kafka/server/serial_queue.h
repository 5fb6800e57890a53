#pragma once
// SerialQueue: one connection's requests, handled one at a time in the order they came, each on
// the pool its kind of request uses. Connections share the pools; the order within a connection
// is kept whichever pools its requests use.

#include <deque>
#include <functional>
#include <memory>
#include <mutex>

#include "base/thread_pool.h"

namespace mink::kafka {

class SerialQueue : public std::enable_shared_from_this<SerialQueue> {
 public:
  // Runs `task` on `pool` after every task submitted before it has run.
  void Submit(ThreadPool* pool, std::function<void()> task);

 private:
  struct Task {
    ThreadPool* pool;
    std::function<void()> run;
  };
  // Runs the queue's tasks from the front while they belong to `pool`; hands the queue to the
  // next task's pool otherwise.
  void Drain(ThreadPool* pool);

  std::mutex mutex_;
  std::deque<Task> tasks_;
  bool running_ = false;  // a Drain is scheduled or running
};

}  // namespace mink::kafka
