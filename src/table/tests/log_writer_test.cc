#include "table/log_writer.h"

#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <latch>
#include <thread>

#include "table_test_node.h"

namespace mink::table {
namespace {

// A log table of two buckets keyed by id: native bucketing puts id 1 in b0 and id 300 in b1.
class LogWriterTest : public testing::RoomsTest {
 protected:
  void SetUp() override {
    RoomsTest::SetUp();
    CreateEvents();
  }
  void CreateEvents() {
    TableSpec events;
    events.columns = {"id BIGINT NOT NULL", "note STRING"};
    events.bucket_key = {"id"};
    events.bucket_count = 2;
    MustCreate("shop.events", events);
  }

  static Row E(int64_t id, const char* note) { return {Value::Int(id), Value::Bytes(note)}; }

  // Routes the rows and writes them with the log writer.
  static Result<WriteResult> WriteTo(testing::Rooms* rooms, const WriteRequest& request,
                                     const std::vector<Row>& rows) {
    MINK_ASSIGN_OR_RETURN(auto table, rooms->catalog.Find(request.table));
    MINK_ASSIGN_OR_RETURN(
        RoutedWrite routed,
        RouteRows(*table, request, {rooms->Batch(request.table, rows)}, &rooms->sticky));
    return rooms->log_writer.Write(*table, request, routed.rows);
  }
  Result<WriteResult> Write(const WriteRequest& request, const std::vector<Row>& rows) {
    return WriteTo(rooms_.get(), request, rows);
  }
  // "bucket:base..end" of each bucket written.
  static std::vector<std::string> Written(const Result<WriteResult>& r) {
    EXPECT_TRUE(r.ok()) << r.status();
    std::vector<std::string> out;
    if (!r.ok()) return out;
    for (const auto& b : r->buckets) {
      out.push_back(b.bucket + ":" + std::to_string(b.base_offset) + ".." +
                    std::to_string(b.end_offset));
    }
    return out;
  }
  // The committed end of each bucket of shop.events.
  std::vector<int64_t> Ends() {
    auto offsets = rooms_->reader.Offsets("shop.events", std::nullopt);
    EXPECT_TRUE(offsets.ok()) << offsets.status();
    std::vector<int64_t> out;
    for (const auto& o : *offsets) out.push_back(o.end);
    return out;
  }
  // Node 2 (its rooms wired as node 1's) takes bucket 0 of shop.events, does `there`, and node
  // 1 takes the bucket back. Node 1's state of the bucket is not told, as when a write holds the
  // bucket's lock while it moves away and back.
  void MoveAwayAndBack(const std::function<void(testing::Rooms*)>& there) {
    testing::NodeOptions options;
    options.node_id = 2;
    options.table_store = false;
    auto other = testing::TestNode::Start(meta_url_, objects_, options);
    ASSERT_NE(other, nullptr);
    auto rooms = std::make_unique<testing::Rooms>(other.get());
    const uint64_t stream = *rooms_->catalog.BucketStream("shop.events", 0);
    ASSERT_TRUE(other->storage->OpenStream(stream).ok());
    there(rooms.get());
    rooms.reset();
    other->storage->Stop();
    ASSERT_TRUE(node_->storage->OpenStream(stream).ok());
  }
  // AppendToBucket through `rooms`; the commit's status (or the refusal).
  static Status AppendVia(testing::Rooms* rooms, int32_t bucket, const std::vector<Row>& rows,
                          const WriterBatch& writer) {
    std::promise<Status> done;
    auto r = rooms->log_writer.AppendToBucket("shop.events", bucket,
                                              *rooms->Batch("shop.events", rows),
                                              metadata::kUnknownRecordTime, writer,
                                              [&done](Status s) { done.set_value(s); });
    if (!r.ok()) return r.status();
    return done.get_future().get();
  }
  std::vector<std::string> Stored() {
    ReadRequest all{"shop.events"};
    all.meta = true;
    return rooms_->Read(all);
  }
  // AppendToBucket to shop.events, waiting for `done` when it is accepted.
  Result<AppendOutcome> Append(int32_t bucket, const std::vector<Row>& rows,
                               const WriterBatch& writer, Status* committed = nullptr) {
    std::promise<Status> done;
    auto r = rooms_->log_writer.AppendToBucket(
        "shop.events", bucket, *rooms_->Batch("shop.events", rows), metadata::kUnknownRecordTime,
        writer, [&done](Status s) { done.set_value(s); });
    if (!r.ok()) return r;
    Status s = done.get_future().get();
    if (committed != nullptr) *committed = s;
    EXPECT_TRUE(s.ok()) << s;
    return r;
  }
};

TEST_F(LogWriterTest, AWriteToTwoBucketsReturnsTheOffsetsOfBoth) {
  EXPECT_EQ(Written(Write({"shop.events"}, {E(1, "a"), E(300, "b"), E(1, "c")})),
            (std::vector<std::string>{"b0:0..2", "b1:0..1"}));
  EXPECT_EQ(Written(Write({"shop.events"}, {E(300, "d")})), (std::vector<std::string>{"b1:1..2"}));
  EXPECT_EQ(Ends(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(Stored(), (std::vector<std::string>{"1,a,b0,0,+A", "1,c,b0,1,+A", "300,b,b1,0,+A",
                                                "300,d,b1,1,+A"}));
}

TEST_F(LogWriterTest, ARetriedIdempotentWriteAnswersItsFirstOffsetsAndStoresNothing) {
  auto writer = rooms_->catalog.AllocateWriterId();
  ASSERT_TRUE(writer.ok()) << writer.status();
  WriteRequest w{"shop.events"};
  w.writer_id = *writer;
  w.sequence = 0;
  const std::vector<std::string> first = Written(Write(w, {E(1, "a"), E(300, "b")}));
  EXPECT_EQ(first, (std::vector<std::string>{"b0:0..1", "b1:0..1"}));
  EXPECT_EQ(Written(Write(w, {E(1, "a"), E(300, "b")})), first);
  w.sequence = 1;
  EXPECT_EQ(Written(Write(w, {E(1, "c")})), (std::vector<std::string>{"b0:1..2"}));
  // An earlier batch retried late is still answered with its own offsets.
  w.sequence = 0;
  EXPECT_EQ(Written(Write(w, {E(1, "a"), E(300, "b")})), first);
  // Another writer's sequence 0 is its own.
  auto other = rooms_->catalog.AllocateWriterId();
  ASSERT_TRUE(other.ok());
  EXPECT_NE(*other, *writer);
  WriteRequest o{"shop.events"};
  o.writer_id = *other;
  o.sequence = 0;
  EXPECT_EQ(Written(Write(o, {E(300, "z")})), (std::vector<std::string>{"b1:1..2"}));
  EXPECT_EQ(Stored(), (std::vector<std::string>{"1,a,b0,0,+A", "1,c,b0,1,+A", "300,b,b1,0,+A",
                                                "300,z,b1,1,+A"}));
}

// A log bucket's writers are snapshotted, so a new process rebuilds them however long the log
// after the batch grew: a retry is answered, not written again.
TEST_F(LogWriterTest, ARetryIsAnsweredAfterARestartHoweverFarTheLogMovedOn) {
  StopNode();
  testing::NodeOptions options;
  options.tables.kv_snapshot_records = 4;
  options.tables.writer_state_replay_offsets = 2;  // the old limit: far less than the log moved
  StartNode(options);
  WriteRequest w{"shop.events"};
  w.writer_id = *rooms_->catalog.AllocateWriterId();
  w.sequence = 0;
  EXPECT_EQ(Written(Write(w, {E(1, "a")})), (std::vector<std::string>{"b0:0..1"}));
  WriteRequest later{"shop.events"};
  later.writer_id = *rooms_->catalog.AllocateWriterId();
  for (int i = 0; i < 6; ++i) {
    later.sequence = i;
    ASSERT_TRUE(Write(later, {E(1, "later")}).ok());
  }
  ASSERT_TRUE(rooms_->pk_writer.SnapshotAll(/*only_due=*/true).ok());
  const uint64_t stream = *rooms_->catalog.BucketStream("shop.events", 0);
  auto snapshot = node_->meta->Read([&](const metadata::State& s) {
    auto it = s.kv_snapshots().find(stream);
    return it == s.kv_snapshots().end() ? int64_t{-1} : it->second.offset;
  });
  EXPECT_EQ(snapshot, 7);  // due after 4 offsets; taken at the committed end
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Write({"shop.events"}, {E(1, "not idempotent")}).ok());
  StopNode();
  StartNode(options);
  EXPECT_EQ(Written(Write(w, {E(1, "a")})), (std::vector<std::string>{"b0:0..1"}));
  later.sequence = 5;
  EXPECT_EQ(Written(Write(later, {E(1, "later")})), (std::vector<std::string>{"b0:6..7"}));
  EXPECT_EQ(Ends(), (std::vector<int64_t>{10, 0}));
}

TEST_F(LogWriterTest, ASequenceBelowTheLastFiveIsOutOfOrder) {
  WriteRequest w{"shop.events"};
  w.writer_id = *rooms_->catalog.AllocateWriterId();
  for (int32_t seq = 0; seq <= 5; ++seq) {
    w.sequence = seq;
    ASSERT_TRUE(Write(w, {E(1, "x")}).ok()) << seq;
  }
  w.sequence = 0;  // written, but no longer among the five kept
  auto late = Write(w, {E(1, "x")});
  EXPECT_EQ(late.status().code(), StatusCode::kOutOfRange) << late.status();
  // Sequences may skip ahead (only Kafka's are strict).
  w.sequence = 9;
  EXPECT_EQ(Written(Write(w, {E(1, "y")})), (std::vector<std::string>{"b0:6..7"}));
  EXPECT_EQ(Ends(), (std::vector<int64_t>{7, 0}));
}

TEST_F(LogWriterTest, AppendToBucketKeepsKafkasStrictSequences) {
  const int64_t id = *rooms_->catalog.AllocateWriterId();
  auto batch = [&](int16_t epoch, int32_t first, int32_t last) {
    return WriterBatch{id, epoch, first, last, true};
  };
  auto a = Append(0, {E(1, "s0"), E(1, "s1")}, batch(0, 0, 1));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->base_offset, 0);
  EXPECT_FALSE(a->duplicate);
  auto gap = Append(0, {E(1, "s3")}, batch(0, 3, 3));
  EXPECT_EQ(gap.status().code(), StatusCode::kAborted) << gap.status();  // resend 2 first
  auto b = Append(0, {E(1, "s2")}, batch(0, 2, 2));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->base_offset, 2);
  auto retry = Append(0, {E(1, "s2")}, batch(0, 2, 2));
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_TRUE(retry->duplicate);
  EXPECT_EQ(retry->base_offset, 2);
  auto overlap = Append(0, {E(1, "s2"), E(1, "s3")}, batch(0, 2, 3));
  EXPECT_EQ(overlap.status().code(), StatusCode::kOutOfRange);
  EXPECT_NE(overlap.status().message().find("overlaps an earlier batch"), std::string::npos)
      << overlap.status();
  // A new epoch starts at 0; the old one is fenced from then on.
  auto late_start = Append(0, {E(1, "e1")}, batch(1, 5, 5));
  EXPECT_EQ(late_start.status().code(), StatusCode::kAborted) << late_start.status();
  auto c = Append(0, {E(1, "e1")}, batch(1, 0, 0));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->base_offset, 3);
  auto fenced = Append(0, {E(1, "old")}, batch(0, 3, 3));
  EXPECT_EQ(fenced.status().code(), StatusCode::kFailedPrecondition) << fenced.status();

