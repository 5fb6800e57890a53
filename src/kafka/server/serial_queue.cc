#include "kafka/server/serial_queue.h"

namespace mink::kafka {

void SerialQueue::Submit(ThreadPool* pool, std::function<void()> task) {
  ThreadPool* start = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back({pool, std::move(task)});
    if (!running_) {
      running_ = true;
      start = pool;
    }
  }
  if (start != nullptr) start->Submit([self = shared_from_this(), start] { self->Drain(start); });
}

void SerialQueue::Drain(ThreadPool* pool) {
  while (true) {
    std::function<void()> run;
    ThreadPool* next = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (tasks_.empty()) {
        running_ = false;
        return;
      }
      if (tasks_.front().pool == pool) {
        run = std::move(tasks_.front().run);
        tasks_.pop_front();
      } else {
        next = tasks_.front().pool;  // still running_: nothing else may start a Drain
      }
    }
    if (next != nullptr) {
      next->Submit([self = shared_from_this(), next] { self->Drain(next); });
      return;
    }
    run();
  }
}

}  // namespace mink::kafka
