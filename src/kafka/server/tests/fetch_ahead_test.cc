// FetchAheadCache: an entry is taken once and only for its exact (stream, offset, budget); a
// fetch waits for a read-ahead of its own request that is still running; memory stays bounded.

#include "kafka/server/fetch_ahead.h"

#include <gtest/gtest.h>

#include <thread>

namespace mink::kafka {
namespace {

using std::chrono::milliseconds;

FetchAheadCache::Entry Entry(size_t bytes, int64_t next) {
  return FetchAheadCache::Entry{std::string(bytes, 'r'), next};
}

TEST(FetchAheadCacheTest, AnEntryIsTakenOnceForItsExactKey) {
  FetchAheadCache cache(1 << 20);
  ASSERT_TRUE(cache.Claim(7, 100, 4096));
  EXPECT_FALSE(cache.Claim(7, 100, 4096));  // pending
  cache.Complete(7, 100, 4096, Entry(1000, 150));
  EXPECT_FALSE(cache.Claim(7, 100, 4096));  // stored
  EXPECT_FALSE(cache.Take(7, 100, 2048, milliseconds(0)).has_value());  // other budget
  EXPECT_FALSE(cache.Take(8, 100, 4096, milliseconds(0)).has_value());  // other stream
  EXPECT_FALSE(cache.Take(7, 101, 4096, milliseconds(0)).has_value());  // other offset
  auto hit = cache.Take(7, 100, 4096, milliseconds(0));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->records, std::string(1000, 'r'));
  EXPECT_EQ(hit->next_offset, 150);
  EXPECT_FALSE(cache.Take(7, 100, 4096, milliseconds(0)).has_value());
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_TRUE(cache.Claim(7, 100, 4096));  // free again
}

// An entry serves a fetch exactly when the fetch would encode the same records now.
TEST(FetchAheadCacheTest, AnEntryServesTheFetchThatWouldReadTheSame) {
  // 1,000 bytes of a 4,096 budget, from offset 100 to 150; the stream ended at 400 then.
  FetchAheadCache::Entry stopped_on_budget{std::string(1000, 'r'), 150, 400};
  // One large batch filled the budget's share: a fetch reads the same, whatever came since.
  EXPECT_TRUE(stopped_on_budget.ServesFetch(100, 4096, 0, 400));
  EXPECT_TRUE(stopped_on_budget.ServesFetch(100, 4096, 0, 900));
  EXPECT_FALSE(stopped_on_budget.ServesFetch(100, 4096, 120, 900));  // trimmed past the fetch

  // Read up to the end it saw (150): it serves only while nothing was committed since.
  FetchAheadCache::Entry stopped_at_end{std::string(1000, 'r'), 150, 150};
  EXPECT_TRUE(stopped_at_end.ServesFetch(100, 4096, 0, 150));
  EXPECT_FALSE(stopped_at_end.ServesFetch(100, 4096, 0, 151));

  // A full entry serves, whatever the end.
  FetchAheadCache::Entry full{std::string(4096, 'r'), 150, 150};
  EXPECT_TRUE(full.ServesFetch(100, 4096, 0, 900));
}

TEST(FetchAheadCacheTest, AFetchWaitsForItsRunningReadAhead) {
  FetchAheadCache cache(1 << 20);
  ASSERT_TRUE(cache.Claim(1, 0, 10));
  std::thread ahead([&] {
    std::this_thread::sleep_for(milliseconds(50));
    cache.Complete(1, 0, 10, Entry(20, 5));
  });
  auto hit = cache.Take(1, 0, 10, milliseconds(10000));
  ahead.join();
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->next_offset, 5);
}

TEST(FetchAheadCacheTest, AnEmptyReadAheadEndsTheWaitWithAMiss) {
  FetchAheadCache cache(1 << 20);
  ASSERT_TRUE(cache.Claim(1, 0, 10));
  std::thread ahead([&] { cache.Complete(1, 0, 10, std::nullopt); });
  EXPECT_FALSE(cache.Take(1, 0, 10, milliseconds(10000)).has_value());
  ahead.join();
  EXPECT_TRUE(cache.Claim(1, 0, 10));
  EXPECT_FALSE(cache.Take(1, 0, 10, milliseconds(1)).has_value());  // still pending: gives up
}

TEST(FetchAheadCacheTest, OldestEntriesGoFirstBeyondTheBound) {
  FetchAheadCache cache(2500);
  for (int64_t offset : {0, 1, 2}) {
    ASSERT_TRUE(cache.Claim(1, offset, 10));
    cache.Complete(1, offset, 10, Entry(1000, offset + 1));
  }
  EXPECT_LE(cache.bytes(), 2500u);
  EXPECT_FALSE(cache.Take(1, 0, 10, milliseconds(0)).has_value());
  EXPECT_TRUE(cache.Take(1, 1, 10, milliseconds(0)).has_value());
  EXPECT_TRUE(cache.Take(1, 2, 10, milliseconds(0)).has_value());
  ASSERT_TRUE(cache.Claim(1, 3, 10));
  cache.Complete(1, 3, 10, Entry(3000, 4));  // larger than the bound: not kept
  EXPECT_FALSE(cache.Take(1, 3, 10, milliseconds(0)).has_value());
  EXPECT_EQ(cache.bytes(), 0u);
}

}  // namespace
}  // namespace mink::kafka
