#include "table/table_reader.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "table_test_node.h"

namespace mink::table {
namespace {

// shop.events: a log table of two buckets keyed by id (native bucketing: id 1 in b0, id 300 in
// b1). shop.kv: a primary-key table of one bucket. The metadata clock is manual, so commit
// times are known.
class TableReaderTest : public testing::RoomsTest {
 protected:
  void SetUp() override {
    meta_url_ = testing::TempMetaUrl("table-reader");
    objects_ = std::make_shared<object_store::MemoryStore>();
    testing::NodeOptions options;
    options.clock = &clock_;
    options.tables.snapshot_batch_rows = 2;
    StartNode(options);
    ASSERT_TRUE(rooms_->catalog.CreateDatabase("shop").ok());
    TableSpec events;
    events.columns = {"id BIGINT NOT NULL", "note STRING"};
    events.bucket_key = {"id"};
    events.bucket_count = 2;
    MustCreate("shop.events", events);
    TableSpec kv;
    kv.columns = {"id BIGINT NOT NULL", "v STRING"};
    kv.primary_key = {"id"};
    MustCreate("shop.kv", kv);
  }

  static Row E(int64_t id, const char* note) { return {Value::Int(id), Value::Bytes(note)}; }

  TableReader& reader() { return rooms_->reader; }
  std::vector<std::string> Read(const ReadRequest& request) { return rooms_->Read(request); }
  Status ReadStatus(const ReadRequest& request) {
    return reader().Read(request, [](const arrow::RecordBatchPtr&) { return true; });
  }
  std::vector<std::string> FieldNames(const ReadRequest& request) {
    auto schema = reader().ReadSchema(request);
    EXPECT_TRUE(schema.ok()) << schema.status();
    std::vector<std::string> names;
    if (schema.ok()) {
      for (const auto& f : (*schema)->fields()) names.push_back(f.name());
    }
    return names;
  }

