// Column statistics of log tables: the node's column-stats (min/max and nulls of integer-valued
// columns per bucket) reach DuckDB's optimizer through mink_scan's statistics callback, so that
// a GROUP BY on a small integer range runs as DuckDB's perfect hash aggregate and a filter no
// row passes reads nothing (TIME and TIMESTAMP bounds in DuckDB's units); and they stay
// correct when rows are appended after they were computed: the node extends them, and a scan
// reads no row beyond the offsets its statistics cover.

#include <gtest/gtest.h>

#include "arrow_format/builder.h"
#include "arrow_format/ipc.h"
#include "arrow_format/record_batch_builder.h"
#include "query/tests/query_test_node.h"

namespace mink::query {
namespace {

class StatisticsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    node_.Start("query-stats");
    ASSERT_TRUE(node_.tables()->CreateDatabase("s").ok());
    table::TableSpec spec;
    spec.columns = {"k INT NOT NULL", "g SMALLINT", "v BIGINT", "day DATE", "name STRING"};
    spec.bucket_count = 2;
    auto created = node_.tables()->CreateTable("s.t", spec);
    ASSERT_TRUE(created.ok()) << created.status();
  }
  void TearDown() override { node_.Stop(); }

  // Rows (k, g, v, day): g is NULL when k % 10 == 0; v = k * 100.
  void Write(int from_k, int to_k) {
    auto schema = node_.tables()->TableSchema("s.t");
    ASSERT_TRUE(schema.ok()) << schema.status();
    auto builder = arrow::RecordBatchBuilder::Make(*schema);
    ASSERT_TRUE(builder.ok());
    for (int k = from_k; k <= to_k; ++k) {
      (*builder)->GetFieldAs<arrow::Int32Builder>(0)->Append(k);
      if (k % 10 == 0) {
        (*builder)->GetFieldAs<arrow::Int16Builder>(1)->AppendNull();
      } else {
        (*builder)->GetFieldAs<arrow::Int16Builder>(1)->Append(static_cast<int16_t>(k % 10));
      }
      (*builder)->GetFieldAs<arrow::Int64Builder>(2)->Append(int64_t{k} * 100);
      (*builder)->GetFieldAs<arrow::Int32Builder>(3)->Append(20000 + k);
      ASSERT_TRUE(
          (*builder)->GetFieldAs<arrow::StringBuilder>(4)->Append("n" + std::to_string(k)).ok());
    }
    auto batch = (*builder)->Flush();
    ASSERT_TRUE(batch.ok());
    table::WriteRequest request;
    request.table = "s.t";
    auto written = node_.tables()->Write(request, {*batch});
    ASSERT_TRUE(written.ok()) << written.status();
  }

  testing::QueryTestNode node_;
};

