#include "table/catalog.h"

#include <gtest/gtest.h>

#include <latch>
#include <set>
#include <thread>

#include "table_test_node.h"

namespace mink::table {
namespace {

using testing::RoomsTest;

class CatalogTest : public RoomsTest {
 protected:
  Catalog& catalog() { return rooms_->catalog; }

  TableSpec Events(int32_t buckets = 1) {
    TableSpec s;
    s.columns = {"id BIGINT NOT NULL", "note STRING"};
    s.bucket_count = buckets;
    return s;
  }
  TableSpec ByRegion(int32_t buckets) {
    TableSpec s;
    s.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL"};
    s.partition_by = {"region"};
    s.bucket_count = buckets;
    return s;
  }
  std::shared_ptr<const ResolvedTable> MustFind(const std::string& name) {
    auto t = catalog().Find(name);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : nullptr;
  }
  // EnsurePartition, which must succeed: the stream and label.
  std::pair<uint64_t, std::string> Ensure(const ResolvedTable& t, const std::string& partition,
                                          int32_t bucket) {
    std::string label;
    auto stream = catalog().EnsurePartition(t, partition, bucket, &label);
    EXPECT_TRUE(stream.ok()) << stream.status();
    return {stream.ok() ? *stream : 0, label};
  }
  static std::vector<std::string> Labels(const std::vector<BucketRef>& refs) {
    std::vector<std::string> out;
    for (const auto& r : refs) out.push_back(r.label);
    return out;
  }
};

TEST_F(CatalogTest, CreatesListsAndDropsDatabasesAndTables) {
  ASSERT_TRUE(catalog().CreateDatabase("analytics").ok());
  EXPECT_EQ(catalog().ListDatabases(), (std::vector<std::string>{"analytics", "shop"}));
  MustCreate("shop.orders", Events(3));
  MustCreate("shop.events", Events());
  MustCreate("analytics.daily", Events());
  EXPECT_EQ(*catalog().ListTables("shop"),
            (std::vector<std::string>{"shop.events", "shop.orders"}));
  EXPECT_EQ(*catalog().ListTables(""),
            (std::vector<std::string>{"analytics.daily", "shop.events", "shop.orders"}));

  auto info = catalog().DescribeTable("shop.orders");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->name, "shop.orders");
  EXPECT_EQ(info->descriptor.bucket_count, 3);
  ASSERT_EQ(info->descriptor.schema.columns.size(), 2u);
  EXPECT_EQ(info->descriptor.schema.columns[1].name, "note");

  // Dropping a table returns the streams of its buckets, which the metadata no longer has and
  // this node no longer writes.
  std::vector<uint64_t> streams;
  for (int32_t b = 0; b < 3; ++b) streams.push_back(*catalog().BucketStream("shop.orders", b));
  for (uint64_t s : streams) EXPECT_TRUE(node_->storage->Writes(s));
  auto dropped = catalog().DropTable("shop.orders");
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  EXPECT_EQ(*dropped, streams);
  for (uint64_t s : streams) {
    EXPECT_EQ(StreamOf(s).stream_id, 0u) << "stream " << s << " is still in the metadata";
    EXPECT_FALSE(node_->storage->Writes(s));
  }
  EXPECT_EQ(*catalog().ListTables("shop"), std::vector<std::string>{"shop.events"});