  ManualClock clock_;
};

TEST_F(TableReaderTest, AProjectionAndTheMetaColumnsAreWhatTheReadAsksFor) {
  rooms_->MustWrite("shop.events", {E(1, "a"), E(1, "b"), E(300, "c")});
  ReadRequest notes{"shop.events"};
  notes.columns = {"note"};
  notes.meta = true;
  EXPECT_EQ(FieldNames(notes),
            (std::vector<std::string>{"note", "__bucket", "__offset", "__change"}));
  EXPECT_EQ(Read(notes), (std::vector<std::string>{"a,b0,0,+A", "b,b0,1,+A", "c,b1,0,+A"}));
  // Columns in the order asked, each as often as asked; the commit time on request.
  ReadRequest reordered{"shop.events"};
  reordered.columns = {"note", "id"};
  reordered.timestamp = true;
  reordered.bucket = 1;
  EXPECT_EQ(FieldNames(reordered), (std::vector<std::string>{"note", "id", "__timestamp"}));
  EXPECT_EQ(Read(reordered),
            (std::vector<std::string>{"c,300," + std::to_string(clock_.NowMillis())}));
  ReadRequest unknown{"shop.events"};
  unknown.columns = {"nope"};
  EXPECT_EQ(ReadStatus(unknown).message(), "unknown column 'nope'");

  // A primary-key table's log is its changelog; a snapshot has only __bucket.
  rooms_->MustWrite("shop.kv", {E(1, "x")});
  rooms_->MustWrite("shop.kv", {E(1, "y")});
  ReadRequest changelog{"shop.kv"};
  changelog.meta = true;
  EXPECT_EQ(Read(changelog),
            (std::vector<std::string>{"1,x,b0,0,+I", "1,x,b0,1,-U", "1,y,b0,2,+U"}));
  ReadRequest snapshot{"shop.kv"};
  snapshot.mode = ReadMode::kSnapshot;
  snapshot.meta = true;
  snapshot.timestamp = true;
  EXPECT_EQ(FieldNames(snapshot), (std::vector<std::string>{"id", "v", "__bucket"}));
  EXPECT_EQ(Read(snapshot), (std::vector<std::string>{"1,y,b0"}));
}

TEST_F(TableReaderTest, AReadStartsAtTheEarliestTheLatestOrAnOffset) {
  rooms_->MustWrite("shop.events", {E(1, "a"), E(1, "b")});
  rooms_->MustWrite("shop.events", {E(1, "c")});
  ReadRequest r{"shop.events"};
  r.bucket = 0;
  EXPECT_EQ(Read(r), (std::vector<std::string>{"1,a", "1,b", "1,c"}));
  r.from = "latest";
  EXPECT_TRUE(Read(r).empty());
  r.from = "1";  // inside the first batch
  EXPECT_EQ(Read(r), (std::vector<std::string>{"1,b", "1,c"}));
  r.from = "2";
  EXPECT_EQ(Read(r), (std::vector<std::string>{"1,c"}));
  r.from = "9";  // beyond the end: nothing yet
  EXPECT_TRUE(Read(r).empty());
  r.from = "1";
  r.end = 2;  // and stopping before an offset
  EXPECT_EQ(Read(r), (std::vector<std::string>{"1,b"}));
  for (const char* bad : {"-1", "first", ""}) {
    ReadRequest b{"shop.events"};
    b.from = bad;
    EXPECT_EQ(ReadStatus(b).code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST_F(TableReaderTest, AnOffsetBeforeTheStartIsOutOfRangeNamingTheBucket) {
  rooms_->MustWrite("shop.events", {E(300, "a"), E(300, "b"), E(300, "c")});
  ASSERT_TRUE(node_->storage->Trim(*rooms_->catalog.BucketStream("shop.events", 1), 2).ok());
  ReadRequest r{"shop.events"};
  r.from = "1";
  Status s = ReadStatus(r);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "offset 1 of shop.events b1 is before its start 2");
  r.from = "earliest";
  EXPECT_EQ(Read(r), (std::vector<std::string>{"300,c"}));
}

TEST_F(TableReaderTest, ALimitStopsTheReadAcrossBatchesAndBuckets) {
  rooms_->MustWrite("shop.events", {E(1, "a"), E(1, "b")});
  rooms_->MustWrite("shop.events", {E(1, "c"), E(300, "d"), E(300, "e")});
  ReadRequest r{"shop.events"};
  r.limit = 4;  // b0's three rows, then the first of b1
  EXPECT_EQ(Read(r), (std::vector<std::string>{"1,a", "1,b", "1,c", "300,d"}));
  r.limit = 1;  // part of a batch
  EXPECT_EQ(Read(r), (std::vector<std::string>{"1,a"}));
  r.limit = 0;
  EXPECT_TRUE(Read(r).empty());
  // A sink that returns false stops the read too.
  int batches = 0;
  ASSERT_TRUE(reader()
                  .Read({"shop.events"},
                        [&](const arrow::RecordBatchPtr&) {
                          ++batches;
                          return false;
                        })
                  .ok());
  EXPECT_EQ(batches, 1);
}

TEST_F(TableReaderTest, AFollowingReadSeesALaterWriteToANewPartition) {
  TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "region STRING"};
  spec.partition_by = {"region"};
  MustCreate("shop.visits", spec);
  auto row = [](int64_t id, const char* region) {
    return Row{Value::Int(id), Value::Bytes(region)};
  };
  rooms_->MustWrite("shop.visits", {row(1, "us")});
  ReadRequest follow{"shop.visits"};
  follow.follow = true;
  follow.limit = 2;
  follow.meta = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  auto lines = std::async(std::launch::async, [&] {
    std::vector<std::string> out;
    Status s = reader().Read(
        follow,
        [&](const arrow::RecordBatchPtr& b) {
          for (auto& l : testing::Lines(*b)) out.push_back(l);
          return true;
        },
        [&] { return std::chrono::steady_clock::now() > deadline; });
    EXPECT_TRUE(s.ok()) << s;
    return out;
  });
  // The reader is waiting (it has the first row); the next write creates partition eu.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  rooms_->MustWrite("shop.visits", {row(2, "eu")});
  ASSERT_EQ(lines.wait_until(deadline + std::chrono::seconds(1)), std::future_status::ready);
  EXPECT_EQ(lines.get(), (std::vector<std::string>{"1,us,p1/b0,0,+A", "2,eu,p2/b0,0,+A"}));
}

TEST_F(TableReaderTest, ASnapshotReadReturnsTheCurrentRowsInBatchesOfTheConfiguredSize) {
  rooms_->MustWrite("shop.kv", {E(3, "c"), E(1, "a"), E(2, "b"), E(5, "e"), E(4, "d")});
  rooms_->MustWrite("shop.kv", {E(2, "B")});
  WriteRequest del{"shop.kv", WriteMode::kDelete};
  ASSERT_TRUE(rooms_->Write(del, {rooms_->Batch("shop.kv", {E(4, "")})}).ok());
  ReadRequest snapshot{"shop.kv"};
  snapshot.mode = ReadMode::kSnapshot;
  std::vector<int64_t> sizes;
  std::vector<std::string> lines;
  ASSERT_TRUE(reader()
                  .Read(snapshot,
                        [&](const arrow::RecordBatchPtr& b) {
                          sizes.push_back(b->num_rows());
                          for (auto& l : testing::Lines(*b)) lines.push_back(l);
                          return true;
                        })
                  .ok());
  EXPECT_EQ(lines, (std::vector<std::string>{"1,a", "2,B", "3,c", "5,e"}));
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 2}));
  snapshot.limit = 3;
  snapshot.columns = {"v"};
  EXPECT_EQ(Read(snapshot), (std::vector<std::string>{"a", "B", "c"}));
  // A reader that did not write the bucket rebuilds its state from the changelog.
  testing::Rooms other(node_.get());
  snapshot.limit = -1;
  snapshot.columns = {};
  EXPECT_EQ(testing::ReadLines(other.reader, snapshot),
            (std::vector<std::string>{"1,a", "2,B", "3,c", "5,e"}));