  ReadRequest b0{"shop.events"};
  b0.bucket = 0;
  EXPECT_EQ(rooms_->Read(b0), (std::vector<std::string>{"1,s0", "1,s1", "1,s2", "1,e1"}));
  // Without a writer id nothing is checked: the same batch twice is stored twice.
  ASSERT_TRUE(Append(1, {E(7, "n")}, {}).ok());
  ASSERT_TRUE(Append(1, {E(7, "n")}, {}).ok());
  EXPECT_EQ(Ends(), (std::vector<int64_t>{4, 2}));
}

TEST_F(LogWriterTest, AppendToBucketRefusesWhatItCannotAppend) {
  TableSpec kv;
  kv.columns = {"id BIGINT NOT NULL", "note STRING"};
  kv.primary_key = {"id"};
  MustCreate("shop.kv", kv);
  TableSpec parts;
  parts.columns = {"id BIGINT NOT NULL", "note STRING"};
  parts.partition_by = {"note"};
  MustCreate("shop.parts", parts);
  auto append = [&](const std::string& table, int32_t bucket, const arrow::RecordBatch& batch) {
    return rooms_->log_writer.AppendToBucket(table, bucket, batch, metadata::kUnknownRecordTime, {},
                                             [](Status) {});
  };
  auto row = rooms_->Batch("shop.events", {E(1, "x")});
  EXPECT_EQ(append("shop.kv", 0, *row).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(append("shop.parts", 0, *row).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(append("shop.events", 2, *row).status().message(), "table shop.events has no bucket 2");
  auto other_schema = testing::BatchOf({"id BIGINT NOT NULL"}, {{Value::Int(1)}});
  EXPECT_EQ(append("shop.events", 0, *other_schema).status().message(),
            "batch schema does not match table shop.events");
  auto empty = rooms_->Batch("shop.events", {});
  EXPECT_EQ(append("shop.events", 0, *empty).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Ends(), (std::vector<int64_t>{0, 0}));
}

// An idempotent write's sequence is checked in every bucket before anything is appended: a write
// refused in one bucket stores nothing in the others. (It once did: the buckets checked before
// the refusal kept their appended rows, unrecorded in the writer's state.)
TEST_F(LogWriterTest, AnIdempotentWriteRefusedInOneBucketStoresNothingInAnother) {
  WriteRequest w{"shop.events"};
  w.writer_id = *rooms_->catalog.AllocateWriterId();
  w.sequence = 5;
  ASSERT_EQ(Written(Write(w, {E(300, "x")})), (std::vector<std::string>{"b1:0..1"}));
  // Sequence 3 is out of order in b1 (where 5 was written), new in b0.
  w.sequence = 3;
  auto refused = Write(w, {E(1, "a"), E(300, "y")});
  EXPECT_EQ(refused.status().code(), StatusCode::kOutOfRange) << refused.status();
  // A later write to b0, once committed, follows anything appended to b0 before it.
  ASSERT_TRUE(Write({"shop.events"}, {E(1, "later")}).ok());
  EXPECT_EQ(Stored(), (std::vector<std::string>{"1,later,b0,0,+A", "300,x,b1,0,+A"}));
}

// The buckets of an idempotent write are locked in stream order, whatever order its rows reach
// them in: two idempotent writes that reach the same two buckets in opposite orders both
// finish. (They once deadlocked, each holding one bucket's lock and waiting for the other's.)
TEST_F(LogWriterTest, TwoIdempotentWritesReachingTwoBucketsInOppositeOrdersBothFinish) {
  const int64_t first = *rooms_->catalog.AllocateWriterId();
  const int64_t second = *rooms_->catalog.AllocateWriterId();
  constexpr int kRounds = 20;
  auto results = std::make_shared<std::vector<std::promise<bool>>>(2);
  std::latch start(2);
  testing::Rooms* rooms = rooms_.get();
  auto run = [&start, rooms, results](int which, int64_t writer) {
    start.arrive_and_wait();
    bool all_ok = true;
    for (int32_t seq = 0; seq < kRounds; ++seq) {
      WriteRequest w{"shop.events"};
      w.writer_id = writer;
      w.sequence = seq;
      auto r = which == 0 ? WriteTo(rooms, w, {E(1, "a"), E(300, "b")})
                          : WriteTo(rooms, w, {E(300, "c"), E(1, "d")});
      all_ok = all_ok && r.ok();
    }
    (*results)[static_cast<size_t>(which)].set_value(all_ok);
  };
  std::thread a(run, 0, first);
  std::thread b(run, 1, second);
  auto done_a = (*results)[0].get_future();
  auto done_b = (*results)[1].get_future();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  bool finished = done_a.wait_until(deadline) == std::future_status::ready &&
                  done_b.wait_until(deadline) == std::future_status::ready;
  if (!finished) {
    // Deadlocked: the threads can never be joined, and the node they use never destroyed.
    a.detach();
    b.detach();
    (void)rooms_.release();
    (void)node_.release();
    FAIL() << "two idempotent log writes to buckets b0 and b1 in opposite orders deadlocked";
  }
  a.join();
  b.join();
  EXPECT_TRUE(done_a.get());
  EXPECT_TRUE(done_b.get());
  EXPECT_EQ(Ends(), (std::vector<int64_t>{2 * kRounds, 2 * kRounds}));
}

// A Kafka producer that retries a batch whose answer it did not get may do so while the first
// append is still uploading: the retry is answered when that append commits, with its status,
// never before (an acknowledged retry of a batch whose upload then fails would be lost).
TEST_F(LogWriterTest, ARetriedBatchIsAnsweredOnlyWithTheCommitOfTheBatchItRepeats) {
  StopNode();
  testing::NodeOptions options;
  options.upload_deadline = std::chrono::milliseconds(300);
  StartNode(options);
  const int64_t writer_id = *rooms_->catalog.AllocateWriterId();
  auto append = [&](int32_t sequence, const char* note, std::promise<Status>* done) {
    WriterBatch writer{writer_id, 0, sequence, sequence, true};
    return rooms_->log_writer.AppendToBucket(
        "shop.events", 0, *rooms_->Batch("shop.events", {E(sequence, note)}),
        metadata::kUnknownRecordTime, writer, [done](Status s) { done->set_value(s); });
  };
  object_store::FaultPlan slow;
  slow.latency = std::chrono::milliseconds(200);
  objects_->SetFaults(slow);
  std::promise<Status> first, retry;
  auto a = append(0, "a", &first);
  auto b = append(0, "a", &retry);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_FALSE(a->duplicate);
  EXPECT_TRUE(b->duplicate);
  EXPECT_EQ(b->base_offset, a->base_offset);
  auto retried = retry.get_future();
  EXPECT_EQ(retried.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout)
      << "the retry was answered while the first append was uploading";
  EXPECT_TRUE(first.get_future().get().ok());
  EXPECT_TRUE(retried.get().ok());

  // The store refuses every upload: the first append fails, and so does its retry.
  object_store::FaultPlan down = slow;
  down.fail_fraction = 1;
  objects_->SetFaults(down);
  std::promise<Status> lost, lost_retry;
  ASSERT_TRUE(append(1, "b", &lost).ok());
  auto c = append(1, "b", &lost_retry);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->duplicate);
  EXPECT_FALSE(lost.get_future().get().ok());
  EXPECT_FALSE(lost_retry.get_future().get().ok()) << "a retry of a lost batch was acknowledged";

  // Once the store is back, the producer's next retry is written. (The first may still be
  // refused, Aborted, while the stream is rewound past the failed upload: producers retry.)
  objects_->SetFaults({});
  Status written;
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::promise<Status> again;
    auto d = append(1, "b", &again);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_FALSE(d->duplicate);
    written = again.get_future().get();
    if (written.ok()) break;
    EXPECT_EQ(written.code(), StatusCode::kAborted) << written;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(written.ok()) << written;
  ReadRequest b0{"shop.events"};
  b0.bucket = 0;
  EXPECT_EQ(rooms_->Read(b0), (std::vector<std::string>{"0,a", "1,b"}));
}

// A writer's state is of one ownership of its bucket: kept from an earlier one, it misses what
// the owners between wrote. A Kafka producer's next batch would be refused as out of order (a
// fatal error in the client), and a retry of a batch another owner stored would be stored again.
TEST_F(LogWriterTest, AStateKeptFromAnEarlierOwnershipIsRebuiltBeforeASequenceIsJudged) {
  const int64_t id = *rooms_->catalog.AllocateWriterId();
  ASSERT_TRUE(Append(0, {E(1, "a")}, WriterBatch{id, 0, 0, 0, true}).ok());
  MoveAwayAndBack([&](testing::Rooms* there) {
    EXPECT_TRUE(AppendVia(there, 0, {E(1, "b")}, WriterBatch{id, 0, 1, 1, true}).ok());
  });
  auto next = Append(0, {E(1, "c")}, WriterBatch{id, 0, 2, 2, true});
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->base_offset, 2);
  EXPECT_EQ(Ends(), (std::vector<int64_t>{3, 0}));
}

