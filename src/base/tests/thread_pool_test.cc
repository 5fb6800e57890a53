#include "base/thread_pool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>

namespace mink {
namespace {

TEST(RunTogetherTest, RunsEveryTaskOnce) {
  ThreadPool pool(3);
  std::vector<std::atomic<int>> runs(20);
  std::vector<std::function<void()>> tasks;
  for (size_t i = 0; i < runs.size(); ++i) tasks.push_back([&runs, i] { ++runs[i]; });
  RunTogether(&pool, std::move(tasks));
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << "task " << i;
}

TEST(RunTogetherTest, RunsTheTasksAtTheSameTime) {
  // Each task waits until all four have started: done one after another, none would finish.
  ThreadPool pool(3);
  std::atomic<int> started{0};
  std::atomic<int> timed_out{0};
  std::vector<std::function<void()>> tasks;
  for (int i = 0; i < 4; ++i) {
    tasks.push_back([&] {
      ++started;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (started.load() < 4) {
        if (std::chrono::steady_clock::now() > deadline) {
          ++timed_out;
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
  }
  RunTogether(&pool, std::move(tasks));
  EXPECT_EQ(started.load(), 4);
  EXPECT_EQ(timed_out.load(), 0);
}

TEST(RunTogetherTest, ReturnsWhenThePoolIsStoppedOrBusy) {
  ThreadPool stopped(2);
  stopped.Stop();
  int runs = 0;
  RunTogether(&stopped, {[&] { ++runs; }, [&] { ++runs; }, [&] { ++runs; }});
  EXPECT_EQ(runs, 3);

  ThreadPool busy(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  busy.Submit([released] { released.wait(); });
  std::atomic<int> busy_runs{0};
  RunTogether(&busy, {[&] { ++busy_runs; }, [&] { ++busy_runs; }});
  EXPECT_EQ(busy_runs.load(), 2);
  release.set_value();
}

}  // namespace
}  // namespace mink
