// Pushdown, proven by what the scans read from storage (ScanReport: buckets, columns, batches,
// rows and IPC bytes received over Flight), against a node started in this process:
//   - projection: only the columns a query uses leave storage;
//   - a filter on the partition columns reads only the matching partitions;
//   - equality on the bucket key reads only the key's bucket in each partition;
//   - LIMIT stops the scan before the table is read;
//   - equality on every primary-key column of a primary-key table is a lookup of those keys;
// and every answer is checked against values computed here.

#include <gtest/gtest.h>

#include <map>

#include "arrow_format/builder.h"
#include "arrow_format/record_batch_builder.h"
#include "node/node.h"
#include "query/engine.h"
#include "query/tests/query_test_node.h"
#include "test_env.h"

namespace mink::query {
namespace {

constexpr int kRegions = 4;          // partitions a, b, c, d
constexpr int kBuckets = 4;          // per partition
constexpr int kBatchesPerRegion = 10;
constexpr int kRowsPerBatch = 500;   // 5,000 rows per region, 20,000 in all
constexpr int kPadBytes = 64;

std::string Region(int r) { return std::string(1, static_cast<char>('a' + r)); }

class PushdownTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto node = testing::StartLocalNode("query-pushdown");
    ASSERT_TRUE(node.ok()) << node.status();
    node_ = node->release();
    table::TableStore* tables = node_->tables();
    ASSERT_TRUE(tables->CreateDatabase("p").ok());
    table::TableSpec spec;
    spec.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "v BIGINT", "pad STRING"};
    spec.partition_by = {"region"};
    spec.bucket_key = {"id"};
    spec.bucket_count = kBuckets;
    auto created = tables->CreateTable("p.wide", spec);
    ASSERT_TRUE(created.ok()) << created.status();
    auto schema = tables->TableSchema("p.wide");
    ASSERT_TRUE(schema.ok()) << schema.status();
    // Many small writes, so that every bucket's log holds several batches.
    int64_t id = 0;
    for (int b = 0; b < kBatchesPerRegion; ++b) {
      for (int r = 0; r < kRegions; ++r) {
        auto builder = arrow::RecordBatchBuilder::Make(*schema);
        ASSERT_TRUE(builder.ok());
        for (int i = 0; i < kRowsPerBatch; ++i, ++id) {
          (*builder)->GetFieldAs<arrow::Int64Builder>(0)->Append(id);
          ASSERT_TRUE((*builder)->GetFieldAs<arrow::StringBuilder>(1)->Append(Region(r)).ok());
          (*builder)->GetFieldAs<arrow::Int64Builder>(2)->Append(id * 10);
          std::string pad(kPadBytes, static_cast<char>('A' + id % 26));
          ASSERT_TRUE((*builder)->GetFieldAs<arrow::StringBuilder>(3)->Append(pad).ok());
          sum_by_region_[Region(r)] += id * 10;
          total_ += id * 10;
        }
        auto batch = (*builder)->Flush();
        ASSERT_TRUE(batch.ok());
        table::WriteRequest request;
        request.table = "p.wide";
        auto written = tables->Write(request, {*batch});
        ASSERT_TRUE(written.ok()) << written.status();
      }
    }
    // A primary-key table: 100 ids in each of the regions, v = id * 10 + region number.
    table::TableSpec keyed;
    keyed.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "v BIGINT"};
    keyed.primary_key = {"id", "region"};
    keyed.partition_by = {"region"};
    keyed.bucket_count = kBuckets;
    ASSERT_TRUE(tables->CreateTable("p.keyed", keyed).ok());
    auto keyed_schema = tables->TableSchema("p.keyed");
    ASSERT_TRUE(keyed_schema.ok());
    auto builder = arrow::RecordBatchBuilder::Make(*keyed_schema);
    ASSERT_TRUE(builder.ok());
    for (int r = 0; r < kRegions; ++r) {
      for (int64_t k = 0; k < 100; ++k) {
        (*builder)->GetFieldAs<arrow::Int64Builder>(0)->Append(k);
        ASSERT_TRUE((*builder)->GetFieldAs<arrow::StringBuilder>(1)->Append(Region(r)).ok());
        (*builder)->GetFieldAs<arrow::Int64Builder>(2)->Append(k * 10 + r);
      }
    }
    auto keyed_batch = (*builder)->Flush();
    ASSERT_TRUE(keyed_batch.ok());
    table::WriteRequest keyed_write;
    keyed_write.table = "p.keyed";
    ASSERT_TRUE(tables->Write(keyed_write, {*keyed_batch}).ok());

    EngineOptions options;
    options.bootstrap = "grpc://127.0.0.1:" + std::to_string(node_->flight_port());
    options.lock_down = false;  // the test SETs mink_compressed_scan
    auto engine = Engine::Open(options);
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = engine->release();
  }

  static void TearDownTestSuite() {
    delete engine_;
    engine_ = nullptr;
    if (node_ != nullptr) node_->Stop();
    delete node_;
    node_ = nullptr;
  }

  // Runs `sql`, returns its single BIGINT/HUGEINT-as-text value of row 0 (or every row's first
  // column joined by ','), and the scan reports of the query.
  struct Answer {
    std::vector<std::string> values;  // first column of each row, as text
    std::vector<ScanReport> scans;
  };
  static Answer Run(const std::string& sql) {
    Answer answer;
    engine_->scans().TakeWhenEnded();
    auto session = engine_->Connect();
    EXPECT_TRUE(session.ok());
    if (!session.ok()) return answer;
    {
      auto result = (*session)->Execute(sql);
      EXPECT_TRUE(result.ok()) << sql << ": " << result.status();
      if (!result.ok()) return answer;
      while (true) {
        auto batch = (*result)->Next();
        EXPECT_TRUE(batch.ok()) << batch.status();
        if (!batch.ok() || *batch == nullptr) break;
        auto column = (*batch)->Column(0);
        for (int64_t i = 0; i < (*batch)->num_rows(); ++i) {
          answer.values.push_back(ValueText(column, i));
        }
      }
    }
    session->reset();
    answer.scans = engine_->scans().TakeWhenEnded();
    return answer;
  }

  static std::string ValueText(const arrow::ArrayDataPtr& data, int64_t i) {
    switch (data->type->id()) {
      case arrow::TypeId::kInt64:
        return std::to_string(data->buffers[1]->data_as<int64_t>()[i]);
      case arrow::TypeId::kDecimal128: {
        // sum(BIGINT) is HUGEINT in DuckDB, exported as DECIMAL(38,0): the low 64 bits suffice.
        int64_t low;
        std::memcpy(&low, data->buffers[1]->data() + i * 16, 8);
        return std::to_string(low);
      }
      case arrow::TypeId::kUtf8: {
        const int32_t* offsets = data->buffers[1]->data_as<int32_t>();
        return std::string(data->buffers[2]->data_as<char>() + offsets[i],
                           static_cast<size_t>(offsets[i + 1] - offsets[i]));
      }
      default:
        return "<" + data->type->ToString() + ">";
    }
  }

  static const ScanReport& OnlyScan(const Answer& answer) {
    EXPECT_EQ(answer.scans.size(), 1u);
    static ScanReport empty;
    return answer.scans.empty() ? empty : answer.scans[0];
  }

  static node::Node* node_;
  static Engine* engine_;
  static std::map<std::string, int64_t> sum_by_region_;
  static int64_t total_;
};

