#include "table/table_store.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "arrow_format/array.h"
#include "object_store/memory_store.h"
#include "table/arrow_rows.h"
#include "test_env.h"

namespace mink::table {
namespace {

// One node: a metadata log, storage and a table store, over shared metadata and objects.
struct Node {
  std::unique_ptr<metadata::MetadataLog> meta;
  std::unique_ptr<storage::StreamStore> storage;
  std::unique_ptr<TableStore> tables;

  static std::unique_ptr<Node> Start(
      const std::string& meta_url, std::shared_ptr<object_store::ObjectStore> objects,
      TableOptions options = {}, const Clock* clock = nullptr,
      std::chrono::milliseconds upload_deadline = std::chrono::seconds(30)) {
    auto n = std::make_unique<Node>();
    metadata::MetadataOptions mo;
    if (clock != nullptr) mo.clock = clock;
    n->meta = std::move(*metadata::MetadataLog::Open(meta_url, mo));
    auto id = storage::StreamStore::RegisterNode(n->meta.get(), 1);
    storage::StorageOptions so;
    so.wal_flush_interval = std::chrono::milliseconds(2);
    so.upload_deadline = upload_deadline;
    n->storage = std::move(*storage::StreamStore::Open(
        so, n->meta.get(), storage::StoreSet{objects, -2, objects, -3}, *id, false));
    n->tables = std::make_unique<TableStore>(n->meta.get(), n->storage.get(), options);
    EXPECT_TRUE(n->tables->Start().ok());
    return n;
  }
};

class TableStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    meta_url_ = "sqlite:" + testing_env::MakeTempDir("tables") + "/meta.db";
    objects_ = std::make_shared<object_store::MemoryStore>();
    node_ = Node::Start(meta_url_, objects_);
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
    EXPECT_TRUE(info.ok());
    std::vector<LogicalType> types;
    for (const auto& c : info->descriptor.schema.columns) types.push_back(c.type);
    std::vector<const Row*> pointers;
    for (const auto& r : rows) pointers.push_back(&r);
    auto batch = RowsToBatch(pointers, ToArrowSchema(info->descriptor.schema), types);
    EXPECT_TRUE(batch.ok()) << batch.status();
    return *batch;
  }

  Row Order(int64_t id, const char* region, int64_t cents) {
    return {Value::Int(id), Value::Bytes(region), Value::Decimal(cents)};
  }

  // The read as text lines "v1,v2,...".
  std::vector<std::string> Read(ReadRequest request, Node* node = nullptr) {
    node = node ? node : node_.get();
    std::vector<std::string> lines;
    Status s = node->tables->Read(request, [&](const arrow::RecordBatchPtr& b) {
      std::vector<LogicalType> types;
      for (const auto& f : b->schema()->fields()) {
        LogicalType t;
        switch (f.type()->id()) {
          case arrow::TypeId::kInt64: t.kind = TypeKind::kBigInt; break;
          case arrow::TypeId::kDecimal128: t = *ParseType("DECIMAL(10,2)"); break;
          case arrow::TypeId::kTimestamp: t = *ParseType("TIMESTAMP_LTZ(3)"); break;
          default: t.kind = TypeKind::kString; break;
        }
        types.push_back(t);
      }
      for (const auto& row : BatchToRows(*b, types)) {
        std::string line;
        for (const auto& v : row) {
          if (!line.empty()) line += ",";
          if (v.is_null()) line += "null";
          else if (v.kind() == Value::Kind::kInt) line += std::to_string(v.int_value());
          else if (v.kind() == Value::Kind::kDecimal) line += std::to_string(static_cast<int64_t>(v.decimal_value()));
          else line += v.bytes();
        }
        lines.push_back(line);
      }
      return true;
    });
    EXPECT_TRUE(s.ok()) << s;
    return lines;
  }

  std::string meta_url_;
  std::shared_ptr<object_store::MemoryStore> objects_;
  std::unique_ptr<Node> node_;
};

