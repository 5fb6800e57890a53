#include "table/bucket_ownership.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <mutex>

#include "table_test_node.h"

namespace mink::table {
namespace {

using metadata::Command;
using testing::TestNode;

// Creates unpartitioned tables straight in the metadata, their buckets owned as given.
class StreamsToTakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto meta = metadata::MetadataLog::Open(testing::TempMetaUrl("ownership"));
    ASSERT_TRUE(meta.ok()) << meta.status();
    meta_ = std::move(*meta);
    ASSERT_TRUE(meta_->Append(Command(metadata::CreateDatabase{"shop"})).ok());
  }
  storage::NodeIdentity Register(int32_t node_id) {
    auto id = storage::StreamStore::RegisterNode(meta_.get(), node_id);
    EXPECT_TRUE(id.ok()) << id.status();
    return *id;
  }
  // A table of `buckets` buckets owned by `owner` (node 0: nobody); its streams.
  std::vector<uint64_t> Table(const std::string& name, int32_t buckets,
                              storage::NodeIdentity owner) {
    auto seq = meta_->Append([&](const metadata::State& s) -> Result<Command> {
      metadata::CreateTable c;
      c.database = "shop";
      c.name = name;
      c.table_id = s.next_table_id();
      c.descriptor = "{}";
      c.bucket_count = buckets;
      c.first_stream_id = s.next_stream_id();
      c.owner_node = owner.node_id;
      c.owner_node_epoch = owner.node_epoch;
      return Command(std::move(c));
    });
    EXPECT_TRUE(seq.ok()) << seq.status();
    return meta_->Read(
        [&](const metadata::State& s) { return s.FindTable("shop", name)->streams; });
  }
  std::vector<uint64_t> Take(const BucketAssignment& a) {
    auto take = meta_->Read([&](const metadata::State& s) { return a.StreamsToTake(s); });
    std::sort(take.begin(), take.end());
    return take;
  }

  std::unique_ptr<metadata::MetadataLog> meta_;
};

TEST_F(StreamsToTakeTest, ANodeTakesItsStreamsOfAnEarlierEpochAndThoseOfNobody) {
  storage::NodeIdentity first = Register(1);
  storage::NodeIdentity other = Register(2);
  std::vector<uint64_t> ours_before = Table("a", 2, first);
  Table("b", 1, other);
  std::vector<uint64_t> nobodys = Table("c", 1, storage::NodeIdentity{0, 0});
  storage::NodeIdentity restarted = Register(1);  // node 1's next process
  ASSERT_EQ(restarted.node_epoch, first.node_epoch + 1);
  Table("d", 1, restarted);  // ours at the current epoch: already written

  std::vector<uint64_t> expected = ours_before;
  expected.insert(expected.end(), nobodys.begin(), nobodys.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Take(SingleNodeAssignment(restarted)), expected);
  // Node 2 takes its own (of its current epoch: no) and nobody's; never node 1's.
  EXPECT_EQ(Take(SingleNodeAssignment(other)), nobodys);
}