  EXPECT_EQ(catalog().DropDatabase("shop", false).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(catalog().DropDatabase("shop", true).ok());
  EXPECT_EQ(catalog().ListDatabases(), std::vector<std::string>{"analytics"});
  EXPECT_EQ(*catalog().ListTables(""), std::vector<std::string>{"analytics.daily"});
}

TEST_F(CatalogTest, DroppingAPartitionedTableReturnsTheStreamsOfEveryPartition) {
  MustCreate("shop.orders", ByRegion(2));
  auto t = MustFind("shop.orders");
  std::set<uint64_t> created;
  for (const char* p : {"us", "eu"}) {
    for (int32_t b = 0; b < 2; ++b) created.insert(Ensure(*t, p, b).first);
  }
  ASSERT_EQ(created.size(), 4u);
  auto dropped = catalog().DropTable("shop.orders");
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  EXPECT_EQ(std::set<uint64_t>(dropped->begin(), dropped->end()), created);
  for (uint64_t s : created) EXPECT_FALSE(node_->storage->Writes(s));
}

TEST_F(CatalogTest, DdlErrorsNameTheTableOrDatabase) {
  MustCreate("shop.events", Events());
  auto again = catalog().CreateTable("shop.events", Events());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(again.status().message().find("shop.events"), std::string::npos) << again.status();
  EXPECT_EQ(catalog().CreateTable("nodb.t", Events()).status().message(),
            "database nodb does not exist");
  auto no_dot = catalog().CreateTable("events", Events());
  EXPECT_EQ(no_dot.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(no_dot.status().message().find("'events'"), std::string::npos) << no_dot.status();
  auto drop = catalog().DropTable("shop.nope");
  EXPECT_EQ(drop.status().code(), StatusCode::kNotFound);
  EXPECT_NE(drop.status().message().find("shop.nope"), std::string::npos) << drop.status();
  EXPECT_EQ(catalog().CreateDatabase("shop").code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(catalog().ListTables("nodb").status().message(), "database nodb does not exist");
  EXPECT_EQ(catalog().Find("shop.nope").status().message(), "table shop.nope does not exist");
  EXPECT_EQ(catalog().Find("nodb.x").status().message(), "database nodb does not exist");
  EXPECT_EQ(catalog().DescribeTable("shop.nope").status().code(), StatusCode::kNotFound);
  // A bad spec is refused before anything is created.
  TableSpec bad = Events();
  bad.primary_key = {"missing"};
  EXPECT_EQ(catalog().CreateTable("shop.bad", bad).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*catalog().ListTables("shop"), std::vector<std::string>{"shop.events"});
}

TEST_F(CatalogTest, FindCachesTheDescriptorAndARecreatedTableGetsItsNewOne) {
  MustCreate("shop.t", Events(2));
  auto first = MustFind("shop.t");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(MustFind("shop.t"), first) << "the parsed descriptor is not cached";
  EXPECT_EQ(first->types.size(), 2u);
  EXPECT_EQ(first->d.bucket_count, 2);

  ASSERT_TRUE(catalog().DropTable("shop.t").ok());
  TableSpec other;
  other.columns = {"k STRING NOT NULL", "v INT", "w INT"};
  other.primary_key = {"k"};
  MustCreate("shop.t", other);
  auto second = MustFind("shop.t");
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second->id, first->id);
  ASSERT_EQ(second->d.schema.columns.size(), 3u);
  EXPECT_EQ(second->d.schema.columns[0].name, "k");
  EXPECT_TRUE(second->d.has_primary_key());
  EXPECT_EQ(second->pk, std::vector<int>{0});
  EXPECT_EQ(second->d.bucket_count, 1);
  EXPECT_EQ(second->schema->num_fields(), 3);
  // What was found before stays as it was.
  EXPECT_EQ(first->d.schema.columns[0].name, "id");
}

TEST_F(CatalogTest, APartitionIsCreatedOnFirstUseOnce) {
  MustCreate("shop.orders", ByRegion(2));
  auto t = MustFind("shop.orders");
  EXPECT_TRUE(catalog().DescribeTable("shop.orders")->partitions.empty());

  auto [us1, us1_label] = Ensure(*t, "us", 1);
  EXPECT_EQ(us1_label, "p1/b1");
  auto [us0, us0_label] = Ensure(*t, "us", 0);
  EXPECT_EQ(us0_label, "p1/b0");
  EXPECT_NE(us0, us1);
  EXPECT_EQ(Ensure(*t, "us", 1).first, us1) << "the partition was created again";
  auto [eu0, eu0_label] = Ensure(*t, "eu", 0);
  EXPECT_EQ(eu0_label, "p2/b0");

  auto info = catalog().DescribeTable("shop.orders");
  EXPECT_EQ(info->partitions, (std::vector<std::pair<std::string, int64_t>>{{"us", 1}, {"eu", 2}}));
  // The new buckets are this node's: owned in the metadata and written here.
  for (uint64_t s : {us0, us1, eu0}) {
    EXPECT_EQ(StreamOf(s).owner_node, node_->storage->node().node_id);
    EXPECT_EQ(StreamOf(s).owner_node_epoch, node_->storage->node().node_epoch);
    EXPECT_TRUE(node_->storage->Writes(s));
  }

  // An unpartitioned table's buckets exist from its creation.
  MustCreate("shop.events", Events(2));
  auto events = MustFind("shop.events");
  auto [b1, b1_label] = Ensure(*events, "", 1);
  EXPECT_EQ(b1_label, "b1");
  EXPECT_EQ(b1, *catalog().BucketStream("shop.events", 1));
  EXPECT_TRUE(catalog().DescribeTable("shop.events")->partitions.empty());
}

TEST_F(CatalogTest, TwoConcurrentFirstWritesCreateAPartitionOnce) {
  MustCreate("shop.orders", ByRegion(1));
  auto t = MustFind("shop.orders");
  constexpr int kWriters = 4;
  std::latch start(kWriters);
  std::vector<uint64_t> streams(kWriters);
  std::vector<std::string> labels(kWriters);
  std::vector<Status> statuses(kWriters);
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      auto s = catalog().EnsurePartition(*t, "us", 0, &labels[static_cast<size_t>(i)]);
      statuses[static_cast<size_t>(i)] = s.status();
      if (s.ok()) streams[static_cast<size_t>(i)] = *s;
    });
  }
  for (auto& th : threads) th.join();
  for (int i = 0; i < kWriters; ++i) {
    EXPECT_TRUE(statuses[static_cast<size_t>(i)].ok()) << statuses[static_cast<size_t>(i)];
    EXPECT_EQ(streams[static_cast<size_t>(i)], streams[0]);
    EXPECT_EQ(labels[static_cast<size_t>(i)], "p1/b0");
  }
  EXPECT_EQ(catalog().DescribeTable("shop.orders")->partitions,
            (std::vector<std::pair<std::string, int64_t>>{{"us", 1}}));
  // No partition id was used up by a losing writer: the next partition is the second.
  EXPECT_EQ(Ensure(*t, "eu", 0).second, "p2/b0");
}

