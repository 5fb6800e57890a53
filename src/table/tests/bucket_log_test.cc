#include "table/bucket_log.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "table/payload.h"
#include "table_test_node.h"

namespace mink::table {
namespace {

// shop.topic: a log table of two buckets, as a Kafka topic of two partitions.
class BucketLogTest : public testing::RoomsTest {
 protected:
  void SetUp() override {
    RoomsTest::SetUp();
    TableSpec topic;
    topic.columns = {"id BIGINT NOT NULL", "note STRING"};
    topic.bucket_count = 2;
    MustCreate("shop.topic", topic);
    auto stream = log().Stream("shop.topic", 0);
    ASSERT_TRUE(stream.ok()) << stream.status();
    stream_ = *stream;
  }

  BucketLog& log() { return rooms_->bucket_log; }
  static Row E(int64_t id, const char* note) { return {Value::Int(id), Value::Bytes(note)}; }
  // Appends rows to bucket 0 and waits for the commit.
  void Append(const std::vector<Row>& rows) {
    std::promise<Status> done;
    auto r = rooms_->log_writer.AppendToBucket("shop.topic", 0, *rooms_->Batch("shop.topic", rows),
                                               metadata::kUnknownRecordTime, {},
                                               [&done](Status s) { done.set_value(s); });
    ASSERT_TRUE(r.ok()) << r.status();
    Status s = done.get_future().get();
    ASSERT_TRUE(s.ok()) << s;
  }
  // The rows of stored batches as text lines.
  std::vector<std::string> Rows(const storage::ReadResult& r) {
    auto table = rooms_->catalog.Find("shop.topic");
    auto decoder = PayloadDecoder::Make((*table)->schema);
    EXPECT_TRUE(decoder.ok()) << decoder.status();
    std::vector<std::string> lines;
    for (const auto& b : r.batches) {
      auto batch = decoder->Decode(b->payload);
      EXPECT_TRUE(batch.ok()) << batch.status();
      for (auto& l : testing::Lines(**batch)) lines.push_back(l);
    }
    return lines;
  }

  uint64_t stream_ = 0;
};

TEST_F(BucketLogTest, StreamIsTheBucketsStreamOfAnUnpartitionedTable) {
  EXPECT_EQ(stream_, *rooms_->catalog.BucketStream("shop.topic", 0));
  EXPECT_NE(*log().Stream("shop.topic", 1), stream_);
  EXPECT_EQ(log().Stream("shop.topic", 2).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(log().Stream("shop.nope", 0).status().code(), StatusCode::kNotFound);
}

TEST_F(BucketLogTest, TheOffsetRangeFollowsWritesAndIsNothingForAnUnknownStream) {
  auto empty = log().OffsetRange(stream_);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->start, 0);
  EXPECT_EQ(empty->end, 0);
  Append({E(1, "a"), E(2, "b")});
  Append({E(3, "c")});
  auto range = log().OffsetRange(stream_);
  ASSERT_TRUE(range);
  EXPECT_EQ(range->start, 0);
  EXPECT_EQ(range->end, 3);
  EXPECT_EQ(log().OffsetRange(*log().Stream("shop.topic", 1))->end, 0);

  EXPECT_FALSE(log().OffsetRange(stream_ + 1000));
  // A dropped table's streams are unknown from then on.
  ASSERT_TRUE(rooms_->catalog.DropTable("shop.topic").ok());
  EXPECT_FALSE(log().OffsetRange(stream_));
}

TEST_F(BucketLogTest, ReadReturnsTheStoredBatchesFromAnOffset) {
  Append({E(1, "a"), E(2, "b")});
  Append({E(3, "c")});
  auto all = log().Read(stream_, 0, 1 << 20);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->batches.size(), 2u);
  EXPECT_EQ(all->batches[0]->base_offset, 0);
  EXPECT_EQ(all->batches[0]->record_count, 2);
  EXPECT_EQ(all->batches[1]->base_offset, 2);
  EXPECT_EQ(all->end_offset, 3);
  EXPECT_EQ(Rows(*all), (std::vector<std::string>{"1,a", "2,b", "3,c"}));
  // From inside a batch: the batch holding the offset comes first.
  auto inside = log().Read(stream_, 1, 1 << 20);
  ASSERT_TRUE(inside.ok()) << inside.status();
  EXPECT_EQ(inside->batches.front()->base_offset, 0);
  // At the end: nothing; beyond it: OutOfRange.
  auto at_end = log().Read(stream_, 3, 1 << 20);
  ASSERT_TRUE(at_end.ok()) << at_end.status();
  EXPECT_TRUE(at_end->batches.empty());
  EXPECT_EQ(log().Read(stream_, 4, 1 << 20).status().code(), StatusCode::kOutOfRange);
}

TEST_F(BucketLogTest, TrimBeforeMovesTheStart) {
  Append({E(1, "a"), E(2, "b")});
  Append({E(3, "c")});
  ASSERT_TRUE(log().TrimBefore(stream_, 2).ok());
  auto range = log().OffsetRange(stream_);
  ASSERT_TRUE(range);
  EXPECT_EQ(range->start, 2);
  EXPECT_EQ(range->end, 3);
  EXPECT_EQ(log().Read(stream_, 0, 1 << 20).status().code(), StatusCode::kOutOfRange);
  auto rest = log().Read(stream_, 2, 1 << 20);
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_EQ(rest->start_offset, 2);
  EXPECT_EQ(Rows(*rest), (std::vector<std::string>{"3,c"}));
  // The table reads from the new start too.
  EXPECT_EQ(rooms_->Read({"shop.topic"}), (std::vector<std::string>{"3,c"}));
}

TEST_F(BucketLogTest, WaitForCommitReturnsAfterAWrite) {
  const int64_t seen = log().CommitPosition();
  // Nothing committed: the wait ends at its timeout, at the same position.
  EXPECT_EQ(log().WaitForCommit(seen, std::chrono::milliseconds(20)), seen);
  auto writer = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Append({E(1, "a")});
  });
  const auto started = std::chrono::steady_clock::now();
  const int64_t after = log().WaitForCommit(seen, std::chrono::seconds(5));
  const auto waited = std::chrono::steady_clock::now() - started;
  writer.get();
  EXPECT_GT(after, seen);
  EXPECT_LT(waited, std::chrono::seconds(4)) << "the wait ran to its timeout";
  // Waiting on a position already passed returns at once.
  EXPECT_EQ(log().WaitForCommit(seen, std::chrono::seconds(5)), log().CommitPosition());
}

}  // namespace
}  // namespace mink::table