TEST_F(StreamsToTakeTest, AllBucketStreamsListsTheStreamsOfEveryTableAndPartition) {
  storage::NodeIdentity node = Register(1);
  std::vector<uint64_t> a = Table("a", 2, node);
  ASSERT_TRUE(meta_
                  ->Append([&](const metadata::State& s) -> Result<Command> {
                    metadata::CreateTable c;
                    c.database = "shop";
                    c.name = "p";
                    c.table_id = s.next_table_id();
                    c.descriptor = "{}";
                    c.bucket_count = 2;
                    c.partitioned = true;
                    return Command(std::move(c));
                  })
                  .ok());
  ASSERT_TRUE(meta_
                  ->Append([&](const metadata::State& s) -> Result<Command> {
                    return Command(metadata::CreatePartition{s.FindTable("shop", "p")->table_id,
                                                             "us", 1, s.next_stream_id(),
                                                             node.node_id, node.node_epoch});
                  })
                  .ok());
  auto all = meta_->Read([](const metadata::State& s) { return AllBucketStreams(s); });
  std::sort(all.begin(), all.end());
  auto partition = meta_->Read([](const metadata::State& s) {
    return s.FindTable("shop", "p")->partitions.at("us").streams;
  });
  std::vector<uint64_t> expected = a;
  expected.insert(expected.end(), partition.begin(), partition.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(all, expected);
  EXPECT_EQ(all.size(), 4u);
}

// An assignment of a cluster: new buckets go to `owner`; at a start this node takes `take`.
class FixedAssignment final : public BucketAssignment {
 public:
  explicit FixedAssignment(storage::NodeIdentity owner) : owner_(owner) {}
  storage::NodeIdentity OwnerOfNewBuckets() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++asked_;
    return owner_;
  }
  std::vector<uint64_t> StreamsToTake(const metadata::State&) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return take_;
  }
  void set_take(std::vector<uint64_t> take) {
    std::lock_guard<std::mutex> lock(mutex_);
    take_ = std::move(take);
  }
  int asked() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return asked_;
  }

 private:
  const storage::NodeIdentity owner_;
  mutable std::mutex mutex_;
  mutable int asked_ = 0;
  std::vector<uint64_t> take_;
};

// Node 1's TableStore, built with an assignment that gives new buckets to node 2.
class AssignedElsewhereTest : public ::testing::Test {
 protected:
  void SetUp() override {
    meta_url_ = testing::TempMetaUrl("ownership");
    objects_ = std::make_shared<object_store::MemoryStore>();
    // Node 2 is registered first, so its identity is known before node 1's store is built.
    {
      auto meta = metadata::MetadataLog::Open(meta_url_);
      ASSERT_TRUE(meta.ok()) << meta.status();
      auto id = storage::StreamStore::RegisterNode(meta->get(), 2);
      ASSERT_TRUE(id.ok()) << id.status();
      other_ = *id;
    }
    assignment_ = std::make_unique<FixedAssignment>(other_);
    testing::NodeOptions options;
    options.assignment = assignment_.get();
    node_ = TestNode::Start(meta_url_, objects_, options);
    ASSERT_NE(node_, nullptr);
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
  }
  void TearDown() override {
    if (node_) node_->storage->Stop();
    node_.reset();
  }
  metadata::StreamState StreamOf(uint64_t stream) const {
    return node_->meta->Read([&](const metadata::State& s) {
      const metadata::StreamState* st = s.FindStream(stream);
      return st != nullptr ? *st : metadata::StreamState{};
    });
  }
  arrow::RecordBatchPtr Batch(const std::string& table, const std::vector<Row>& rows) {
    return testing::TableBatch(node_->tables->DescribeTable(table)->descriptor, rows);
  }
  static TableSpec Events() {
    TableSpec s;
    s.columns = {"id BIGINT NOT NULL", "note STRING"};
    s.bucket_key = {"id"};
    s.bucket_count = 2;
    return s;
  }

  std::string meta_url_;
  std::shared_ptr<object_store::MemoryStore> objects_;
  storage::NodeIdentity other_;
  std::unique_ptr<FixedAssignment> assignment_;
  std::unique_ptr<TestNode> node_;
};