TEST_F(CatalogTest, BucketsFiltersByPartitionAndBucket) {
  MustCreate("shop.orders", ByRegion(2));
  auto t = MustFind("shop.orders");
  EXPECT_TRUE(catalog().Buckets(*t, std::nullopt, std::nullopt)->empty());
  uint64_t us0 = Ensure(*t, "us", 0).first;
  uint64_t eu1 = Ensure(*t, "eu", 1).first;

  auto all = catalog().Buckets(*t, std::nullopt, std::nullopt);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(Labels(*all), (std::vector<std::string>{"p1/b0", "p1/b1", "p2/b0", "p2/b1"}));
  EXPECT_EQ((*all)[0].stream_id, us0);
  EXPECT_EQ((*all)[3].stream_id, eu1);
  EXPECT_EQ(Labels(*catalog().Buckets(*t, std::string("eu"), std::nullopt)),
            (std::vector<std::string>{"p2/b0", "p2/b1"}));
  EXPECT_EQ(Labels(*catalog().Buckets(*t, std::nullopt, 1)),
            (std::vector<std::string>{"p1/b1", "p2/b1"}));
  auto one = catalog().Buckets(*t, std::string("us"), 0);
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].label, "p1/b0");
  EXPECT_EQ((*one)[0].stream_id, us0);

  MustCreate("shop.events", Events(3));
  auto events = MustFind("shop.events");
  auto b2 = catalog().Buckets(*events, std::nullopt, 2);
  ASSERT_EQ(b2->size(), 1u);
  EXPECT_EQ((*b2)[0].label, "b2");
  EXPECT_EQ((*b2)[0].stream_id, *catalog().BucketStream("shop.events", 2));
}

