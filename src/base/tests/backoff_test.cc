#include "base/backoff.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

namespace mink {
namespace {

using std::chrono::milliseconds;

TEST(Backoff, EachDelayIsBetweenHalfAndAllOfAStepThatDoublesUpToTheMax) {
  for (int run = 0; run < 50; ++run) {
    Backoff backoff(milliseconds(10), milliseconds(80));
    const long steps[] = {10, 20, 40, 80, 80, 80};
    for (long step : steps) {
      const long delay = backoff.Next().count();
      EXPECT_GE(delay, step / 2) << "step " << step;
      EXPECT_LE(delay, step) << "step " << step;
    }
  }
}

TEST(Backoff, DelaysAreJitteredOnEveryThread) {
  // Retriers that fail together must not retry in step: delays of a 1000 ms step vary, and
  // a new thread's generator is seeded on its own.
  auto draws = [] {
    std::set<long> seen;
    for (int i = 0; i < 20; ++i) {
      seen.insert(Backoff(milliseconds(1000), milliseconds(1000)).Next().count());
    }
    return seen.size();
  };
  EXPECT_GT(draws(), 10u);
  size_t on_thread = 0;
  std::thread([&] { on_thread = draws(); }).join();
  EXPECT_GT(on_thread, 10u);
}

}  // namespace
}  // namespace mink