TEST_F(AssignedElsewhereTest, ATableIsOwnedByTheNodeTheAssignmentNamesAndNotWrittenHere) {
  ASSERT_TRUE(node_->tables->CreateTable("shop.events", Events()).ok());
  EXPECT_EQ(assignment_->asked(), 1);
  for (int32_t b = 0; b < 2; ++b) {
    uint64_t stream = *node_->tables->BucketStream("shop.events", b);
    EXPECT_EQ(StreamOf(stream).owner_node, other_.node_id) << "bucket " << b;
    EXPECT_EQ(StreamOf(stream).owner_node_epoch, other_.node_epoch) << "bucket " << b;
    EXPECT_FALSE(node_->storage->Writes(stream)) << "bucket " << b;
  }

  auto written = node_->tables->Write({"shop.events"},
                                      {Batch("shop.events", {{Value::Int(1), Value::Bytes("a")}})});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(written.status().message().find("is not open for writing on node 1"), std::string::npos)
      << written.status();
  auto appended = node_->tables->AppendToBucket(
      "shop.events", 1, *Batch("shop.events", {{Value::Int(2), Value::Bytes("b")}}),
      metadata::kUnknownRecordTime, {}, [](Status) {});
  EXPECT_EQ(appended.status().code(), StatusCode::kFailedPrecondition);

  // Nothing was stored.
  auto offsets = node_->tables->Offsets("shop.events", std::nullopt);
  ASSERT_TRUE(offsets.ok()) << offsets.status();
  ASSERT_EQ(offsets->size(), 2u);
  for (const auto& o : *offsets) EXPECT_EQ(o.end, 0) << o.bucket;
  EXPECT_TRUE(testing::ReadLines(*node_->tables, {"shop.events"}).empty());
}

TEST_F(AssignedElsewhereTest, APartitionCreatedByAWriteHereIsOwnedByTheNodeTheAssignmentNames) {
  TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL"};
  spec.partition_by = {"region"};
  ASSERT_TRUE(node_->tables->CreateTable("shop.orders", spec).ok());
  auto written = node_->tables->Write(
      {"shop.orders"}, {Batch("shop.orders", {{Value::Int(1), Value::Bytes("us")}})});
  EXPECT_EQ(written.status().code(), StatusCode::kFailedPrecondition) << written.status();
  auto streams = node_->meta->Read([](const metadata::State& s) {
    return s.FindTable("shop", "orders")->partitions.at("us").streams;
  });
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(StreamOf(streams[0]).owner_node, other_.node_id);
  EXPECT_EQ(StreamOf(streams[0]).end_offset, 0);
  EXPECT_FALSE(node_->storage->Writes(streams[0]));
}

TEST_F(AssignedElsewhereTest, AtAStartTheNodeTakesExactlyTheStreamsTheAssignmentGivesIt) {
  ASSERT_TRUE(node_->tables->CreateTable("shop.events", Events()).ok());
  uint64_t b0 = *node_->tables->BucketStream("shop.events", 0);
  uint64_t b1 = *node_->tables->BucketStream("shop.events", 1);
  const int64_t epoch_before = StreamOf(b1).epoch;
  assignment_->set_take({b1});
  node_->tables.reset();
  node_->tables = std::make_unique<TableStore>(node_->meta.get(), node_->storage.get(),
                                               TableOptions{}, assignment_.get());
  ASSERT_TRUE(node_->tables->Start().ok());

  EXPECT_EQ(StreamOf(b1).owner_node, node_->storage->node().node_id);
  EXPECT_EQ(StreamOf(b1).epoch, epoch_before + 1) << "taking a stream fences its earlier owner";
  EXPECT_TRUE(node_->storage->Writes(b1));
  EXPECT_EQ(StreamOf(b0).owner_node, other_.node_id);
  EXPECT_FALSE(node_->storage->Writes(b0));

  auto append = [&](int32_t bucket, int64_t id) {
    std::promise<Status> done;
    auto r = node_->tables->AppendToBucket(
        "shop.events", bucket, *Batch("shop.events", {{Value::Int(id), Value::Bytes("x")}}),
        metadata::kUnknownRecordTime, {}, [&done](Status s) { done.set_value(s); });
    if (!r.ok()) return r.status();
    return done.get_future().get();
  };
  EXPECT_TRUE(append(1, 7).ok());
  EXPECT_EQ(append(0, 8).code(), StatusCode::kFailedPrecondition);
  ReadRequest all{"shop.events"};
  all.meta = true;
  EXPECT_EQ(testing::ReadLines(*node_->tables, all), (std::vector<std::string>{"7,x,b1,0,+A"}));
}

}  // namespace
}  // namespace mink::table
