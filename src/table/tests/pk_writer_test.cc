#include "table/pk_writer.h"

#include <gtest/gtest.h>

#include <thread>

#include "kv/kv_snapshot.h"
#include "table/row_codec.h"
#include "table_test_node.h"

namespace mink::table {
namespace {

// shop.kv: a primary-key table of one bucket. shop.orders: partitioned by region, two buckets
// (native bucketing puts id 1 in b0).
class PkWriterTest : public testing::RoomsTest {
 protected:
  void SetUp() override {
    RoomsTest::SetUp();
    CreateTables();
  }
  void CreateTables() {
    TableSpec kv;
    kv.columns = {"id BIGINT NOT NULL", "a STRING", "b STRING"};
    kv.primary_key = {"id"};
    MustCreate("shop.kv", kv);
    TableSpec orders;
    orders.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "amount DECIMAL(10,2)"};
    orders.primary_key = {"id", "region"};
    orders.partition_by = {"region"};
    orders.bucket_count = 2;
    MustCreate("shop.orders", orders);
  }
  // A fresh node (same metadata and objects) whose writer snapshots every `records`.
  void RestartWithSnapshotsEvery(int64_t records) {
    StopNode();
    testing::NodeOptions options;
    options.tables.kv_snapshot_records = records;
    StartNode(options);
  }

  static Row R(int64_t id, Value a, Value b) {
    return {Value::Int(id), std::move(a), std::move(b)};
  }
  static Row R(int64_t id, const char* a, const char* b) {
    return R(id, Value::Bytes(a), b ? Value::Bytes(b) : Value());
  }
  static Row Order(int64_t id, const char* region, int64_t cents) {
    return {Value::Int(id), Value::Bytes(region), Value::Decimal(cents)};
  }

