#include "table/kv_state.h"

#include <gtest/gtest.h>

#include "base/bytes.h"
#include "codec/crc32c.h"
#include "table/writer_state.h"

namespace mink::table {
namespace {

TEST(KvState, SnapshotRoundTripsAndDetectsDamage) {
  KvState kv;
  for (int i = 0; i < 1000; ++i) kv.Put("key" + std::to_string(i), std::string(i % 50, 'v'));
  kv.Put("key5", "replaced");
  kv.Erase("key7");
  const std::string writers = R"({"end":1234,"writers":[[7,0,[[0,0,10,-1,5]]]]})";
  std::string snap = kv.Snapshot(1234, 3, writers);
  int64_t offset = 0;
  int32_t schema_id = 0;
  std::string writers_back;
  auto loaded = KvState::Load(snap, "kv/1", &offset, &schema_id, &writers_back);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(offset, 1234);
  EXPECT_EQ(schema_id, 3);
  EXPECT_EQ(writers_back, writers);
  EXPECT_EQ(loaded->size(), 999u);
  EXPECT_EQ(*loaded->Get("key5"), "replaced");
  EXPECT_EQ(loaded->Get("key7"), nullptr);
  EXPECT_EQ(loaded->bytes(), kv.bytes());
  std::string bad = snap;
  bad[100] ^= 1;
  auto damaged = KvState::Load(bad, "kv/1", &offset, &schema_id, &writers_back);
  EXPECT_TRUE(IsDataLoss(damaged.status()));
  EXPECT_NE(damaged.status().message().find("kv/1"), std::string::npos);
  EXPECT_TRUE(IsDataLoss(
      KvState::Load(snap.substr(0, 30), "kv/1", &offset, &schema_id, &writers_back).status()));

  // A snapshot of the second format (no writers: the reserved word is 0) still loads.
  const std::string entries = snap.substr(32, snap.size() - 36 - writers.size());
  std::string v2 = "MKKV0002" + snap.substr(8, 20);
  PutU32(&v2, 0);
  v2 += entries;
  PutU32(&v2, codec::Crc32c(v2));
  auto second = KvState::Load(v2, "kv/v2", &offset, &schema_id, &writers_back);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(schema_id, 3);
  EXPECT_EQ(writers_back, "");
  EXPECT_EQ(second->size(), 999u);

  // A snapshot of the first format (no schema id: its values are rows of schema 0) still loads.
  std::string v1 = "MKKV0001" + snap.substr(8, 16) + entries;
  PutU32(&v1, codec::Crc32c(v1));
  schema_id = -1;
  auto old = KvState::Load(v1, "kv/old", &offset, &schema_id, &writers_back);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(schema_id, 0);
  EXPECT_EQ(offset, 1234);
  EXPECT_EQ(*old->Get("key5"), "replaced");
  EXPECT_EQ(old->size(), 999u);
}

TEST(WriterStates, RetriesAreRecognisedAndGapsRefused) {
  WriterStates w;
  EXPECT_FALSE(w.Check(7, 0, 0, true)->has_value());
  w.Record(7, 0, {0, 0, 10});
  w.Record(7, 0, {1, 10, 12});
  auto retry = w.Check(7, 0, 0, true);
  ASSERT_TRUE(retry.ok());
  ASSERT_TRUE(retry->has_value());
  EXPECT_EQ((*retry)->base_offset, 0);
  EXPECT_FALSE(w.Check(7, 0, 2, true)->has_value());
  EXPECT_EQ(w.Check(7, 0, 4, true).status().code(), StatusCode::kAborted);  // a gap: resend 2, 3
  EXPECT_TRUE(w.Check(7, 0, 4, false).ok());                                    // non-strict: grows
  EXPECT_TRUE(w.Check(9, 0, 3, true).ok());  // a writer without state starts anywhere
  w.Record(11, 0, {0, 20, 25, 4});            // a Kafka batch: sequences 0..4
  EXPECT_FALSE(w.Check(11, 0, 5, true)->has_value());
  EXPECT_EQ(w.Check(11, 0, 4, true).status().code(), StatusCode::kOutOfRange);
  for (int s = 2; s < 10; ++s) w.Record(7, 0, {s, 12 + s, 13 + s});
  EXPECT_EQ(w.Check(7, 0, 1, false).status().code(), StatusCode::kOutOfRange);  // forgotten
  EXPECT_TRUE(w.Check(7, 0, 5, false)->has_value());
}

// librdkafka raises its producer epoch by itself after a request it lost, and numbers the
// batches it sends again from 0: that is a new history, not a retry of the first batch.
TEST(WriterStates, ANewEpochStartsAtSequenceZeroAndAnOlderOneIsFenced) {
  WriterStates w;
  w.Record(7, 0, {0, 0, 1});
  w.Record(7, 0, {1, 1, 2});
  EXPECT_FALSE(w.Check(7, 1, 0, true)->has_value());  // new, not the retry of (epoch 0, seq 0)
  EXPECT_EQ(w.Check(7, 1, 2, true).status().code(), StatusCode::kAborted);  // 0 and 1 missing
  w.Record(7, 1, {0, 2, 3});
  EXPECT_EQ(w.Check(7, 0, 2, true).status().code(), StatusCode::kFailedPrecondition);
  auto retry = w.Check(7, 1, 0, true);
  ASSERT_TRUE(retry.ok() && retry->has_value());
  EXPECT_EQ((*retry)->base_offset, 2);
  EXPECT_FALSE(w.Check(7, 1, 1, true)->has_value());
  EXPECT_EQ(w.Check(7, 1, 2, true).status().code(), StatusCode::kAborted);
}

// A hand-off checkpoint answers retries and refuses gaps and fenced epochs as the states did.
TEST(WriterStates, CheckpointRoundTrips) {
  WriterStates w;
  w.Record(7, 0, {0, 0, 10});
  w.Record(7, 1, {0, 10, 12});
  w.Record(11, 0, {0, 12, 17, 4});
  int64_t end = 0;
  auto back = WriterStates::DecodeCheckpoint(w.EncodeCheckpoint(17), &end);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(end, 17);
  EXPECT_EQ(back->writers(), 2u);
  EXPECT_EQ(back->MaxEndOffset(), 17);
  auto retry = back->Check(11, 0, 0, true);
  ASSERT_TRUE(retry.ok() && retry->has_value());
  EXPECT_EQ((*retry)->base_offset, 12);
  EXPECT_EQ((*retry)->Last(), 4);
  EXPECT_FALSE(back->Check(11, 0, 5, true)->has_value());
  EXPECT_EQ(back->Check(7, 0, 1, true).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(WriterStates::DecodeCheckpoint("{\"end\": 3}", &end).status().code(),
            StatusCode::kDataLoss);
}

// A checkpoint keeps only what is committed below its offset, and idle writers expire.
TEST(WriterStates, CheckpointsHoldBatchesBelowTheirOffsetAndIdleWritersExpire) {
  WriterStates w;
  w.Record(7, 0, {0, 0, 10, -1, nullptr, 1000});
  w.Record(7, 0, {1, 10, 12, -1, nullptr, 2000});
  w.Record(9, 0, {0, 12, 14, -1, nullptr, 5000});
  int64_t end = 0;
  auto below = WriterStates::DecodeCheckpoint(w.EncodeCheckpoint(10), &end);
  ASSERT_TRUE(below.ok()) << below.status();
  EXPECT_EQ(below->writers(), 1u);  // writer 9 wrote nothing below 10
  EXPECT_EQ(below->MaxEndOffset(), 10);
  auto all = WriterStates::DecodeCheckpoint(w.EncodeCheckpoint(14), &end);
  ASSERT_TRUE(all.ok());
  all->Expire(3000);  // writer 7 last wrote at 2000, writer 9 at 5000: times survive the trip
  EXPECT_EQ(all->writers(), 1u);
  EXPECT_FALSE(all->Check(7, 0, 0, false)->has_value());  // forgotten: starts anew
  EXPECT_TRUE(all->Check(9, 0, 0, false)->has_value());
}

TEST(PendingCommit, WaitersGetTheStatusOnceItIsKnown) {
  PendingCommit commit;
  std::vector<Status> seen;
  commit.OnDone([&](Status s) { seen.push_back(s); });
  EXPECT_TRUE(seen.empty());
  commit.Resolve(UnavailableError("the store is down"));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].code(), StatusCode::kUnavailable);
  commit.OnDone([&](Status s) { seen.push_back(s); });  // after: at once
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace mink::table
