#include "table/table_store.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <future>

#include "table_test_node.h"

namespace mink::table {
namespace {

using testing::TestNode;

class TableStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    meta_url_ = testing::TempMetaUrl("tables");
    objects_ = std::make_shared<object_store::MemoryStore>();
    node_ = TestNode::Start(meta_url_, objects_);
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
    TableSpec orders;
    orders.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "amount DECIMAL(10,2)"};
    orders.primary_key = {"id", "region"};
    orders.partition_by = {"region"};
    orders.bucket_count = 2;
    ASSERT_TRUE(node_->tables->CreateTable("shop.orders", orders).ok());
    TableSpec events;
    events.columns = {"id BIGINT NOT NULL", "note STRING"};
    events.bucket_key = {"id"};
    ASSERT_TRUE(node_->tables->CreateTable("shop.events", events).ok());
  }

  // A batch of the named table's full schema.
  arrow::RecordBatchPtr Batch(const std::string& table, const std::vector<Row>& rows) {
    auto info = node_->tables->DescribeTable(table);
    EXPECT_TRUE(info.ok()) << info.status();
    return testing::TableBatch(info->descriptor, rows);
  }

  Row Order(int64_t id, const char* region, int64_t cents) {
    return {Value::Int(id), Value::Bytes(region), Value::Decimal(cents)};
  }

  // The read as text lines "v1,v2,...".
  std::vector<std::string> Read(ReadRequest request) {
    return testing::ReadLines(*node_->tables, request);
  }
  void Restart(testing::NodeOptions options = {}) {
    node_.reset();
    node_ = TestNode::Start(meta_url_, objects_, options);
    ASSERT_NE(node_, nullptr);
  }

  std::string meta_url_;
  std::shared_ptr<object_store::MemoryStore> objects_;
  std::unique_ptr<TestNode> node_;
};

TEST_F(TableStoreTest, QuickStartChangelogAndSnapshot) {
  WriteRequest w{"shop.orders"};
  auto r = node_->tables->Write(
      w, {Batch("shop.orders", {Order(1, "us", 1050), Order(2, "eu", 300), Order(1, "us", 1100)})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows, 3);
  ReadRequest changelog{"shop.orders"};
  changelog.meta = true;
  changelog.partition = "us";
  EXPECT_EQ(Read(changelog),
            (std::vector<std::string>{"1,us,1050,p1/b0,0,+I", "1,us,1050,p1/b0,1,-U",
                                      "1,us,1100,p1/b0,2,+U"}));
  ReadRequest snapshot{"shop.orders"};
  snapshot.mode = ReadMode::kSnapshot;
  EXPECT_EQ(Read(snapshot), (std::vector<std::string>{"1,us,1100", "2,eu,300"}));
  // Partitions got ids 1 (us) and 2 (eu) in order of first appearance.
  auto info = node_->tables->DescribeTable("shop.orders");
  ASSERT_EQ(info->partitions.size(), 2u);
  EXPECT_EQ(info->partitions[0], (std::pair<std::string, int64_t>{"us", 1}));
}

// Every row of a write is checked before anything is written: a bad row anywhere stores nothing
// (not even the partitions of the good rows before it).
TEST_F(TableStoreTest, AWriteWithABadRowStoresNothing) {
  Row missing = {Value::Int(5), Value(), Value::Decimal(1)};  // NOT NULL region missing
  auto r =
      node_->tables->Write({"shop.orders"}, {Batch("shop.orders", {Order(4, "us", 1)}),
                                             Batch("shop.orders", {Order(6, "eu", 2), missing})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "row 3: column 'region' is NOT NULL but the value is null");
  EXPECT_TRUE(node_->tables->DescribeTable("shop.orders")->partitions.empty());
  ReadRequest snapshot{"shop.orders"};
  snapshot.mode = ReadMode::kSnapshot;
  EXPECT_TRUE(Read(snapshot).empty());

  auto e = [](int64_t id, const char* note) { return Row{Value::Int(id), Value::Bytes(note)}; };
  auto bad_batch =
      testing::BatchOf({"id BIGINT", "nope STRING"}, {{Value::Int(2), Value::Bytes("x")}});
  auto log = node_->tables->Write({"shop.events"}, {Batch("shop.events", {e(1, "a")}), bad_batch});
  EXPECT_EQ(log.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*node_->tables->Offsets("shop.events", std::nullopt))[0].end, 0);
  EXPECT_TRUE(Read({"shop.events"}).empty());
}

// A table without a bucket key sends each write to one bucket, in turn; an idempotent write's
// bucket follows from its writer and sequence, so a retry, after other writes or a restart,
// reaches the bucket that has it and is not written twice.
TEST_F(TableStoreTest, AKeylessTablesRetriedWriteGoesToTheBucketThatHasIt) {
  TableSpec spread;
  spread.columns = {"id BIGINT NOT NULL", "note STRING"};
  spread.bucket_count = 3;
  ASSERT_TRUE(node_->tables->CreateTable("shop.spread", spread).ok());
  auto e = [](int64_t id, const char* note) { return Row{Value::Int(id), Value::Bytes(note)}; };
  WriteRequest w{"shop.spread"};
  w.writer_id = *node_->tables->InitWriter();
  std::vector<std::string> buckets;
  for (int32_t seq = 0; seq < 3; ++seq) {
    w.sequence = seq;
    auto r = node_->tables->Write(w, {Batch("shop.spread", {e(seq, "first")})});
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->buckets.size(), 1u);
    buckets.push_back(r->buckets[0].bucket);
  }
  std::sort(buckets.begin(), buckets.end());
  EXPECT_EQ(buckets, (std::vector<std::string>{"b0", "b1", "b2"})) << "a writer's writes take turns";
  // Writes without a writer move the round robin on; retries still find their bucket.
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(node_->tables->Write({"shop.spread"}, {Batch("shop.spread", {e(9, "x")})}).ok());
  w.sequence = 1;
  auto retry = node_->tables->Write(w, {Batch("shop.spread", {e(1, "first")})});
  ASSERT_TRUE(retry.ok()) << retry.status();
  Restart();
  w.sequence = 2;
  auto after_restart = node_->tables->Write(w, {Batch("shop.spread", {e(2, "first")})});
  ASSERT_TRUE(after_restart.ok()) << after_restart.status();
  auto rows = Read({"shop.spread"});
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (std::vector<std::string>{"0,first", "1,first", "2,first", "9,x", "9,x"}));
}

