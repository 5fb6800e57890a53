// FetchAheadCache: an entry is taken once and only for its exact (stream, offset, budget); a
// fetch waits for a read-ahead of its own request that is still running; memory stays bounded.

#include "kafka/server/fetch_ahead.h"

#include <gtest/gtest.h>

#include <limits>
#include <thread>

namespace mink::kafka {
namespace {

using std::chrono::milliseconds;

// Claims (stream, offset, budget) alone, a chain of one link: false if it is pending or stored.
bool Claim(FetchAheadCache& cache, uint64_t stream, int64_t offset, int64_t budget) {
  return cache.ClaimInChain(stream, offset, std::numeric_limits<int64_t>::max(), budget, 1)
      .has_value();
}

FetchAheadCache::Entry Entry(size_t bytes, int64_t next) {
  return FetchAheadCache::Entry{std::string(bytes, 'r'), next};
}

TEST(FetchAheadCacheTest, AnEntryIsTakenOnceForItsExactKey) {
  FetchAheadCache cache(1 << 20);
  ASSERT_TRUE(Claim(cache, 7, 100, 4096));
  EXPECT_FALSE(Claim(cache, 7, 100, 4096));  // pending
  cache.Complete(7, 100, 4096, Entry(1000, 150));
  EXPECT_FALSE(Claim(cache, 7, 100, 4096));  // stored
  EXPECT_FALSE(cache.Take(7, 100, 2048, milliseconds(0)).has_value());  // other budget
  EXPECT_FALSE(cache.Take(8, 100, 4096, milliseconds(0)).has_value());  // other stream
  EXPECT_FALSE(cache.Take(7, 101, 4096, milliseconds(0)).has_value());  // other offset
  auto hit = cache.Take(7, 100, 4096, milliseconds(0));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->records, std::string(1000, 'r'));
  EXPECT_EQ(hit->next_offset, 150);
  EXPECT_FALSE(cache.Take(7, 100, 4096, milliseconds(0)).has_value());
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_TRUE(Claim(cache, 7, 100, 4096));  // free again
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

// A chain of read-aheads: each link starts where the stored one before it stopped on its budget.
TEST(FetchAheadCacheTest, AChainGrowsLinkByLinkUpToItsDepth) {
  FetchAheadCache cache(1 << 20);
  using Link = std::optional<std::pair<int64_t, int>>;
  EXPECT_EQ(cache.ClaimInChain(7, 0, 100, 4096, 2), Link({0, 0}));
  EXPECT_EQ(cache.ClaimInChain(7, 0, 100, 4096, 2), Link());  // pending: its completion goes on
  cache.Complete(7, 0, 4096, FetchAheadCache::Entry{std::string(4096, 'r'), 10, 100});
  EXPECT_EQ(cache.ClaimInChain(7, 0, 100, 4096, 2), Link({10, 1}));
  cache.Complete(7, 10, 4096, FetchAheadCache::Entry{std::string(4096, 'r'), 20, 100});
  EXPECT_EQ(cache.ClaimInChain(7, 0, 100, 4096, 2), Link());  // two links ahead already
  EXPECT_EQ(cache.ClaimInChain(7, 0, 100, 4096, 3), Link({20, 2}));
  EXPECT_EQ(cache.ClaimInChain(7, 0, 100, 2048, 2), Link({0, 0}));  // another budget: its own
  EXPECT_EQ(cache.ClaimInChain(7, 100, 100, 4096, 2), Link());  // nothing committed there yet

  // The fetch at 0 takes its link; the chain now starts at 10 and may grow past 20.
  ASSERT_TRUE(cache.Take(7, 0, 4096, milliseconds(0)).has_value());
  cache.Complete(7, 20, 4096, FetchAheadCache::Entry{std::string(4096, 'r'), 30, 100});
  EXPECT_EQ(cache.ClaimInChain(7, 10, 100, 4096, 3), Link({30, 2}));

  // A link that read up to the end it saw ends the chain until a fetch sees more.
  cache.Complete(7, 30, 4096, FetchAheadCache::Entry{std::string(500, 'r'), 40, 40});
  EXPECT_EQ(cache.ClaimInChain(7, 10, 100, 4096, 8), Link());
}

TEST(FetchAheadCacheTest, AFetchWaitsForItsRunningReadAhead) {
  FetchAheadCache cache(1 << 20);
  ASSERT_TRUE(Claim(cache, 1, 0, 10));
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
  ASSERT_TRUE(Claim(cache, 1, 0, 10));
  std::thread ahead([&] { cache.Complete(1, 0, 10, std::nullopt); });
  EXPECT_FALSE(cache.Take(1, 0, 10, milliseconds(10000)).has_value());
  ahead.join();
  EXPECT_TRUE(Claim(cache, 1, 0, 10));
  EXPECT_FALSE(cache.Take(1, 0, 10, milliseconds(1)).has_value());  // still pending: gives up
}

TEST(FetchAheadCacheTest, OldestEntriesGoFirstBeyondTheBound) {
  FetchAheadCache cache(2500);
  for (int64_t offset : {0, 1, 2}) {
    ASSERT_TRUE(Claim(cache, 1, offset, 10));
    cache.Complete(1, offset, 10, Entry(1000, offset + 1));
  }
  EXPECT_LE(cache.bytes(), 2500u);
  EXPECT_FALSE(cache.Take(1, 0, 10, milliseconds(0)).has_value());
  EXPECT_TRUE(cache.Take(1, 1, 10, milliseconds(0)).has_value());
  EXPECT_TRUE(cache.Take(1, 2, 10, milliseconds(0)).has_value());
  ASSERT_TRUE(Claim(cache, 1, 3, 10));
  cache.Complete(1, 3, 10, Entry(3000, 4));  // larger than the bound: not kept
  EXPECT_FALSE(cache.Take(1, 3, 10, milliseconds(0)).has_value());
  EXPECT_EQ(cache.bytes(), 0u);
}

}  // namespace
}  // namespace mink::kafka