  ReadRequest log_table{"shop.events"};
  log_table.mode = ReadMode::kSnapshot;
  EXPECT_EQ(ReadStatus(log_table).code(), StatusCode::kFailedPrecondition);
  ReadRequest union_read{"shop.kv"};
  union_read.mode = ReadMode::kUnion;
  EXPECT_NE(ReadStatus(union_read).message().find("not tiered"), std::string::npos);
}

TEST_F(TableReaderTest, OffsetsGiveEachBucketsRangeAndTheFirstOffsetAtATime) {
  const int64_t t0 = clock_.NowMillis();
  rooms_->MustWrite("shop.events", {E(1, "a"), E(1, "b")});
  clock_.Advance(10'000);
  rooms_->MustWrite("shop.events", {E(1, "c"), E(300, "d")});
  auto offsets = reader().Offsets("shop.events", std::nullopt);
  ASSERT_TRUE(offsets.ok()) << offsets.status();
  ASSERT_EQ(offsets->size(), 2u);
  EXPECT_EQ((*offsets)[0].bucket, "b0");
  EXPECT_EQ((*offsets)[0].start, 0);
  EXPECT_EQ((*offsets)[0].end, 3);
  EXPECT_FALSE((*offsets)[0].at);
  EXPECT_EQ((*offsets)[1].bucket, "b1");
  EXPECT_EQ((*offsets)[1].end, 1);

  auto at = [&](int64_t ms) {
    auto o = reader().Offsets("shop.events", ms);
    EXPECT_TRUE(o.ok()) << o.status();
    std::vector<int64_t> out;
    for (const auto& b : *o) out.push_back(b.at.value_or(-1));
    return out;
  };
  EXPECT_EQ(at(t0), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(at(t0 + 5'000), (std::vector<int64_t>{2, 0}));   // b0's second write, b1's only
  EXPECT_EQ(at(t0 + 60'000), (std::vector<int64_t>{3, 1}));  // nothing after: the end
  EXPECT_EQ(reader().Offsets("shop.nope", std::nullopt).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace mink::table
