// StreamStore's maintenance: compaction of WAL runs into stream objects, garbage collection of
// what no segment references, the sweep of objects never committed, retention, and finding an
// offset by time.

#include <gtest/gtest.h>

#include <thread>

#include "storage/object_keys.h"
#include "storage/tests/stream_store_fixture.h"

namespace mink::storage {
namespace {

using testing::ReadAll;
using testing::Records;
using testing::TestNode;

TEST_F(StreamStoreTest, CompactionMovesWalRunsIntoStreamObjectsAndGcDeletesTheWal) {
  options_.compaction_min_age = std::chrono::milliseconds(0);
  options_.delete_grace = std::chrono::milliseconds(0);
  options_.block_bytes = 2000;
  auto node = Node(1);
  uint64_t s1 = NewOpenStream(node.get());
  uint64_t s2 = NewOpenStream(node.get());
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(node->store->AppendAndWait(i % 2 ? s1 : s2, Records(std::string(200, 'a' + i % 26) + std::to_string(i))).ok());
  }
  size_t wal_objects = mem_->List("wal/")->size();
  EXPECT_GT(wal_objects, 1u);
  ASSERT_TRUE(node->store->RunCompaction().ok());
  EXPECT_EQ(node->store->maintenance_stats().compactions, 2u);
  node->meta->Read([&](const metadata::State& st) {
    for (uint64_t s : {s1, s2}) {
      const auto* stream = st.FindStream(s);
      EXPECT_GT(stream->segments.size(), 1u);  // several blocks
      for (const auto& [start, seg] : stream->segments) EXPECT_FALSE(IsWalKey(seg.object_key));
    }
    EXPECT_EQ(st.unreferenced().size(), wal_objects);
  });
  // A stream object alone is not rewritten again, however many blocks it has.
  ASSERT_TRUE(node->store->RunCompaction().ok());
  EXPECT_EQ(node->store->maintenance_stats().compactions, 2u);
  ASSERT_TRUE(node->store->RunGarbageCollection().ok());
  EXPECT_EQ(mem_->List("wal/")->size(), 0u);
  EXPECT_EQ(node->store->maintenance_stats().objects_deleted, wal_objects);
  node->meta->Read([&](const metadata::State& st) { EXPECT_TRUE(st.unreferenced().empty()); });
  // Read through a fresh node (no caches): everything is still there, in order.
  auto reader = Node(2);
  auto batches = ReadAll(reader->store.get(), s1);
  ASSERT_EQ(batches.size(), 20u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(batches[i]->base_offset, i);
    EXPECT_EQ(batches[i]->payload.view(),
              std::string(200, 'a' + (2 * i + 1) % 26) + std::to_string(2 * i + 1));
  }
  // Small stream objects are merged on the next rounds.
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(node->store->AppendAndWait(s1, Records("more")).ok());
  ASSERT_TRUE(node->store->RunCompaction().ok());
  ASSERT_TRUE(reader->meta->CatchUp().ok());  // its tailer may not have seen the last commits yet
  EXPECT_EQ(ReadAll(reader->store.get(), s1).size(), 24u);
}

// A stream written faster than one stream object per interval: one run compacts all of it, and
// the next finds nothing left to rewrite.
TEST_F(StreamStoreTest, OneCompactionRunCatchesUpWithMoreThanOneObjectOfWal) {
  options_.compaction_min_age = std::chrono::milliseconds(0);
  options_.stream_object_bytes = 3000;
  options_.block_bytes = 1000;
  auto node = Node(1);
  uint64_t s = NewOpenStream(node.get());
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(node->store->AppendAndWait(s, Records(std::string(200, 'a' + i % 26) + std::to_string(i))).ok());
  }
  ASSERT_TRUE(node->store->RunCompaction().ok());
  const uint64_t compactions = node->store->maintenance_stats().compactions;
  EXPECT_GE(compactions, 3u);  // ~9 KB of batches, at most 3000 bytes per object
  node->meta->Read([&](const metadata::State& st) {
    for (const auto& [start, seg] : st.FindStream(s)->segments) {
      EXPECT_FALSE(IsWalKey(seg.object_key)) << "offset " << start << " is still in the WAL";
    }
  });
  ASSERT_TRUE(node->store->RunCompaction().ok());
  EXPECT_EQ(node->store->maintenance_stats().compactions, compactions);
  auto batches = ReadAll(node->store.get(), s);
  ASSERT_EQ(batches.size(), 40u);
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(batches[i]->base_offset, i);
    EXPECT_EQ(batches[i]->payload.view(), std::string(200, 'a' + i % 26) + std::to_string(i));
  }
}

