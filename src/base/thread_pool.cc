#include "base/thread_pool.h"

namespace mink {

void RunTogether(ThreadPool* pool, std::vector<std::function<void()>> tasks) {
  if (tasks.size() <= 1) {
    for (auto& task : tasks) task();
    return;
  }
  // Shared with the pool's copies of the tasks, which may run after this call returned (and
  // then find their task taken).
  struct Shared {
    std::vector<std::function<void()>> tasks;
    std::vector<std::atomic<bool>> taken;
    std::mutex mutex;
    std::condition_variable cv;
    size_t done = 0;
    explicit Shared(std::vector<std::function<void()>> t)
        : tasks(std::move(t)), taken(tasks.size()) {}
    void RunIfNotTaken(size_t i) {
      if (taken[i].exchange(true)) return;
      tasks[i]();
      std::lock_guard<std::mutex> lock(mutex);
      if (++done == tasks.size()) cv.notify_all();
    }
  };
  auto shared = std::make_shared<Shared>(std::move(tasks));
  for (size_t i = 1; i < shared->tasks.size(); ++i) {
    pool->Submit([shared, i] { shared->RunIfNotTaken(i); });
  }
  for (size_t i = 0; i < shared->tasks.size(); ++i) shared->RunIfNotTaken(i);
  std::unique_lock<std::mutex> lock(shared->mutex);
  shared->cv.wait(lock, [&] { return shared->done == shared->tasks.size(); });
}

}  // namespace mink
