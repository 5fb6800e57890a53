// Partition pruning on FLOAT, DOUBLE, TIME and TIMESTAMP partition columns, proven by the
// buckets the scans read (ScanReport), with every answer checked. (DECIMAL and TIMESTAMP_LTZ
// cannot be partition columns: the table layer refuses them.)
//   - TIME and TIMESTAMP partition names are exact: the filter is evaluated on the partition's
//     value, in DuckDB's unit for the column.
//   - FLOAT and DOUBLE names are rounded to 6 digits: a partition stands for an interval, and a
//     value that rounds to another partition's name must still be found in its own.

#include <gtest/gtest.h>

#include <functional>

#include "arrow_format/builder.h"
#include "arrow_format/record_batch_builder.h"
#include "query/tests/query_test_node.h"

namespace mink::query {
namespace {

constexpr int kRowsPerPartition = 10;

class PartitionTypesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    node_ = new testing::QueryTestNode();
    node_->Start("query-partition-types");
    ASSERT_TRUE(node_->tables()->CreateDatabase("pt").ok());
  }
  static void TearDownTestSuite() {
    node_->Stop();
    delete node_;
    node_ = nullptr;
  }

  // Creates pt.<name> (x <type> NOT NULL partition key, v INT) with kRowsPerPartition rows of
  // each of `partitions` values; `append(builder, p)` appends value p of x; v = 1 in every row.
  static void Create(const std::string& name, const std::string& type, int partitions,
                     const std::function<void(arrow::ArrayBuilder*, int)>& append) {
    table::TableSpec spec;
    spec.columns = {"x " + type + " NOT NULL", "v INT NOT NULL"};
    spec.partition_by = {"x"};
    spec.bucket_count = 1;
    auto created = node_->tables()->CreateTable("pt." + name, spec);
    ASSERT_TRUE(created.ok()) << created.status();
    auto schema = node_->tables()->TableSchema("pt." + name);
    ASSERT_TRUE(schema.ok()) << schema.status();
    for (int p = 0; p < partitions; ++p) {
      auto builder = arrow::RecordBatchBuilder::Make(*schema);
      ASSERT_TRUE(builder.ok());
      for (int i = 0; i < kRowsPerPartition; ++i) {
        append((*builder)->GetField(0), p);
        (*builder)->GetFieldAs<arrow::Int32Builder>(1)->Append(1);
      }
      auto batch = (*builder)->Flush();
      ASSERT_TRUE(batch.ok());
      table::WriteRequest request;
      request.table = "pt." + name;
      auto written = node_->tables()->Write(request, {*batch});
      ASSERT_TRUE(written.ok()) << written.status();
    }
  }

  // count(*) of `where` on pt.<table>, and the partitions (buckets) the scan read.
  struct Count {
    std::string count;
    int64_t buckets_read = -1;
    int64_t buckets_total = -1;
  };
  static Count CountWhere(const std::string& table, const std::string& where) {
    auto answer = node_->Run("SELECT count(*) FROM mink.pt." + table + " WHERE " + where);
    Count c;
    if (answer.rows.size() == 1) c.count = answer.rows[0];
    if (answer.scans.size() == 1) {
      c.buckets_read = answer.scans[0].buckets_read;
      c.buckets_total = answer.scans[0].buckets_total;
    }
    return c;
  }
  // Expects `count` rows where `where` holds, read from `buckets` buckets.
  static void ExpectCount(const std::string& table, const std::string& where,
                          const std::string& count, int64_t buckets) {
    SCOPED_TRACE(table + " WHERE " + where);
    Count c = CountWhere(table, where);
    EXPECT_EQ(c.count, count);
    EXPECT_EQ(c.buckets_read, buckets);
  }

  static testing::QueryTestNode* node_;
};

testing::QueryTestNode* PartitionTypesTest::node_ = nullptr;

std::string Rows(int partitions) { return std::to_string(partitions * kRowsPerPartition); }

TEST_F(PartitionTypesTest, Double) {
  const double values[] = {1.5, 2.25, -0.5, 3.1415926, 0.00001};
  Create("dbl", "DOUBLE", 5, [&](arrow::ArrayBuilder* b, int p) {
    static_cast<arrow::DoubleBuilder*>(b)->Append(values[p]);
  });
  ExpectCount("dbl", "x = 2.25", Rows(1), 1);
  // Named "3_14159": the exact value must still be found there...
  ExpectCount("dbl", "x = 3.1415926", Rows(1), 1);
  // ...and a value that prints the same but was never written is not.
  Count near = CountWhere("dbl", "x = 3.14159");
  EXPECT_EQ(near.count, "0");
  EXPECT_LE(near.buckets_read, 1);
  ExpectCount("dbl", "x > 2", Rows(2), 2);
  ExpectCount("dbl", "x BETWEEN -1 AND 0.001", Rows(2), 2);
  ExpectCount("dbl", "x IN (1.5, -0.5, 42)", Rows(2), 2);
  ExpectCount("dbl", "x < -0.1 OR x > 3", Rows(2), 2);
  ExpectCount("dbl", "x = 0.00001", Rows(1), 1);
  // Expressions the intervals cannot judge keep every partition (and answer right).
  ExpectCount("dbl", "x * 2 = 3", Rows(1), 5);
}

TEST_F(PartitionTypesTest, Float) {
  const float values[] = {1.5f, 0.1f, 7.25f};
  Create("flt", "FLOAT", 3, [&](arrow::ArrayBuilder* b, int p) {
    static_cast<arrow::FloatBuilder*>(b)->Append(values[p]);
  });
  ExpectCount("flt", "x = 0.1", Rows(1), 1);
  ExpectCount("flt", "x >= 1.5", Rows(2), 2);
  ExpectCount("flt", "x < 0", "0", 0);
}

TEST_F(PartitionTypesTest, Time) {
  const int32_t ms[] = {3'600'000, 45'296'789};  // 01:00:00, 12:34:56.789
  Create("tm", "TIME(3)", 2, [&](arrow::ArrayBuilder* b, int p) {
    static_cast<arrow::Time32Builder*>(b)->Append(ms[p]);
  });
  ExpectCount("tm", "x = TIME '12:34:56.789'", Rows(1), 1);
  ExpectCount("tm", "x < '02:00'", Rows(1), 1);
}

TEST_F(PartitionTypesTest, Timestamps) {
  // 2026-03-04 05:06:07.008 and 2026-12-02 00:00:00, in ms and in us.
  const int64_t ms[] = {1'772'600'767'008, 1'796'169'600'000};
  Create("ts3", "TIMESTAMP(3)", 2, [&](arrow::ArrayBuilder* b, int p) {
    static_cast<arrow::TimestampBuilder*>(b)->Append(ms[p]);
  });
  Create("ts6", "TIMESTAMP(6)", 2, [&](arrow::ArrayBuilder* b, int p) {
    static_cast<arrow::TimestampBuilder*>(b)->Append(ms[p] * 1000 + 9);
  });
  ExpectCount("ts3", "x = TIMESTAMP '2026-03-04 05:06:07.008'", Rows(1), 1);
  ExpectCount("ts3", "x >= '2026-06-01'", Rows(1), 1);
  ExpectCount("ts6", "x = TIMESTAMP '2026-03-04 05:06:07.008009'", Rows(1), 1);
  // Between the two partitions (so inside the column's min/max: the scan runs, reading nothing).
  ExpectCount("ts6", "x = TIMESTAMP '2026-06-01 00:00:00.000009'", "0", 0);
}

}  // namespace
}  // namespace mink::query