TEST_F(TableStoreTest, QuickStartChangelogAndSnapshot) {
  WriteRequest w{"shop.orders"};
  auto r = node_->tables->Write(w, {Batch("shop.orders", {Order(1, "us", 1050), Order(2, "eu", 300),
                                                          Order(1, "us", 1100)})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows, 3);
  ReadRequest changelog{"shop.orders"};
  changelog.meta = true;
  changelog.partition = "us";
  EXPECT_EQ(Read(changelog), (std::vector<std::string>{"1,us,1050,p1/b0,0,+I", "1,us,1050,p1/b0,1,-U",
                                                       "1,us,1100,p1/b0,2,+U"}));
  ReadRequest snapshot{"shop.orders"};
  snapshot.mode = ReadMode::kSnapshot;
  EXPECT_EQ(Read(snapshot), (std::vector<std::string>{"1,us,1100", "2,eu,300"}));
  // Partitions got ids 1 (us) and 2 (eu) in order of first appearance.
  auto info = node_->tables->DescribeTable("shop.orders");
  ASSERT_EQ(info->partitions.size(), 2u);
  EXPECT_EQ(info->partitions[0], (std::pair<std::string, int64_t>{"us", 1}));
}

TEST_F(TableStoreTest, LogTableReadsWithLimitProjectionAndOffsets) {
  auto e = [](int64_t id, const char* note) { return Row{Value::Int(id), Value::Bytes(note)}; };
  ASSERT_TRUE(node_->tables->Write({"shop.events"}, {Batch("shop.events", {e(7, "a"), e(8, "b"), e(9, "c")})}).ok());
  ReadRequest two{"shop.events"};
  two.limit = 2;
  EXPECT_EQ(Read(two), (std::vector<std::string>{"7,a", "8,b"}));
  ReadRequest notes{"shop.events"};
  notes.columns = {"note"};
  notes.meta = true;
  notes.from = "1";
  EXPECT_EQ(Read(notes), (std::vector<std::string>{"b,b0,1,+A", "c,b0,2,+A"}));
  auto offsets = node_->tables->Offsets("shop.events", std::nullopt);
  ASSERT_TRUE(offsets.ok());
  ASSERT_EQ(offsets->size(), 1u);
  EXPECT_EQ((*offsets)[0].end, 3);
  auto at = node_->tables->Offsets("shop.events", int64_t{0});
  EXPECT_EQ(*(*at)[0].at, 0);
}

TEST_F(TableStoreTest, BadInputWritesNothing) {
  auto before = node_->tables->Offsets("shop.orders", std::nullopt);
  // NOT NULL region missing in the second row.
  Row missing = {Value::Int(5), Value(), Value::Decimal(1)};
  auto r = node_->tables->Write({"shop.orders"}, {Batch("shop.orders", {Order(4, "us", 1), missing})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("row 2: column 'region' is NOT NULL"), std::string::npos) << r.status();
  EXPECT_TRUE(node_->tables->DescribeTable("shop.orders")->partitions.empty());
  // Wrong column type.
  EXPECT_EQ(node_->tables->Write({"shop.events"}, {Batch("shop.orders", {Order(1, "us", 1)})}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(node_->tables->Write({"shop.nope"}, {}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(node_->tables->Write({"nodb.x"}, {}).status().message(), "database nodb does not exist");
  WriteRequest del{"shop.events", WriteMode::kDelete};
  EXPECT_NE(node_->tables->Write(del, {}).status().message().find("log table"), std::string::npos);
}

TEST_F(TableStoreTest, DeletesAndPartialUpdates) {
  ASSERT_TRUE(node_->tables->Write({"shop.orders"}, {Batch("shop.orders", {Order(1, "us", 100)})}).ok());
  WriteRequest del{"shop.orders", WriteMode::kDelete};
  auto missing = node_->tables->Write(del, {Batch("shop.orders", {Order(9, "us", 0)})});
  ASSERT_TRUE(missing.ok()) << missing.status();
  ASSERT_TRUE(node_->tables->Write(del, {Batch("shop.orders", {Order(1, "us", 0)})}).ok());
  ReadRequest log{"shop.orders"};
  log.meta = true;
  EXPECT_EQ(Read(log), (std::vector<std::string>{"1,us,100,p1/b0,0,+I", "1,us,100,p1/b0,1,-D"}));
  ReadRequest snapshot{"shop.orders"};
  snapshot.mode = ReadMode::kSnapshot;
  EXPECT_TRUE(Read(snapshot).empty());
}

TEST_F(TableStoreTest, ADeleteOfATableWithDeletesDisabledIsRefusedAndStoresNothing) {
  TableSpec locked;
  locked.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "amount DECIMAL(10,2)"};
  locked.primary_key = {"id", "region"};
  locked.options = {{"table.delete.behavior", "disable"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.locked", locked).ok());
  ASSERT_TRUE(node_->tables->Write({"shop.locked"}, {Batch("shop.locked", {Order(1, "us", 100)})}).ok());
  WriteRequest del{"shop.locked", WriteMode::kDelete};
  auto refused = node_->tables->Write(del, {Batch("shop.locked", {Order(1, "us", 0)})});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("deletes are disabled"), std::string::npos)
      << refused.status();
  ReadRequest log{"shop.locked"};
  log.meta = true;
  EXPECT_EQ(Read(log), (std::vector<std::string>{"1,us,100,b0,0,+I"}));
  ReadRequest snapshot{"shop.locked"};
  snapshot.mode = ReadMode::kSnapshot;
  EXPECT_EQ(Read(snapshot), (std::vector<std::string>{"1,us,100"}));
}

TEST_F(TableStoreTest, RetriedWritesAreNotAppliedTwice) {
  auto writer = node_->tables->InitWriter();
  ASSERT_TRUE(writer.ok());
  WriteRequest w{"shop.orders"};
  w.writer_id = *writer;
  w.sequence = 0;
  auto first = node_->tables->Write(w, {Batch("shop.orders", {Order(1, "us", 100)})});
  auto retry = node_->tables->Write(w, {Batch("shop.orders", {Order(1, "us", 100)})});
  ASSERT_TRUE(first.ok() && retry.ok());
  EXPECT_EQ(retry->buckets[0].base_offset, first->buckets[0].base_offset);
  ReadRequest log{"shop.orders"};
  EXPECT_EQ(Read(log).size(), 1u);
  w.table = "shop.events";
  auto e = Row{Value::Int(1), Value::Bytes("x")};
  ASSERT_TRUE(node_->tables->Write(w, {Batch("shop.events", {e})}).ok());
  ASSERT_TRUE(node_->tables->Write(w, {Batch("shop.events", {e})}).ok());
  EXPECT_EQ(Read({"shop.events"}).size(), 1u);
}

// A Kafka producer that retries a batch whose answer it did not get may do so while the first
// append is still uploading: the retry is answered when that append commits, with its status,
// never before (an acknowledged retry of a batch whose upload then fails would be lost).
TEST_F(TableStoreTest, ARetriedBatchIsAnsweredOnlyWithTheCommitOfTheBatchItRepeats) {
  node_->storage->Stop();
  node_.reset();
  node_ = Node::Start(meta_url_, objects_, {}, nullptr, std::chrono::milliseconds(300));
  auto writer_id = node_->tables->InitWriter();
  ASSERT_TRUE(writer_id.ok());
  auto append = [&](int32_t sequence, const char* note, std::promise<Status>* done) {
    TableStore::WriterBatch writer{*writer_id, 0, sequence, sequence, true};
    return node_->tables->AppendToBucket(
        "shop.events", 0, *Batch("shop.events", {{Value::Int(sequence), Value::Bytes(note)}}),
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
  EXPECT_EQ(Read({"shop.events"}), (std::vector<std::string>{"0,a", "1,b"}));
}

TEST_F(TableStoreTest, KvStateSurvivesARestartWithAndWithoutSnapshots) {
  for (int64_t snapshot_every : {int64_t{1000000}, int64_t{2}}) {
    SetUp();  // a fresh cluster
    node_.reset();
    TableOptions options;
    options.kv_snapshot_records = snapshot_every;
    node_ = Node::Start(meta_url_, objects_, options);
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(node_->tables->Write({"shop.orders"},
                                       {Batch("shop.orders", {Order(i % 3, "us", 100 * i)})}).ok());
    }
    node_.reset();
    node_ = Node::Start(meta_url_, objects_, options);
    ReadRequest snapshot{"shop.orders"};
    snapshot.mode = ReadMode::kSnapshot;
    EXPECT_EQ(Read(snapshot), (std::vector<std::string>{"0,us,300", "1,us,400", "2,us,200"}));
    // Writes continue from the rebuilt state: an update, not an insert.
    ASSERT_TRUE(node_->tables->Write({"shop.orders"}, {Batch("shop.orders", {Order(2, "us", 7)})}).ok());
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
  node_.reset();
  node_ = Node::Start(meta_url_, objects_, {}, &clock);
  TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "v STRING"};
  spec.primary_key = {"id"};
  spec.options = {{"table.log.ttl", "1h"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.kv", spec).ok());
  auto row = [](int64_t id, const char* v) { return Row{Value::Int(id), Value::Bytes(v)}; };
  ASSERT_TRUE(node_->tables->Write({"shop.kv"}, {Batch("shop.kv", {row(1, "a"), row(2, "b")})}).ok());
  ASSERT_TRUE(node_->tables->Write({"shop.kv"}, {Batch("shop.kv", {row(1, "c")})}).ok());
  clock.Advance(2 * 3600 * 1000);
  // Expired, but no KV snapshot covers it yet: nothing is trimmed.
  ASSERT_TRUE(node_->storage->RunRetention().ok());
  EXPECT_EQ((*node_->tables->Offsets("shop.kv", std::nullopt))[0].start, 0);
  ASSERT_TRUE(node_->tables->SnapshotAll().ok());
  ASSERT_TRUE(node_->storage->RunRetention().ok());
  EXPECT_EQ((*node_->tables->Offsets("shop.kv", std::nullopt))[0].start, 4);
  // A restarted node rebuilds the state from the snapshot alone.
  node_.reset();
  node_ = Node::Start(meta_url_, objects_, {}, &clock);
  ReadRequest snapshot{"shop.kv"};
  snapshot.mode = ReadMode::kSnapshot;
  EXPECT_EQ(Read(snapshot), (std::vector<std::string>{"1,c", "2,b"}));
}

TEST_F(TableStoreTest, DdlErrorsAreClear) {
  TableSpec s;
  s.columns = {"a INT"};
  EXPECT_EQ(node_->tables->CreateTable("shop.events", s).status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(node_->tables->CreateTable("nodb.t", s).status().message(), "database nodb does not exist");
  EXPECT_EQ(node_->tables->DropTable("shop.nope").code(), StatusCode::kNotFound);
  EXPECT_EQ(node_->tables->CreateDatabase("shop").code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(node_->tables->DropDatabase("shop", false).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(node_->tables->DropTable("shop.events").ok());
  EXPECT_EQ(*node_->tables->ListTables("shop"), std::vector<std::string>{"shop.orders"});
  ReadRequest union_read{"shop.orders"};
  union_read.mode = ReadMode::kUnion;
  Status u = node_->tables->Read(union_read, [](const arrow::RecordBatchPtr&) { return true; });
  EXPECT_NE(u.message().find("not tiered"), std::string::npos);
}

}  // namespace
}  // namespace mink::table