  // Routes the batches and writes them with the primary-key writer.
  Result<WriteResult> Write(const WriteRequest& request,
                            const std::vector<arrow::RecordBatchPtr>& batches) {
    MINK_ASSIGN_OR_RETURN(auto table, rooms_->catalog.Find(request.table));
    MINK_ASSIGN_OR_RETURN(RoutedWrite routed, RouteRows(*table, request, batches, &rooms_->sticky));
    return rooms_->pk_writer.Write(*table, request, routed.targets, routed.rows);
  }
  Result<WriteResult> Write(const WriteRequest& request, const std::vector<Row>& rows) {
    return Write(request, {rooms_->Batch(request.table, rows)});
  }
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
  std::vector<std::string> Changelog(const std::string& table) {
    ReadRequest log{table};
    log.meta = true;
    return rooms_->Read(log);
  }
  std::vector<std::string> Snapshot(const std::string& table) {
    ReadRequest snapshot{table};
    snapshot.mode = ReadMode::kSnapshot;
    return rooms_->Read(snapshot);
  }
  uint64_t Stream(const std::string& table, const std::string& partition, int32_t bucket) {
    auto t = rooms_->catalog.Find(table);
    auto refs = rooms_->catalog.Buckets(
        **t, partition.empty() ? std::nullopt : std::optional<std::string>(partition), bucket);
    EXPECT_TRUE(refs.ok() && refs->size() == 1u) << refs.status();
    return refs.ok() && refs->size() == 1u ? (*refs)[0].stream_id : 0;
  }
  // The newest KV snapshot of a stream as the metadata records it, if any.
  std::optional<metadata::KvSnapshotState> SnapshotOf(uint64_t stream) {
    return node_->meta->Read([&](const metadata::State& s) {
      auto it = s.kv_snapshots().find(stream);
      return it == s.kv_snapshots().end() ? std::nullopt
                                          : std::optional<metadata::KvSnapshotState>(it->second);
    });
  }
  // The rows of a stored snapshot object of `table`, as text lines in key order, and the offset
  // it covers.
  std::vector<std::string> SnapshotRows(const std::string& table, const std::string& key,
                                        int64_t* covered) {
    auto bytes = objects_->Get(key);
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    if (!bytes.ok()) return {};
    auto manifest = kv::DecodeManifest(*bytes, key);
    EXPECT_TRUE(manifest.ok()) << manifest.status();
    if (!manifest.ok()) return {};
    EXPECT_EQ(manifest->schema_id, 0);
    *covered = manifest->offset;
    // Restored elsewhere, as a new owner would: from the object store alone.
    auto env = kv::KvEnvironment::Open(testing_env::MakeTempDir("restore"), 8 << 20);
    EXPECT_TRUE(env.ok()) << env.status();
    auto kv = kv::RestoreSnapshot(objects_.get(), env->get(), 0, *manifest, nullptr);
    EXPECT_TRUE(kv.ok()) << kv.status();
    if (!kv.ok()) return {};
    auto info = rooms_->catalog.DescribeTable(table);
    std::vector<LogicalType> types;
    for (const auto& c : info->descriptor.schema.columns) types.push_back(c.type);
    std::vector<Row> rows;
    for (auto c = (*kv)->Scan(); c->Valid(); c->Next()) {
      auto row = DecodeRow(c->value(), types);
      EXPECT_TRUE(row.ok()) << row.status();
      if (row.ok()) rows.push_back(*row);
    }
    return testing::Lines(*testing::TableBatch(info->descriptor, rows));
  }
};

TEST_F(PkWriterTest, AWriteSeesItsOwnEarlierRows) {
  EXPECT_EQ(Written(Write({"shop.kv"}, {R(1, "a", "x"), R(1, "b", "x"), R(2, "c", nullptr)})),
            (std::vector<std::string>{"b0:0..4"}));
  EXPECT_EQ(Changelog("shop.kv"), (std::vector<std::string>{"1,a,x,b0,0,+I", "1,a,x,b0,1,-U",
                                                            "1,b,x,b0,2,+U", "2,c,null,b0,3,+I"}));
  EXPECT_EQ(Snapshot("shop.kv"), (std::vector<std::string>{"1,b,x", "2,c,null"}));
  // The next write starts from the applied state.
  EXPECT_EQ(Written(Write({"shop.kv"}, {R(2, "d", nullptr)})),
            (std::vector<std::string>{"b0:4..6"}));
  EXPECT_EQ(Changelog("shop.kv").back(), "2,d,null,b0,5,+U");
}

TEST_F(PkWriterTest, ADeleteRemovesTheKeyAndADeleteOfAMissingKeyAppendsNothing) {
  ASSERT_EQ(Written(Write({"shop.orders"}, {Order(1, "us", 100)})),
            (std::vector<std::string>{"p1/b0:0..1"}));
  WriteRequest del{"shop.orders", WriteMode::kDelete};
  EXPECT_EQ(Written(Write(del, {Order(9, "us", 0)})).size(), 1u);
  EXPECT_EQ(Changelog("shop.orders"), (std::vector<std::string>{"1,us,100,p1/b0,0,+I"}));
  // The delete's row is the stored one, not the one the delete carried.
  EXPECT_EQ(Written(Write(del, {Order(1, "us", 0)})), (std::vector<std::string>{"p1/b0:1..2"}));
  EXPECT_EQ(Changelog("shop.orders"),
            (std::vector<std::string>{"1,us,100,p1/b0,0,+I", "1,us,100,p1/b0,1,-D"}));
  EXPECT_TRUE(Snapshot("shop.orders").empty());
}

TEST_F(PkWriterTest, APartialUpdateKeepsTheColumnsItDoesNotName) {
  ASSERT_TRUE(Write({"shop.kv"}, {R(1, "a", "x")}).ok());
  WriteRequest partial{"shop.kv"};
  partial.columns = {"b"};
  auto r = Write(
      partial, {testing::BatchOf({"id BIGINT", "b STRING"}, {{Value::Int(1), Value::Bytes("y")}})});
  EXPECT_EQ(Written(r), (std::vector<std::string>{"b0:1..3"}));
  EXPECT_EQ(Changelog("shop.kv"),
            (std::vector<std::string>{"1,a,x,b0,0,+I", "1,a,x,b0,1,-U", "1,a,y,b0,2,+U"}));
  EXPECT_EQ(Snapshot("shop.kv"), (std::vector<std::string>{"1,a,y"}));
}

TEST_F(PkWriterTest, ADeleteOfATableWithDeletesDisabledIsRefusedAndStoresNothing) {
  TableSpec locked;
  locked.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "amount DECIMAL(10,2)"};
  locked.primary_key = {"id", "region"};
  locked.options = {{"table.delete.behavior", "disable"}};
  MustCreate("shop.locked", locked);
  ASSERT_TRUE(Write({"shop.locked"}, {Order(1, "us", 100)}).ok());
  WriteRequest del{"shop.locked", WriteMode::kDelete};
  auto refused = Write(del, {Order(1, "us", 0)});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "row 1: deletes are disabled on this table (table.delete.behavior)");
  EXPECT_EQ(Changelog("shop.locked"), (std::vector<std::string>{"1,us,100,b0,0,+I"}));
  EXPECT_EQ(Snapshot("shop.locked"), (std::vector<std::string>{"1,us,100"}));
}

