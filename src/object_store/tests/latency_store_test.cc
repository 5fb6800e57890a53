#include "object_store/latency_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "object_store/memory_store.h"
#include "object_store/storage_uri.h"

namespace mink::object_store {
namespace {

using std::chrono::microseconds;

// The draws follow the profile: median and p99 near the figures they were fitted to, the
// transfer time added on top.
TEST(LatencyStore, DrawsMatchTheProfilesMedianAndP99) {
  auto profile = LatencyProfile::Named("s3-standard");
  ASSERT_TRUE(profile.ok()) << profile.status();
  LatencyStore store(std::make_shared<MemoryStore>("latency-draws"), *profile, 7);
  std::vector<int64_t> us;
  for (int i = 0; i < 20000; ++i) us.push_back(store.Draw(30, 120, 0).count());
  std::sort(us.begin(), us.end());
  double median_ms = us[us.size() / 2] / 1e3;
  double p99_ms = us[us.size() * 99 / 100] / 1e3;
  EXPECT_NEAR(median_ms, 30, 2);
  EXPECT_NEAR(p99_ms, 120, 15);
  // 8 MB at 80 MB/s is 100 ms more than the call itself.
  EXPECT_GE(store.Draw(0, 0, 8'000'000), microseconds(99'000));
  EXPECT_LE(store.Draw(0, 0, 8'000'000), microseconds(101'000));
}

TEST(LatencyStore, UriOptionWrapsAnyBackendAndCallsWait) {
  auto uri = StorageUri::Parse("-2@mem://latency-uri?latency=s3-express");
  ASSERT_TRUE(uri.ok()) << uri.status();
  auto store = OpenObjectStore(*uri);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_NE((*store)->Describe().find("latency s3-express"), std::string::npos);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE((*store)->Put("k" + std::to_string(i), "v").ok());
  }
  auto got = (*store)->Get("k3");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "v");
  // Ten puts with a 5 ms median take well over 20 ms.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
}

TEST(LatencyStore, UnknownProfileIsRefusedByName) {
  auto uri = StorageUri::Parse("-2@mem://latency-bad?latency=s3-glacier");
  ASSERT_TRUE(uri.ok());
  auto store = OpenObjectStore(*uri);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("s3-glacier"), std::string::npos);
  EXPECT_NE(store.status().message().find("s3-express"), std::string::npos);
}

}  // namespace
}  // namespace mink::object_store