node::Node* PushdownTest::node_ = nullptr;
Engine* PushdownTest::engine_ = nullptr;
std::map<std::string, int64_t> PushdownTest::sum_by_region_;
int64_t PushdownTest::total_ = 0;

constexpr int64_t kTotalRows = int64_t{kRegions} * kBatchesPerRegion * kRowsPerBatch;

TEST_F(PushdownTest, ProjectionReadsOnlyTheColumnsTheQueryUses) {
  // Byte counts of uncompressed batches (compressed sizes depend on the data).
  Run("SET GLOBAL mink_compressed_scan = false");
  Answer narrow = Run("SELECT sum(v) FROM mink.p.wide");
  ASSERT_EQ(narrow.values, std::vector<std::string>{std::to_string(total_)});
  const ScanReport& n = OnlyScan(narrow);
  EXPECT_EQ(n.columns, std::vector<std::string>{"v"});
  EXPECT_EQ(n.rows, kTotalRows);
  EXPECT_EQ(n.buckets_read, kRegions * kBuckets);

  Answer wide = Run("SELECT sum(v), max(pad), max(region), max(id) FROM mink.p.wide");
  ASSERT_EQ(wide.values, std::vector<std::string>{std::to_string(total_)});
  const ScanReport& w = OnlyScan(wide);
  EXPECT_EQ(w.columns.size(), 4u);
  EXPECT_EQ(w.rows, kTotalRows);
  // v is 8 bytes a row; every column together is over 8 + 8 + 64 + offsets: at least 8x more.
  EXPECT_LT(n.bytes * 8, w.bytes) << "narrow " << n.bytes << " bytes, wide " << w.bytes;
  EXPECT_GE(n.bytes, kTotalRows * 8);

  // Compressed as stored (the default): the same answer from fewer bytes.
  Run("SET GLOBAL mink_compressed_scan = true");
  Answer compressed = Run("SELECT sum(v), max(pad), max(region), max(id) FROM mink.p.wide");
  ASSERT_EQ(compressed.values, std::vector<std::string>{std::to_string(total_)});
  const ScanReport& c = OnlyScan(compressed);
  EXPECT_EQ(c.rows, kTotalRows);
  EXPECT_LT(c.bytes * 2, w.bytes) << "compressed " << c.bytes << " bytes, uncompressed " << w.bytes;
}