TEST_F(PkWriterTest, ARetriedIdempotentWriteIsNotAppliedTwice) {
  WriteRequest w{"shop.kv"};
  w.writer_id = *rooms_->catalog.AllocateWriterId();
  w.sequence = 0;
  EXPECT_EQ(Written(Write(w, {R(1, "a", "x")})), (std::vector<std::string>{"b0:0..1"}));
  EXPECT_EQ(Written(Write(w, {R(1, "a", "x")})), (std::vector<std::string>{"b0:0..1"}));
  w.sequence = 1;
  EXPECT_EQ(Written(Write(w, {R(1, "b", "x")})), (std::vector<std::string>{"b0:1..3"}));
  EXPECT_EQ(Written(Write(w, {R(1, "b", "x")})), (std::vector<std::string>{"b0:1..3"}));
  EXPECT_EQ(Changelog("shop.kv"),
            (std::vector<std::string>{"1,a,x,b0,0,+I", "1,a,x,b0,1,-U", "1,b,x,b0,2,+U"}));
  EXPECT_EQ(Snapshot("shop.kv"), (std::vector<std::string>{"1,b,x"}));
}

// The writer state of a batch below the newest KV snapshot is in that snapshot: a retry sent
// after a restart (or a failover) is answered with the batch's offsets, and a sum does not
// double.
TEST_F(PkWriterTest, ARetryOfABatchBelowTheSnapshotIsAnsweredAfterARestart) {
  RestartWithSnapshotsEvery(1);
  TableSpec sums;
  sums.columns = {"id BIGINT NOT NULL", "qty BIGINT"};
  sums.primary_key = {"id"};
  sums.options = {{"table.merge-engine", "aggregation"}, {"fields.qty.agg", "sum"}};
  MustCreate("shop.sums", sums);
  WriteRequest w{"shop.sums"};
  w.writer_id = *rooms_->catalog.AllocateWriterId();
  w.sequence = 0;
  auto batch = [&](int64_t qty) { return rooms_->Batch("shop.sums", {{Value::Int(1), Value::Int(qty)}}); };
  EXPECT_EQ(Written(Write(w, {batch(5)})), (std::vector<std::string>{"b0:0..1"}));
  w.sequence = 1;
  EXPECT_EQ(Written(Write(w, {batch(7)})), (std::vector<std::string>{"b0:1..3"}));
  const uint64_t stream = Stream("shop.sums", "", 0);
  ASSERT_TRUE(SnapshotOf(stream));
  EXPECT_EQ(SnapshotOf(stream)->offset, 3);  // both batches are below the snapshot
  RestartWithSnapshotsEvery(1);
  w.sequence = 0;
  EXPECT_EQ(Written(Write(w, {batch(5)})), (std::vector<std::string>{"b0:0..1"}));
  w.sequence = 1;
  EXPECT_EQ(Written(Write(w, {batch(7)})), (std::vector<std::string>{"b0:1..3"}));
  EXPECT_EQ(Snapshot("shop.sums"), (std::vector<std::string>{"1,12"}));
  w.sequence = 2;  // and the writer goes on in order
  EXPECT_EQ(Written(Write(w, {batch(1)})), (std::vector<std::string>{"b0:3..5"}));
  EXPECT_EQ(Snapshot("shop.sums"), (std::vector<std::string>{"1,13"}));
}

TEST_F(PkWriterTest, AWriteTheEngineIgnoresAppendsNothing) {
  TableSpec first;
  first.columns = {"id BIGINT NOT NULL", "a STRING", "b STRING"};
  first.primary_key = {"id"};
  first.options = {{"table.merge-engine", "first_row"}};
  MustCreate("shop.first", first);
  ASSERT_TRUE(Write({"shop.first"}, {R(1, "a", "x")}).ok());
  EXPECT_EQ(Written(Write({"shop.first"}, {R(1, "b", "y")})),
            (std::vector<std::string>{"b0:1..1"}));
  EXPECT_EQ(Changelog("shop.first"), (std::vector<std::string>{"1,a,x,b0,0,+I"}));
  EXPECT_EQ(Snapshot("shop.first"), (std::vector<std::string>{"1,a,x"}));
}

TEST_F(PkWriterTest, AKvSnapshotIsWrittenOnceKvSnapshotRecordsHavePassed) {
  RestartWithSnapshotsEvery(3);
  const uint64_t stream = Stream("shop.kv", "", 0);
  ASSERT_TRUE(Write({"shop.kv"}, {R(1, "a", "x"), R(2, "b", nullptr)}).ok());
  EXPECT_FALSE(SnapshotOf(stream)) << "a snapshot after 2 of 3 changelog records";
  ASSERT_TRUE(Write({"shop.kv"}, {R(1, "c", "x")}).ok());  // -U, +U: 4 records
  auto snapshot = SnapshotOf(stream);
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(snapshot->offset, 4);
  int64_t covered = 0;
  EXPECT_EQ(SnapshotRows("shop.kv", snapshot->key, &covered),
            (std::vector<std::string>{"1,c,x", "2,b,null"}));
  EXPECT_EQ(covered, 4);
  // One more record is not enough for the next.
  ASSERT_TRUE(Write({"shop.kv"}, {R(3, "d", nullptr)}).ok());
  EXPECT_EQ(SnapshotOf(stream)->key, snapshot->key);
}

