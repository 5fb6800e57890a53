#include "storage/caches.h"

#include <gtest/gtest.h>

namespace mink::storage {
namespace {

CachedRunPtr MakeRun(size_t bytes) {
  auto run = std::make_shared<CachedRun>();
  run->bytes = bytes;
  return run;
}

// Reads `key` the way StreamReader does: Get, and Put on a miss. Returns whether it hit.
bool Read(BlockCache* cache, const std::string& key, size_t bytes) {
  if (cache->Get(key)) return true;
  cache->Put(key, MakeRun(bytes));
  return false;
}

TEST(BlockCacheTest, ACyclicScanLargerThanTheCacheKeepsMostOfItCached) {
  BlockCache cache(8 * 100);
  int hits = 0, reads = 0;
  for (int cycle = 0; cycle < 20; ++cycle) {
    for (int k = 0; k < 9; ++k) {
      bool hit = Read(&cache, "obj@" + std::to_string(k), 100);
      if (cycle > 0) {
        hits += hit;
        ++reads;
      }
    }
  }
  // A plain LRU misses every read here; with admission 8 of every 9 hit.
  EXPECT_GE(hits, reads * 8 / 9 - 2);
  EXPECT_LE(cache.size_bytes(), 800u);
}

TEST(BlockCacheTest, RunsReadOnceDoNotEvictARunReadOften) {
  BlockCache cache(4 * 100);
  for (int i = 0; i < 5; ++i) Read(&cache, "hot", 100);
  for (int k = 0; k < 50; ++k) Read(&cache, "cold@" + std::to_string(k), 100);
  EXPECT_TRUE(cache.Get("hot"));
  EXPECT_LE(cache.size_bytes(), 400u);
}

TEST(BlockCacheTest, ANewWorkloadReplacesAnOldOneOnceItIsReadRepeatedly) {
  BlockCache cache(4 * 100);
  for (int round = 0; round < 10; ++round) {
    for (int k = 0; k < 4; ++k) Read(&cache, "old@" + std::to_string(k), 100);
  }
  int late_hits = 0;
  for (int round = 0; round < 200; ++round) {
    for (int k = 0; k < 4; ++k) {
      bool hit = Read(&cache, "new@" + std::to_string(k), 100);
      if (round >= 190) late_hits += hit;
    }
  }
  EXPECT_EQ(late_hits, 40);
}

TEST(BlockCacheTest, ARunLargerThanTheCacheOrAZeroCacheIsNotKept) {
  BlockCache cache(100);
  EXPECT_FALSE(cache.Put("big", MakeRun(101)));
  EXPECT_EQ(cache.Get("big"), nullptr);
  BlockCache none(0);
  EXPECT_FALSE(none.Put("k", MakeRun(1)));
  EXPECT_EQ(none.Get("k"), nullptr);
  EXPECT_EQ(none.entries(), 0u);
}

}  // namespace
}  // namespace mink::storage