TEST_F(PushdownTest, CountStarReadsOneNarrowColumn) {
  Answer count = Run("SELECT count(*) FROM mink.p.wide");
  ASSERT_EQ(count.values, std::vector<std::string>{std::to_string(kTotalRows)});
  const ScanReport& s = OnlyScan(count);
  ASSERT_EQ(s.columns.size(), 1u);
  EXPECT_NE(s.columns[0], "pad");
  EXPECT_NE(s.columns[0], "region");
}

TEST_F(PushdownTest, PartitionFilterReadsOnlyMatchingPartitions) {
  // The same columns (v and the filtered region) from every partition, then from one.
  Answer all = Run("SELECT sum(v) FROM mink.p.wide WHERE region <> 'zz'");
  ASSERT_EQ(all.values, std::vector<std::string>{std::to_string(total_)});
  EXPECT_EQ(OnlyScan(all).buckets_read, kRegions * kBuckets);
  Answer one = Run("SELECT sum(v) FROM mink.p.wide WHERE region = 'b'");
  ASSERT_EQ(one.values, std::vector<std::string>{std::to_string(sum_by_region_["b"])});
  const ScanReport& s = OnlyScan(one);
  EXPECT_EQ(s.buckets_total, kRegions * kBuckets);
  EXPECT_EQ(s.buckets_read, kBuckets);
  EXPECT_EQ(s.rows, kTotalRows / kRegions);
  // A quarter of the bytes of the full scan (schema messages aside).
  EXPECT_EQ(OnlyScan(one).columns, OnlyScan(all).columns);
  EXPECT_LT(s.bytes * 3, OnlyScan(all).bytes);

  Answer two = Run("SELECT sum(v) FROM mink.p.wide WHERE region IN ('a', 'd')");
  ASSERT_EQ(two.values,
            std::vector<std::string>{std::to_string(sum_by_region_["a"] + sum_by_region_["d"])});
  EXPECT_EQ(OnlyScan(two).buckets_read, 2 * kBuckets);
  EXPECT_EQ(OnlyScan(two).rows, 2 * kTotalRows / kRegions);

  Answer range = Run("SELECT sum(v) FROM mink.p.wide WHERE region >= 'c'");
  ASSERT_EQ(range.values,
            std::vector<std::string>{std::to_string(sum_by_region_["c"] + sum_by_region_["d"])});
  EXPECT_EQ(OnlyScan(range).buckets_read, 2 * kBuckets);

  Answer none = Run("SELECT count(*) FROM mink.p.wide WHERE region = 'zz'");
  ASSERT_EQ(none.values, std::vector<std::string>{"0"});
  EXPECT_EQ(OnlyScan(none).buckets_read, 0);
  EXPECT_EQ(OnlyScan(none).bytes, 0);
}

TEST_F(PushdownTest, BucketKeyEqualityReadsOneBucketPerPartition) {
  // id 1234 was written to region (1234 / 500) % 4 = 2 ('c'), v = 12340.
  Answer one = Run("SELECT sum(v) FROM mink.p.wide WHERE id = 1234");
  ASSERT_EQ(one.values, std::vector<std::string>{"12340"});
  const ScanReport& s = OnlyScan(one);
  EXPECT_EQ(s.buckets_read, kRegions);  // the key's bucket, in every partition
  EXPECT_LT(s.rows, kTotalRows / 2);

  Answer both = Run("SELECT region FROM mink.p.wide WHERE id = 1234 AND region = 'c'");
  ASSERT_EQ(both.values, std::vector<std::string>{"c"});
  EXPECT_EQ(OnlyScan(both).buckets_read, 1);

  Answer list = Run("SELECT count(*) FROM mink.p.wide WHERE id IN (1, 2, 3)");
  ASSERT_EQ(list.values, std::vector<std::string>{"3"});
  EXPECT_LE(OnlyScan(list).buckets_read, 3 * kRegions);
}