TEST_F(PkWriterTest, SnapshotAllSnapshotsEveryBucketWhoseStateMoved) {
  ASSERT_TRUE(Write({"shop.kv"}, {R(1, "a", "x")}).ok());
  ASSERT_TRUE(Write({"shop.orders"}, {Order(1, "us", 100), Order(1, "eu", 200)}).ok());
  const uint64_t kv = Stream("shop.kv", "", 0);
  const uint64_t us = Stream("shop.orders", "us", 0);
  const uint64_t eu = Stream("shop.orders", "eu", 0);
  const uint64_t untouched = Stream("shop.orders", "us", 1);
  for (uint64_t s : {kv, us, eu}) EXPECT_FALSE(SnapshotOf(s));

  ASSERT_TRUE(rooms_->pk_writer.SnapshotAll().ok());
  auto kv_first = SnapshotOf(kv);
  ASSERT_TRUE(kv_first && SnapshotOf(us) && SnapshotOf(eu));
  EXPECT_EQ(kv_first->offset, 1);
  EXPECT_EQ(SnapshotOf(us)->offset, 1);
  int64_t covered = 0;
  EXPECT_EQ(SnapshotRows("shop.orders", SnapshotOf(eu)->key, &covered),
            (std::vector<std::string>{"1,eu,200"}));
  EXPECT_FALSE(SnapshotOf(untouched)) << "a bucket nothing was written to was snapshotted";

  // Nothing moved: nothing new. Then only the bucket written to is snapshotted again.
  const std::string us_key = SnapshotOf(us)->key;
  ASSERT_TRUE(rooms_->pk_writer.SnapshotAll().ok());
  EXPECT_EQ(SnapshotOf(kv)->key, kv_first->key);
  ASSERT_TRUE(Write({"shop.kv"}, {R(2, "b", "y")}).ok());
  ASSERT_TRUE(rooms_->pk_writer.SnapshotAll().ok());
  EXPECT_NE(SnapshotOf(kv)->key, kv_first->key);
  EXPECT_EQ(SnapshotOf(kv)->offset, 2);
  EXPECT_EQ(SnapshotRows("shop.kv", SnapshotOf(kv)->key, &covered),
            (std::vector<std::string>{"1,a,x", "2,b,y"}));
  EXPECT_EQ(SnapshotOf(us)->key, us_key);
}

TEST_F(PkWriterTest, PeriodicSnapshotsCoverAWriteWithoutFurtherWrites) {
  ASSERT_TRUE(Write({"shop.kv"}, {R(1, "a", "x"), R(2, "b", "y")}).ok());
  const uint64_t kv = Stream("shop.kv", "", 0);
  rooms_->pk_writer.StartPeriodicSnapshots(std::chrono::milliseconds(10));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (!SnapshotOf(kv) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  rooms_->pk_writer.Stop();
  auto snapshot = SnapshotOf(kv);
  ASSERT_TRUE(snapshot) << "no periodic snapshot within 2 s";
  EXPECT_EQ(snapshot->offset, 2);
}

// Every bucket's changelog is computed and checked before any is appended: a write refused in one
// bucket stores nothing in the others, and the KV state stays with its changelog. (It once
// appended the buckets checked before the refusal without updating their KV state, so the next
// write of the same key was logged as an insert of a key the log already had.)
TEST_F(PkWriterTest, AWriteRefusedInOneBucketStoresNothingInAnother) {
  TableSpec two;
  two.columns = {"id BIGINT NOT NULL", "a STRING"};
  two.primary_key = {"id"};
  two.bucket_count = 2;  // native bucketing: id 1 in b0, id 300 in b1
  MustCreate("shop.two", two);
  auto row = [](int64_t id, const char* a) { return Row{Value::Int(id), Value::Bytes(a)}; };
  WriteRequest w{"shop.two"};
  w.writer_id = *rooms_->catalog.AllocateWriterId();
  w.sequence = 5;
  ASSERT_EQ(Written(Write(w, {row(300, "x")})), (std::vector<std::string>{"b1:0..1"}));
  // Sequence 3 is out of order in b1 (where 5 was written), new in b0.
  w.sequence = 3;
  auto refused = Write(w, {row(1, "a"), row(300, "y")});
  EXPECT_EQ(refused.status().code(), StatusCode::kOutOfRange) << refused.status();
  ASSERT_TRUE(Write({"shop.two"}, {row(1, "b")}).ok());
  ReadRequest b0{"shop.two"};
  b0.bucket = 0;
  b0.meta = true;
  EXPECT_EQ(rooms_->Read(b0), (std::vector<std::string>{"1,b,b0,0,+I"}));
}

}  // namespace
}  // namespace mink::table