// An idempotent writer's batches are known again after a restart, from the batch headers of
// the stream: a retry is still answered with its first offsets. Kafka producers number records,
// not batches (table.writer.sequence-per-record).
TEST_F(TableStoreTest, AnIdempotentRetryAfterARestartIsStillRecognised) {
  TableSpec topic;
  topic.columns = {"id BIGINT NOT NULL", "note STRING"};
  topic.options = {{"table.writer.sequence-per-record", "true"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.topic", topic).ok());
  auto e = [](int64_t id, const char* note) { return Row{Value::Int(id), Value::Bytes(note)}; };
  WriteRequest w{"shop.events"};
  w.writer_id = *node_->tables->InitWriter();
  w.sequence = 0;
  auto first = node_->tables->Write(w, {Batch("shop.events", {e(1, "a")})});
  ASSERT_TRUE(first.ok()) << first.status();
  const int64_t producer = *node_->tables->InitWriter();
  auto append = [&](int32_t first_seq, int32_t last_seq, const std::vector<Row>& rows) {
    std::promise<Status> done;
    auto r = node_->tables->AppendToBucket(
        "shop.topic", 0, *Batch("shop.topic", rows), metadata::kUnknownRecordTime,
        TableStore::WriterBatch{producer, 0, first_seq, last_seq, true},
        [&done](Status s) { done.set_value(s); });
    if (r.ok()) {
      EXPECT_TRUE(done.get_future().get().ok());
    }
    return r;
  };
  ASSERT_TRUE(append(0, 2, {e(1, "x"), e(2, "y"), e(3, "z")}).ok());

  Restart();
  auto retry = node_->tables->Write(w, {Batch("shop.events", {e(1, "a")})});
  ASSERT_TRUE(retry.ok()) << retry.status();
  ASSERT_EQ(retry->buckets.size(), 1u);
  EXPECT_EQ(retry->buckets[0].base_offset, first->buckets[0].base_offset);
  EXPECT_EQ(Read({"shop.events"}), std::vector<std::string>{"1,a"});
  auto again = append(0, 2, {e(1, "x"), e(2, "y"), e(3, "z")});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->duplicate);
  EXPECT_EQ(again->base_offset, 0);
  EXPECT_EQ(append(4, 4, {e(5, "gap")}).status().code(), StatusCode::kAborted);
  auto next = append(3, 3, {e(4, "w")});
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->base_offset, 3);
  EXPECT_EQ(Read({"shop.topic"}), (std::vector<std::string>{"1,x", "2,y", "3,z", "4,w"}));
}