TEST_F(PushdownTest, EqualityOnTheWholePrimaryKeyIsALookup) {
  Answer one = Run("SELECT v FROM mink.p.keyed WHERE id = 7 AND region = 'b'");
  ASSERT_EQ(one.values, std::vector<std::string>{"71"});
  const ScanReport& s = OnlyScan(one);
  EXPECT_EQ(s.mode, "lookup");
  EXPECT_EQ(s.keys, 1);
  EXPECT_EQ(s.rows, 1);
  EXPECT_EQ(s.buckets_read, 0);

  // Lists: every combination is a key; missing keys (id 500) add nothing.
  Answer many = Run(
      "SELECT v FROM mink.p.keyed WHERE id IN (3, 500, 9) AND region IN ('a', 'c') ORDER BY v");
  EXPECT_EQ(many.values, (std::vector<std::string>{"30", "32", "90", "92"}));
  EXPECT_EQ(OnlyScan(many).keys, 6);
  EXPECT_EQ(OnlyScan(many).rows, 4);

  // The other filters still apply to the rows looked up.
  Answer none = Run("SELECT count(*) FROM mink.p.keyed WHERE id = 7 AND region = 'b' AND v > 100");
  EXPECT_EQ(none.values, std::vector<std::string>{"0"});
  EXPECT_EQ(OnlyScan(none).mode, "lookup");

  // Not the whole key: a snapshot read of the key's bucket in every partition.
  Answer partial = Run("SELECT count(*) FROM mink.p.keyed WHERE id = 7");
  EXPECT_EQ(partial.values, std::vector<std::string>{"4"});
  EXPECT_EQ(OnlyScan(partial).mode, "snapshot");
  EXPECT_EQ(OnlyScan(partial).buckets_read, kRegions);
  // A range is not a key either.
  EXPECT_EQ(OnlyScan(Run("SELECT count(*) FROM mink.p.keyed WHERE id < 2 AND region = 'a'")).mode,
            "snapshot");
}

TEST_F(PushdownTest, LimitStopsTheScanEarly) {
  Answer limited = Run("SELECT id FROM mink.p.wide LIMIT 7");
  ASSERT_EQ(limited.values.size(), 7u);
  const ScanReport& s = OnlyScan(limited);
  // Each bucket holds ~10 batches of ~125 rows; the scan stops after a few of them.
  EXPECT_LT(s.rows, kTotalRows / 4) << s.rows << " rows in " << s.batches << " batches";
  EXPECT_LT(s.batches, kRegions * kBuckets * kBatchesPerRegion / 4);
}

TEST_F(PushdownTest, FiltersOnOtherColumnsAreAppliedInTheScan) {
  // v > x is pushed into the scan (DuckDB drops it from the plan): the scan must apply it.
  Answer a = Run("SELECT count(*) FROM mink.p.wide WHERE v > 100000");
  ASSERT_EQ(a.values, std::vector<std::string>{std::to_string(kTotalRows - 10001)});
  Answer b = Run("SELECT count(*) FROM mink.p.wide WHERE v BETWEEN 10 AND 100 AND pad LIKE 'B%'");
  // ids 1..10 have v in [10, 100]; pad starts with 'A' + id % 26: 'B' for id 1.
  ASSERT_EQ(b.values, std::vector<std::string>{"1"});
}

TEST_F(PushdownTest, ExplainShowsThePruning) {
  Answer plan = Run("EXPLAIN SELECT sum(v) FROM mink.p.wide WHERE region = 'b' AND id = 7");
  ASSERT_FALSE(plan.values.empty());
  // EXPLAIN's rows: (explain_key, explain_value); the first column is the key.
  auto session = engine_->Connect();
  ASSERT_TRUE(session.ok());
  auto result = (*session)->Execute("EXPLAIN SELECT sum(v) FROM mink.p.wide WHERE region = 'b' AND id = 7");
  ASSERT_TRUE(result.ok()) << result.status();
  std::string text;
  while (true) {
    auto batch = (*result)->Next();
    ASSERT_TRUE(batch.ok());
    if (*batch == nullptr) break;
    for (int64_t i = 0; i < (*batch)->num_rows(); ++i) text += ValueText((*batch)->Column(1), i);
  }
  EXPECT_NE(text.find("mink.p.wide"), std::string::npos) << text;
  EXPECT_NE(text.find("1 of 16"), std::string::npos) << text;
}

}  // namespace
}  // namespace mink::query