// A round's segments are fetched a window at a time, in parallel: a run of 100 WAL segments
// (over three windows) becomes one stream object with every batch in its place.
TEST_F(StreamStoreTest, ARunOfManySegmentsIsFetchedInWindowsAndCopiedInOrder) {
  options_.compaction_min_age = std::chrono::milliseconds(0);
  auto node = Node(1);
  uint64_t s = NewOpenStream(node.get());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(node->store->AppendAndWait(s, Records("record " + std::to_string(i))).ok());
  }
  ASSERT_TRUE(node->store->RunCompaction().ok());
  EXPECT_EQ(node->store->maintenance_stats().compactions, 1u);
  node->meta->Read([&](const metadata::State& st) {
    ASSERT_EQ(st.FindStream(s)->segments.size(), 1u);
    EXPECT_FALSE(IsWalKey(st.FindStream(s)->segments.begin()->second.object_key));
  });
  auto batches = ReadAll(node->store.get(), s);
  ASSERT_EQ(batches.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(batches[i]->base_offset, i);
    EXPECT_EQ(batches[i]->payload.view(), "record " + std::to_string(i));
  }
}

TEST_F(StreamStoreTest, NeverCommittedObjectsAreSweptAfterTheGrace) {
  options_.orphan_grace = std::chrono::milliseconds(400);
  auto node = Node(1);
  uint64_t s = NewOpenStream(node.get());
  ASSERT_TRUE(node->store->AppendAndWait(s, Records("kept")).ok());
  ASSERT_TRUE(mem_->Put("wal/n9/e1/000000000001", "an upload whose commit never happened").ok());
  ASSERT_TRUE(mem_->Put("streams/42/00000000000000000000-n9e1s0", "orphan compaction output").ok());
  // Young objects may still be committed by their writer: they stay.
  ASSERT_TRUE(node->store->RunGarbageCollection().ok());
  EXPECT_EQ(node->store->maintenance_stats().orphans_deleted, 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  ASSERT_TRUE(node->store->RunGarbageCollection().ok());
  EXPECT_EQ(node->store->maintenance_stats().orphans_deleted, 2u);
  EXPECT_EQ(mem_->Get("wal/n9/e1/000000000001").status().code(), StatusCode::kNotFound);
  auto remaining = mem_->List("wal/");
  ASSERT_EQ(remaining->size(), 1u);  // the committed one
  auto batches = ReadAll(node->store.get(), s);
  ASSERT_EQ(batches.size(), 1u);
}

TEST_F(StreamStoreTest, RetentionTrimsBatchesOlderThanTheLimit) {
  ManualClock clock;
  options_.retention = std::chrono::hours(1);
  auto node = Node(1, &clock);
  uint64_t s = NewOpenStream(node.get());
  ASSERT_TRUE(node->store->AppendAndWait(s, Records("old", 3)).ok());
  clock.Advance(2 * 3600 * 1000);
  ASSERT_TRUE(node->store->AppendAndWait(s, Records("new", 2)).ok());
  ASSERT_TRUE(node->store->RunRetention().ok());
  auto r = node->store->Read(s, 0, 1024);
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  auto fresh = node->store->Read(s, 3, 1024);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->start_offset, 3);
  ASSERT_EQ(fresh->batches.size(), 1u);
  EXPECT_EQ(fresh->batches[0]->payload.view(), "new");
  clock.Advance(2 * 3600 * 1000);
  ASSERT_TRUE(node->store->RunRetention().ok());
  auto none = node->store->Read(s, 5, 1024);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->start_offset, 5);
}

TEST_F(StreamStoreTest, OffsetAtTimeFindsTheFirstBatchCommittedSince) {
  ManualClock clock;
  auto node = Node(1, &clock);
  uint64_t s = NewOpenStream(node.get());
  int64_t t0 = clock.NowMillis();
  ASSERT_TRUE(node->store->AppendAndWait(s, Records("a", 2)).ok());
  ASSERT_TRUE(node->store->AppendAndWait(s, Records("b", 3)).ok());
  clock.Advance(1000);
  ASSERT_TRUE(node->store->AppendAndWait(s, Records("c", 1)).ok());
  EXPECT_EQ(*node->store->OffsetAtTime(s, t0 - 10), 0);
  EXPECT_EQ(*node->store->OffsetAtTime(s, t0 + 500), 5);
  EXPECT_EQ(*node->store->OffsetAtTime(s, t0 + 5000), 6);
  EXPECT_EQ(node->store->OffsetAtTime(99, 0).status().code(), StatusCode::kNotFound);
}

// Each AppendAndWait commits alone, so each batch is a segment of its own before compaction.

}  // namespace
}  // namespace mink::storage