// A Write into a table whose writers number records counts the batch's records as its
// sequences, before a restart as the log's replay does after one: the same next sequence is
// accepted on both sides of a restart.
TEST_F(TableStoreTest, AWriteIntoAPerRecordTableCountsItsRecordsBeforeAndAfterARestart) {
  TableSpec topic;
  topic.columns = {"id BIGINT NOT NULL", "note STRING"};
  topic.options = {{"table.writer.sequence-per-record", "true"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.topic", topic).ok());
  auto e = [](int64_t id, const char* note) { return Row{Value::Int(id), Value::Bytes(note)}; };
  WriteRequest w{"shop.topic"};
  w.writer_id = *node_->tables->InitWriter();
  w.sequence = 0;
  ASSERT_TRUE(node_->tables->Write(w, {Batch("shop.topic", {e(1, "a"), e(2, "b"), e(3, "c")})}).ok());
  w.sequence = 2;
  EXPECT_EQ(node_->tables->Write(w, {Batch("shop.topic", {e(9, "inside")})}).status().code(), StatusCode::kOutOfRange)
      << "sequences 0-2 are the first write's";
  w.sequence = 3;
  ASSERT_TRUE(node_->tables->Write(w, {Batch("shop.topic", {e(4, "d"), e(5, "e")})}).ok());
  Restart();
  w.sequence = 3;
  auto retry = node_->tables->Write(w, {Batch("shop.topic", {e(4, "d"), e(5, "e")})});
  ASSERT_TRUE(retry.ok()) << retry.status();
  EXPECT_EQ(retry->buckets[0].base_offset, 3) << "a retry after the restart is recognised";
  w.sequence = 5;
  ASSERT_TRUE(node_->tables->Write(w, {Batch("shop.topic", {e(6, "f")})}).ok());
  EXPECT_EQ(Read({"shop.topic"}), (std::vector<std::string>{"1,a", "2,b", "3,c", "4,d", "5,e", "6,f"}));
}

TEST_F(TableStoreTest, KvStateSurvivesARestartWithAndWithoutSnapshots) {
  for (int64_t snapshot_every : {int64_t{1000000}, int64_t{2}}) {
    SetUp();  // a fresh cluster
    testing::NodeOptions options;
    options.tables.kv_snapshot_records = snapshot_every;
    Restart(options);
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(
          node_->tables
              ->Write({"shop.orders"}, {Batch("shop.orders", {Order(i % 3, "us", 100 * i)})})
              .ok());
    }
    Restart(options);
    ReadRequest snapshot{"shop.orders"};
    snapshot.mode = ReadMode::kSnapshot;
    EXPECT_EQ(Read(snapshot), (std::vector<std::string>{"0,us,300", "1,us,400", "2,us,200"}));
    // Writes continue from the rebuilt state: an update, not an insert.
    ASSERT_TRUE(
        node_->tables->Write({"shop.orders"}, {Batch("shop.orders", {Order(2, "us", 7)})}).ok());
    ReadRequest log{"shop.orders"};
    log.meta = true;
    log.from = "5";
    auto tail = Read(log);
    ASSERT_FALSE(tail.empty());
    EXPECT_EQ(tail.back(), "2,us,7,p1/b" + tail.back().substr(tail.back().find("/b") + 2, 1) +
                               tail.back().substr(tail.back().find(",", tail.back().find("/b"))));
    EXPECT_NE(tail.back().find("+U"), std::string::npos);
  }
}

TEST_F(TableStoreTest, AChangelogExpiresOnlyAsFarAsAKvSnapshotCovers) {
  ManualClock clock;
  testing::NodeOptions options;
  options.clock = &clock;
  Restart(options);
  TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "v STRING"};
  spec.primary_key = {"id"};
  spec.options = {{"table.log.ttl", "1h"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.kv", spec).ok());
  auto row = [](int64_t id, const char* v) { return Row{Value::Int(id), Value::Bytes(v)}; };
  ASSERT_TRUE(
      node_->tables->Write({"shop.kv"}, {Batch("shop.kv", {row(1, "a"), row(2, "b")})}).ok());
  ASSERT_TRUE(node_->tables->Write({"shop.kv"}, {Batch("shop.kv", {row(1, "c")})}).ok());
  clock.Advance(2 * 3600 * 1000);
  // Expired, but no KV snapshot covers it yet: nothing is trimmed.
  ASSERT_TRUE(node_->storage->RunRetention().ok());
  EXPECT_EQ((*node_->tables->Offsets("shop.kv", std::nullopt))[0].start, 0);
  ASSERT_TRUE(node_->tables->SnapshotAll().ok());
  ASSERT_TRUE(node_->storage->RunRetention().ok());
  EXPECT_EQ((*node_->tables->Offsets("shop.kv", std::nullopt))[0].start, 4);
  // A restarted node rebuilds the state from the snapshot alone.
  Restart(options);
  ReadRequest snapshot{"shop.kv"};
  snapshot.mode = ReadMode::kSnapshot;
  EXPECT_EQ(Read(snapshot), (std::vector<std::string>{"1,c", "2,b"}));
}

// A log table's TTL trims whole segments older than it; a table that sets none follows the
// node's default (--retention), and 0 keeps everything. describe-table names the TTL that
// applies.
TEST_F(TableStoreTest, ALogTableExpiresAfterItsTtlOrTheNodeDefault) {
  ManualClock clock;
  testing::NodeOptions options;
  options.clock = &clock;
  options.tables.default_log_ttl = std::chrono::hours(3);
  Restart(options);
  auto make = [&](const std::string& name, std::map<std::string, std::string> opts) {
    TableSpec spec;
    spec.columns = {"id BIGINT NOT NULL", "note STRING"};
    spec.options = std::move(opts);
    ASSERT_TRUE(node_->tables->CreateTable(name, spec).ok()) << name;
  };
  make("shop.short", {{"table.log.ttl", "1h"}});
  make("shop.node_default", {});
  make("shop.forever", {{"table.log.ttl", "0"}});
  auto write = [&](const std::string& name, int64_t id) {
    auto r = node_->tables->Write(
        {name}, {Batch(name, {Row{Value::Int(id), Value::Bytes("n" + std::to_string(id))}})});
    ASSERT_TRUE(r.ok()) << name << ": " << r.status();
  };
  auto start = [&](const std::string& name) {
    return (*node_->tables->Offsets(name, std::nullopt))[0].start;
  };
  for (const char* name : {"shop.short", "shop.node_default", "shop.forever"}) write(name, 1);
  clock.Advance(2 * 3600 * 1000);  // the first rows are 2 h old
  for (const char* name : {"shop.short", "shop.node_default", "shop.forever"}) write(name, 2);
  ASSERT_TRUE(node_->storage->RunRetention().ok());
  EXPECT_EQ(start("shop.short"), 1) << "older than the table's 1 h";
  EXPECT_EQ(start("shop.node_default"), 0) << "younger than the node's 3 h";
  EXPECT_EQ(start("shop.forever"), 0);
  EXPECT_EQ(Read({"shop.short"}), (std::vector<std::string>{"2,n2"}));
  clock.Advance(2 * 3600 * 1000);  // 4 h and 2 h
  ASSERT_TRUE(node_->storage->RunRetention().ok());
  EXPECT_EQ(start("shop.node_default"), 1) << "older than the node's 3 h";
  EXPECT_EQ(Read({"shop.node_default"}), (std::vector<std::string>{"2,n2"}));
  EXPECT_EQ(start("shop.forever"), 0);
  EXPECT_EQ(Read({"shop.forever"}).size(), 2u);
  EXPECT_EQ(node_->tables->DescribeTable("shop.short")->descriptor.log_ttl_ms, 3600 * 1000);
  EXPECT_EQ(node_->tables->DescribeTable("shop.node_default")->descriptor.log_ttl_ms,
            3 * 3600 * 1000);
  EXPECT_EQ(node_->tables->DescribeTable("shop.forever")->descriptor.log_ttl_ms, 0);
}

}  // namespace
}  // namespace mink::table
