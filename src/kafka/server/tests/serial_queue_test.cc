#include "kafka/server/serial_queue.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

namespace mink::kafka {
namespace {

using std::chrono::seconds;

std::string ThreadName() {
  char name[16] = {};
  pthread_getname_np(pthread_self(), name, sizeof(name));
  return name;
}

TEST(SerialQueueTest, KeepsTheOrderOfItsTasksWhicheverPoolsTheyUse) {
  ThreadPool data(3, "test-data"), groups(3, "test-groups");
  auto queue = std::make_shared<SerialQueue>();
  std::mutex mutex;
  std::vector<std::pair<int, std::string>> ran;
  std::promise<void> done;
  constexpr int kTasks = 200;
  for (int i = 0; i < kTasks; ++i) {
    ThreadPool* pool = (i / 3) % 2 == 0 ? &data : &groups;  // runs of three on each pool
    queue->Submit(pool, [&, i] {
      std::lock_guard<std::mutex> lock(mutex);
      ran.emplace_back(i, ThreadName());
      if (i == kTasks - 1) done.set_value();
    });
  }
  ASSERT_EQ(done.get_future().wait_for(seconds(10)), std::future_status::ready);
  std::lock_guard<std::mutex> lock(mutex);
  ASSERT_EQ(ran.size(), size_t{kTasks});
  for (int i = 0; i < kTasks; ++i) {
    EXPECT_EQ(ran[i].first, i);
    EXPECT_EQ(ran[i].second, (i / 3) % 2 == 0 ? "test-data" : "test-groups") << "task " << i;
  }
}

TEST(SerialQueueTest, AQueueOnAnotherPoolRunsWhileEveryDataThreadIsBusy) {
  ThreadPool data(1, "test-data"), groups(1, "test-groups");
  auto fetches = std::make_shared<SerialQueue>(), heartbeats = std::make_shared<SerialQueue>();
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  fetches->Submit(&data, [released] { released.wait(); });  // a read waiting for the store
  std::promise<void> heartbeat;
  heartbeats->Submit(&groups, [&] { heartbeat.set_value(); });
  EXPECT_EQ(heartbeat.get_future().wait_for(seconds(5)), std::future_status::ready);
  release.set_value();
}

TEST(SerialQueueTest, ATaskWaitsForTheEarlierTasksOfItsQueueOnTheOtherPool) {
  ThreadPool data(1, "test-data"), groups(1, "test-groups");
  auto queue = std::make_shared<SerialQueue>();
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> first_done{false};
  queue->Submit(&data, [&, released] {
    released.wait();
    first_done = true;
  });
  std::promise<bool> second;
  queue->Submit(&groups, [&] { second.set_value(first_done.load()); });
  auto second_ran = second.get_future();
  EXPECT_EQ(second_ran.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  release.set_value();
  ASSERT_EQ(second_ran.wait_for(seconds(5)), std::future_status::ready);
  EXPECT_TRUE(second_ran.get());
}

}  // namespace
}  // namespace mink::kafka