TEST_F(LogWriterTest, ARetryOfABatchAnotherOwnerStoredIsAnsweredNotStoredAgain) {
  WriteRequest w{"shop.events"};
  w.writer_id = *rooms_->catalog.AllocateWriterId();
  w.sequence = 0;
  EXPECT_EQ(Written(Write(w, {E(1, "a")})), (std::vector<std::string>{"b0:0..1"}));
  w.sequence = 1;
  MoveAwayAndBack([&](testing::Rooms* there) {
    EXPECT_EQ(Written(WriteTo(there, w, {E(1, "b")})), (std::vector<std::string>{"b0:1..2"}));
  });
  // Its answer was lost; the writer retries through node 1, which has the bucket again.
  EXPECT_EQ(Written(Write(w, {E(1, "b")})), (std::vector<std::string>{"b0:1..2"}));
  EXPECT_EQ(Ends(), (std::vector<int64_t>{2, 0}));
}

// The WAL refuses an append checked against another ownership of its stream, so a check and
// its append never straddle a move.
TEST_F(LogWriterTest, AnAppendCheckedAtAnotherEpochOfItsStreamIsRefused) {
  const uint64_t stream = *rooms_->catalog.BucketStream("shop.events", 0);
  const int64_t epoch = node_->storage->WriteEpoch(stream);
  ASSERT_GE(epoch, 1);
  auto input = [&](int64_t expect) {
    storage::BatchInput in;
    in.record_count = 1;
    in.payload = "x";
    in.expect_stream_epoch = expect;
    return in;
  };
  auto refused = node_->storage->Append(stream, input(epoch - 1), [](Status) {});
  EXPECT_EQ(refused.status().code(), StatusCode::kAborted) << refused.status();
  auto taken = node_->storage->AppendAndWait(stream, input(epoch));
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(taken->base_offset, 0);
}

}  // namespace
}  // namespace mink::table
