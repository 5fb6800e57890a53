#include "object_store/memory_store.h"

#include <gtest/gtest.h>

#include "base/clock.h"

namespace mink::object_store {
namespace {

TEST(MemoryStoreFaults, FailsTheNthPut) {
  MemoryStore store;
  FaultPlan plan;
  plan.fail_nth_call = 3;
  store.SetFaults(plan);
  EXPECT_TRUE(store.Put("a", "1").ok());
  EXPECT_TRUE(store.Put("b", "2").ok());
  Status third = store.Put("c", "3");
  EXPECT_EQ(third.code(), StatusCode::kUnavailable);
  EXPECT_EQ(store.Get("c").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(store.Put("d", "4").ok());
  EXPECT_EQ(store.injected_failures(), 1u);
}

TEST(MemoryStoreFaults, FailsAboutTheConfiguredFraction) {
  MemoryStore store;
  FaultPlan plan;
  plan.fail_fraction = 0.1;
  store.SetFaults(plan);
  int failed = 0;
  for (int i = 0; i < 2000; ++i) failed += store.Put("k" + std::to_string(i), "v").ok() ? 0 : 1;
  EXPECT_GT(failed, 120);
  EXPECT_LT(failed, 280);
}

TEST(MemoryStoreFaults, AmbiguousPutStoresButReportsFailure) {
  MemoryStore store;
  FaultPlan plan;
  plan.fail_nth_call = 1;
  plan.ambiguous_fraction = 1.0;
  store.SetFaults(plan);
  EXPECT_FALSE(store.Put("a", "1").ok());
  EXPECT_EQ(*store.Get("a"), "1");
}

TEST(MemoryStoreFaults, LatencyIsApplied) {
  MemoryStore store;
  FaultPlan plan;
  plan.latency = std::chrono::milliseconds(20);
  store.SetFaults(plan);
  auto start = SteadyNow();
  ASSERT_TRUE(store.Put("a", "1").ok());
  EXPECT_GE(SteadyNow() - start, std::chrono::milliseconds(20));
}

}  // namespace
}  // namespace mink::object_store