TEST_F(CatalogTest, BucketsRefusesWhatTheTableDoesNotHave) {
  MustCreate("shop.orders", ByRegion(2));
  auto t = MustFind("shop.orders");
  Ensure(*t, "us", 0);
  auto unknown = catalog().Buckets(*t, std::string("asia"), std::nullopt);
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), "partition 'asia' of shop.orders does not exist");
  for (int32_t bucket : {2, -1}) {
    auto out_of_range = catalog().Buckets(*t, std::nullopt, bucket);
    EXPECT_EQ(out_of_range.status().code(), StatusCode::kInvalidArgument) << bucket;
    EXPECT_EQ(out_of_range.status().message(), "table shop.orders has buckets 0..1");
  }
  MustCreate("shop.events", Events(2));
  auto events = MustFind("shop.events");
  auto filtered = catalog().Buckets(*events, std::string("us"), std::nullopt);
  EXPECT_EQ(filtered.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(filtered.status().message(), "table shop.events is not partitioned");
  // BucketStream is for unpartitioned tables and their buckets.
  EXPECT_EQ(catalog().BucketStream("shop.orders", 0).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(catalog().BucketStream("shop.events", 2).status().message(),
            "table shop.events has no bucket 2");
}

// The bytes of Zstandard and LZ4 frame magic numbers, as stored (little-endian).
const std::string kZstdMagic("\x28\xb5\x2f\xfd", 4);
const std::string kLz4Magic("\x04\x22\x4d\x18", 4);

TEST_F(CatalogTest, TheCompressionOptionIsReadInAnyCase) {
  struct Case {
    const char* option;  // nullptr: not set
    arrow::CompressionCodec codec;
  } cases[] = {
      {nullptr, arrow::CompressionCodec::kLz4Frame}, {"zstd", arrow::CompressionCodec::kZstd},
      {"ZSTD", arrow::CompressionCodec::kZstd},      {"Zstd", arrow::CompressionCodec::kZstd},
      {"LZ4", arrow::CompressionCodec::kLz4Frame},   {"None", arrow::CompressionCodec::kNone}};
  int n = 0;
  for (const auto& c : cases) {
    const std::string name = "shop.t" + std::to_string(n++);
    TableSpec spec = Events();
    if (c.option != nullptr) spec.options = {{"table.log.arrow.compression.type", c.option}};
    MustCreate(name, spec);
    auto t = MustFind(name);
    EXPECT_EQ(t->codec, c.codec) << (c.option ? c.option : "(default)");

    // What is stored is compressed so: a compressible column's buffer holds the codec's frame.
    const std::string note(4000, 'x');
    rooms_->MustWrite(name, {{Value::Int(1), Value::Bytes(note)}});
    auto stored = node_->storage->Read(*catalog().BucketStream(name, 0), 0, 1 << 20);
    ASSERT_TRUE(stored.ok()) << stored.status();
    ASSERT_EQ(stored->batches.size(), 1u);
    std::string payload(stored->batches[0]->payload.view());
    EXPECT_EQ(payload.find(kZstdMagic) != std::string::npos,
              c.codec == arrow::CompressionCodec::kZstd)
        << name;
    EXPECT_EQ(payload.find(kLz4Magic) != std::string::npos,
              c.codec == arrow::CompressionCodec::kLz4Frame)
        << name;
    EXPECT_EQ(payload.find(note) != std::string::npos, c.codec == arrow::CompressionCodec::kNone)
        << name;
    EXPECT_EQ(rooms_->Read({name}), (std::vector<std::string>{"1," + note}));
  }
}

}  // namespace
}  // namespace mink::table
