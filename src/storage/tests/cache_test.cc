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
  // A plain LRU misses every read here. With admission the main part (7 runs) keeps its runs:
  // 7 of every 9 hit; the window's one slot holds the run just read, which the cycle reads last.
  EXPECT_GE(hits, reads * 7 / 9 - 2);
  EXPECT_LE(cache.size_bytes(), 800u);
}

// A reader whose reads end mid-run (a byte budget, not run boundaries) reads each run twice in a
// row: read k takes the rest of run k and the start of run k + 1. In a cache full of runs read
// twice before, run k + 1 has been read once, so admission alone would refuse it and the next
// read would fetch it again; the window keeps it.
TEST(BlockCacheTest, ASequentialReaderFetchesEachRunOnceInAFullCache) {
  BlockCache cache(8 * 100);
  for (int k = 0; k < 20; ++k) {
    Read(&cache, "old@" + std::to_string(k), 100);
    Read(&cache, "old@" + std::to_string(k), 100);
  }
  int fetches = 0;
  for (int k = 0; k < 50; ++k) {
    fetches += !Read(&cache, "new@" + std::to_string(k), 100);
    fetches += !Read(&cache, "new@" + std::to_string(k + 1), 100);
  }
  EXPECT_EQ(fetches, 51);  // new@0 .. new@50, once each
  EXPECT_LE(cache.size_bytes(), 800u);
}

TEST(BlockCacheTest, ARunLargerThanTheWindowIsKeptUntilTheNextPut) {
  BlockCache cache(8 * 100);  // window 100
  for (int k = 0; k < 8; ++k) Read(&cache, "small@" + std::to_string(k), 100);
  EXPECT_TRUE(cache.Put("large", MakeRun(500)));
  EXPECT_TRUE(cache.Get("large"));
  EXPECT_LE(cache.size_bytes(), 800u);
}

TEST(BlockCacheTest, AccessCountCountsMissesAndDoesNotCountItself) {
  BlockCache cache(100);
  EXPECT_EQ(cache.AccessCount("k"), 0);
  EXPECT_FALSE(cache.Get("k"));  // a miss counts
  EXPECT_EQ(cache.AccessCount("k"), 1);
  EXPECT_EQ(cache.AccessCount("k"), 1);
  EXPECT_FALSE(cache.Put("k", MakeRun(101)));  // too large to keep
  EXPECT_FALSE(cache.Get("k"));
  EXPECT_EQ(cache.AccessCount("k"), 2);
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