TEST_F(StatisticsTest, NodeReportsMinMaxAndNullsPerBucket) {
  Write(1, 100);
  auto stats = node_.tables()->ColumnStats("s.t");
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->size(), 2u);
  int64_t rows = 0;
  int64_t min_k = INT64_MAX, max_k = INT64_MIN, g_nulls = 0;
  for (const auto& b : *stats) {
    rows += b.rows;
    ASSERT_EQ(b.columns.size(), 4u);  // k, g, v, day: the integer-valued columns
    EXPECT_EQ(b.columns[0].column, "k");
    EXPECT_EQ(b.columns[3].column, "day");
    if (b.columns[0].has_values) {
      min_k = std::min(min_k, b.columns[0].min);
      max_k = std::max(max_k, b.columns[0].max);
    }
    g_nulls += b.columns[1].null_count;
    EXPECT_EQ(b.end, b.rows);
  }
  EXPECT_EQ(rows, 100);
  EXPECT_EQ(min_k, 1);
  EXPECT_EQ(max_k, 100);
  EXPECT_EQ(g_nulls, 10);

  // Primary-key tables have none (their rows are the KV state, not the log).
  table::TableSpec pk;
  pk.columns = {"id INT NOT NULL", "x INT"};
  pk.primary_key = {"id"};
  ASSERT_TRUE(node_.tables()->CreateTable("s.pk", pk).ok());
  EXPECT_EQ(node_.tables()->ColumnStats("s.pk").status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(StatisticsTest, SmallIntegerGroupByUsesThePerfectHashAggregate) {
  Write(1, 500);
  std::string plan = node_.Explain("SELECT g, sum(v), count(*) FROM mink.s.t GROUP BY g");
  EXPECT_NE(plan.find("PERFECT_HASH_GROUP_BY"), std::string::npos) << plan;
  auto answer =
      node_.Run("SELECT g, sum(v), count(*) FROM mink.s.t GROUP BY g ORDER BY g NULLS FIRST");
  ASSERT_TRUE(answer.ok);
  ASSERT_EQ(answer.rows.size(), 10u);
  // g NULL: k = 10, 20, ..., 500 -> sum(v) = 100 * (10 + ... + 500) = 100 * 12750.
  EXPECT_EQ(answer.rows[0], ",1275000,50");
  // g 1: k = 1, 11, ..., 491 -> 50 rows, sum(k) = 50 * 246 = 12300.
  EXPECT_EQ(answer.rows[1], "1,1230000,50");

  // Without statistics (a string key) DuckDB falls back to its general hash aggregate.
  std::string general = node_.Explain("SELECT name, count(*) FROM mink.s.t GROUP BY name");
  EXPECT_EQ(general.find("PERFECT_HASH_GROUP_BY"), std::string::npos) << general;
}

TEST_F(StatisticsTest, RowsAppendedAfterTheStatisticsAreAnsweredRight) {
  Write(1, 100);
  // Statistics computed (and cached by the node) for k in 1..100.
  auto before = node_.Run("SELECT min(k), max(k), count(*) FROM mink.s.t");
  ASSERT_TRUE(before.ok);
  EXPECT_EQ(before.rows, std::vector<std::string>{"1,100,100"});
  auto none = node_.Run("SELECT count(*) FROM mink.s.t WHERE k > 5000");
  EXPECT_EQ(none.rows, std::vector<std::string>{"0"});
  for (const auto& scan : none.scans) EXPECT_EQ(scan.bytes, 0);  // answered from the statistics

  // Rows far outside the cached range: the next query's statistics must include them.
  Write(-3000, -2990);
  Write(6000, 6010);
  auto after = node_.Run("SELECT min(k), max(k), count(*) FROM mink.s.t");
  EXPECT_EQ(after.rows, std::vector<std::string>{"-3000,6010,122"});
  auto some = node_.Run("SELECT count(*) FROM mink.s.t WHERE k > 5000");
  EXPECT_EQ(some.rows, std::vector<std::string>{"11"});
  auto grouped = node_.Run(
      "SELECT CASE WHEN k < 0 THEN 'neg' WHEN k > 5000 THEN 'big' ELSE 'mid' END AS side, "
      "count(*) FROM mink.s.t GROUP BY side ORDER BY side");
  EXPECT_EQ(grouped.rows, (std::vector<std::string>{"big,11", "mid,100", "neg,11"}));
  auto by_k = node_.Run(
      "SELECT k, count(*) FROM mink.s.t WHERE k < 0 OR k > 100 GROUP BY k "
      "ORDER BY k LIMIT 2 OFFSET 10");
  EXPECT_EQ(by_k.rows, (std::vector<std::string>{"-2990,1", "6000,1"}));
  auto stats = node_.tables()->ColumnStats("s.t");
  ASSERT_TRUE(stats.ok());
  int64_t rows = 0;
  for (const auto& b : *stats) rows += b.rows;
  EXPECT_EQ(rows, 122);  // extended, not counted twice
}

TEST_F(StatisticsTest, LogReadsStopAtTheEndTheStatisticsCover) {
  Write(1, 40);
  auto stats = node_.tables()->ColumnStats("s.t");
  ASSERT_TRUE(stats.ok());
  Write(41, 80);  // committed after the statistics
  // A read with the statistics' end sees exactly the rows they cover.
  int64_t covered = 0, read = 0;
  for (const auto& b : *stats) {
    covered += b.rows;
    table::ReadRequest request;
    request.table = "s.t";
    request.bucket = b.bucket;
    request.columns = {"k"};
    request.end = b.end;
    Status s = node_.tables()->Read(request, [&](const arrow::RecordBatchPtr& batch) {
      const int32_t* k = batch->Column(0)->buffers[1]->data_as<int32_t>();
      for (int64_t i = 0; i < batch->num_rows(); ++i) EXPECT_LE(k[i], 40);
      read += batch->num_rows();
      return true;
    });
    ASSERT_TRUE(s.ok()) << s;
  }
  EXPECT_EQ(covered, 40);
  EXPECT_EQ(read, 40);
  // And the query engine, which asks for statistics again, sees every row.
  auto all = node_.Run("SELECT count(*), max(k) FROM mink.s.t");
  EXPECT_EQ(all.rows, std::vector<std::string>{"80,80"});
}

TEST_F(StatisticsTest, TimeAndTimestampBoundsAreInDuckDBsUnits) {
  table::TableSpec spec;
  spec.columns = {"ts TIMESTAMP(3) NOT NULL", "tm TIME(3)", "tz TIMESTAMP_LTZ(6)"};
  ASSERT_TRUE(node_.tables()->CreateTable("s.times", spec).ok());
  constexpr int64_t kBaseMs = 1'772'600'767'008;  // 2026-03-04 05:06:07.008
  auto write = [&](int64_t ms) {
    auto schema = node_.tables()->TableSchema("s.times");
    ASSERT_TRUE(schema.ok());
    auto builder = arrow::RecordBatchBuilder::Make(*schema);
    ASSERT_TRUE(builder.ok());
    (*builder)->GetFieldAs<arrow::TimestampBuilder>(0)->Append(ms);
    (*builder)->GetFieldAs<arrow::Time32Builder>(1)->Append(static_cast<int32_t>(ms % 86'400'000));
    (*builder)->GetFieldAs<arrow::TimestampBuilder>(2)->Append(ms * 1000 + 9);
    auto batch = (*builder)->Flush();
    ASSERT_TRUE(batch.ok());
    table::WriteRequest request;
    request.table = "s.times";
    ASSERT_TRUE(node_.tables()->Write(request, {*batch}).ok());
  };
  for (int i = 0; i < 10; ++i) write(kBaseMs + i * 1000);
  auto bounds =
      node_.Run("SELECT min(ts), max(ts), min(tm), max(tm), epoch_us(min(tz)) FROM mink.s.times");
  EXPECT_EQ(bounds.rows, std::vector<std::string>{
                             "2026-03-04T05:06:07.008,2026-03-04T05:06:16.008,05:06:07.008000,"
                             "05:06:16.008000,1772600767008009"});
  auto inside = node_.Run(
      "SELECT count(*) FROM mink.s.times WHERE ts <= TIMESTAMP '2026-03-04 05:06:09.008' AND "
      "tm >= TIME '05:06:08.008' AND tz >= TIMESTAMPTZ '2026-03-04 05:06:07.008009+00'");
  EXPECT_EQ(inside.rows, std::vector<std::string>{"2"});
  // Outside every bound: DuckDB answers from the statistics without reading.
  auto outside = node_.Run("SELECT count(*) FROM mink.s.times WHERE ts > '2030-01-01'");
  EXPECT_EQ(outside.rows, std::vector<std::string>{"0"});
  for (const auto& scan : outside.scans) EXPECT_EQ(scan.bytes, 0);
  // Until a row there is written.
  write(1'924'992'000'000);  // 2031-01-01
  auto later = node_.Run("SELECT count(*) FROM mink.s.times WHERE ts > '2030-01-01'");
  EXPECT_EQ(later.rows, std::vector<std::string>{"1"});
}

TEST_F(StatisticsTest, CompressedMessagesHoldTheSameRowsAsDecodedReads) {
  Write(1, 300);
  Write(301, 302);
  for (int32_t bucket = 0; bucket < 2; ++bucket) {
    table::ReadRequest request;
    request.table = "s.t";
    request.bucket = bucket;
    request.columns = {"v", "k"};
    std::vector<std::string> decoded;
    Status s = node_.tables()->Read(request, [&](const arrow::RecordBatchPtr& batch) {
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        decoded.push_back(std::to_string(batch->Column(0)->buffers[1]->data_as<int64_t>()[i]) +
                          "," +
                          std::to_string(batch->Column(1)->buffers[1]->data_as<int32_t>()[i]));
      }
      return true;
    });
    ASSERT_TRUE(s.ok()) << s;
    // The same read as messages (stored batches, projected without decoding), then decoded here.
    auto schema = node_.tables()->ReadSchema(request);
    ASSERT_TRUE(schema.ok());
    arrow::IpcDecoder decoder;
    ASSERT_TRUE(decoder.Decode(arrow::EncodeSchemaMessage(**schema).metadata, nullptr).ok());
    std::vector<std::string> from_messages;
    s = node_.tables()->ReadMessages(request, [&](arrow::IpcMessage message) {
      auto batch =
          decoder.Decode(message.metadata, arrow::Buffer::FromString(std::move(message.body)));
      EXPECT_TRUE(batch.ok()) << batch.status();
      if (!batch.ok()) return false;
      const auto& b = batch->batch;
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        from_messages.push_back(std::to_string(b->Column(0)->buffers[1]->data_as<int64_t>()[i]) +
                                "," +
                                std::to_string(b->Column(1)->buffers[1]->data_as<int32_t>()[i]));
      }
      return true;
    });
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(from_messages, decoded);
  }
}

}  // namespace
}  // namespace mink::query
