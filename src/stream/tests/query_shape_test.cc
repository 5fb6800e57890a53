// The shape of continuous queries as DuckDB parses them: the seed's two queries, the per-batch
// query run over rows, and what a continuous query cannot do.
#include "stream/query_shape.h"

#include <gtest/gtest.h>

namespace mink::stream {
namespace {

class QueryShapeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = sql::Database::Open();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
    auto session = db_->Connect();
    ASSERT_TRUE(session.ok());
    session_ = std::move(*session);
  }
  Result<QueryShape> Shape(const std::string& query) { return ShapeOf(*session_, query); }
  std::string Error(const std::string& query) {
    auto shape = Shape(query);
    return shape.ok() ? "no error" : shape.status().message();
  }
  // The rows of `sql` as text, one line each, columns separated by '|'.
  std::string Rows(const std::string& sql) {
    auto batches = session_->Collect("SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (" + sql + ")");
    if (!batches.ok()) return batches.status().ToString();
    std::string out;
    for (const auto& b : *batches) {
      for (int64_t r = 0; r < b->num_rows(); ++r) {
        for (int c = 0; c < b->num_columns(); ++c) {
          const auto& col = b->Column(c);
          const bool valid = col->buffers[0] == nullptr || (col->buffers[0]->data()[r / 8] >> (r % 8)) & 1;
          const int32_t* off = col->buffers[1]->data_as<int32_t>();
          out += (c ? "|" : "") + (valid ? std::string(col->buffers[2]->data_as<char>() + off[r],
                                                       static_cast<size_t>(off[r + 1] - off[r]))
                                         : std::string("NULL"));
        }
        out += "\n";
      }
    }
    return out;
  }

  std::unique_ptr<sql::Database> db_;
  std::unique_ptr<sql::Session> session_;
};

TEST_F(QueryShapeTest, TheSeedsMinuteVolume) {
  auto shape = Shape(R"sql(SELECT symbol,
           tumble(ts, INTERVAL '1' MINUTE) AS minute,
           SUM(volume) AS volume,
           MAX(price) AS high
    FROM trades
    GROUP BY symbol, tumble(ts, INTERVAL '1' MINUTE))sql");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->source, "trades");
  EXPECT_EQ(shape->keys, std::vector<std::string>{"symbol"});
  ASSERT_TRUE(shape->window.has_value());
  EXPECT_EQ(shape->window->kind, WindowKind::kTumble);
  EXPECT_EQ(shape->window->size, 60'000'000);
  EXPECT_EQ(shape->aggregates, (std::vector<AggregateKind>{AggregateKind::kSum, AggregateKind::kMax}));
  EXPECT_EQ(shape->arguments, (std::vector<std::string>{"volume", "price"}));
  ASSERT_EQ(shape->outputs.size(), 4u);
  EXPECT_EQ(shape->outputs[0].name, "symbol");
  EXPECT_EQ(shape->outputs[0].kind, ShapeOutput::Kind::kKey);
  EXPECT_EQ(shape->outputs[1].name, "minute");
  EXPECT_EQ(shape->outputs[1].kind, ShapeOutput::Kind::kWindowStart);
  EXPECT_EQ(shape->outputs[2].name, "volume");
  EXPECT_EQ(shape->outputs[2].kind, ShapeOutput::Kind::kAggregate);
  EXPECT_EQ(shape->outputs[3].index, 1);

  // The per-batch query over rows of the source: keys, microseconds of event time, arguments.
  ASSERT_TRUE(session_->Run("CREATE TABLE trades AS SELECT * FROM (VALUES "
                            "('AAPL', 189.5, 100, TIMESTAMP '2026-10-18 09:30:05'), "
                            "('MSFT', 411.2, 30, TIMESTAMP '2026-10-18 09:30:41')) t(symbol, price, volume, ts)")
                  .ok());
  EXPECT_EQ(Rows(shape->batch_sql), "AAPL|1792315805000000|100|189.5\nMSFT|1792315841000000|30|411.2\n")
      << shape->batch_sql;
}

TEST_F(QueryShapeTest, TheSeedsTickTotals) {
  auto shape = Shape("SELECT COUNT(*) AS rows_seen, MAX(seq) AS last_seq FROM ticks");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_TRUE(shape->aggregated());
  EXPECT_TRUE(shape->keys.empty());
  EXPECT_FALSE(shape->window.has_value());
  EXPECT_EQ(shape->aggregates, (std::vector<AggregateKind>{AggregateKind::kCountRows, AggregateKind::kMax}));
  EXPECT_EQ(shape->arguments, (std::vector<std::string>{"", "seq"}));
  ASSERT_TRUE(session_->Run("CREATE TABLE ticks AS SELECT range AS seq FROM range(3)").ok());
  EXPECT_EQ(Rows(shape->batch_sql), "NULL|0\nNULL|1\nNULL|2\n") << shape->batch_sql;
}

TEST_F(QueryShapeTest, FiltersPositionsAndOtherWindows) {
  ASSERT_TRUE(session_->Run("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a', 10, TIMESTAMP '2026-01-01 00:00:01'), "
                            "(2, 'b', 20, TIMESTAMP '2026-01-01 00:00:02')) v(id, k, x, ts)")
                  .ok());
  auto shape = Shape("SELECT upper(k) AS key, hop(ts, INTERVAL 10 SECONDS, INTERVAL '1' MINUTE), "
                     "COUNT(DISTINCT x + 1), avg(x) FROM t WHERE x > 15 GROUP BY 1, 2");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->keys, std::vector<std::string>{"upper(k)"});
  EXPECT_EQ(shape->window->kind, WindowKind::kHop);
  EXPECT_EQ(shape->window->slide, 10'000'000);
  EXPECT_EQ(shape->window->size, 60'000'000);
  EXPECT_EQ(shape->aggregates, (std::vector<AggregateKind>{AggregateKind::kCountDistinct, AggregateKind::kAvg}));
  EXPECT_EQ(shape->outputs[0].kind, ShapeOutput::Kind::kKey);
  EXPECT_EQ(shape->outputs[1].kind, ShapeOutput::Kind::kWindowStart);
  EXPECT_EQ(Rows(shape->batch_sql), "B|1767225602000000|21|20\n") << "the WHERE is kept: " << shape->batch_sql;

  auto session = Shape("SELECT k, session(ts, INTERVAL '30' SECOND), SUM(x) FROM t GROUP BY k, session(ts, "
                       "INTERVAL '30' SECOND)");
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ(session->window->kind, WindowKind::kSession);
  EXPECT_EQ(session->window->gap, 30'000'000);

  auto distinct_keys = Shape("SELECT k FROM t GROUP BY k");
  ASSERT_TRUE(distinct_keys.ok()) << distinct_keys.status();
  EXPECT_TRUE(distinct_keys->aggregated()) << "GROUP BY without aggregates keeps one row per key";
  EXPECT_EQ(distinct_keys->keys, std::vector<std::string>{"k"});

  auto projection = Shape("SELECT id, x * 2 AS double_x FROM t WHERE k = 'a'");
  ASSERT_TRUE(projection.ok()) << projection.status();
  EXPECT_FALSE(projection->aggregated());
  EXPECT_EQ(Rows(projection->batch_sql), "1|20\n");
}

TEST_F(QueryShapeTest, WhatAContinuousQueryCannotDo) {
  EXPECT_EQ(Error("SELECT k, x, SUM(x) FROM t GROUP BY k"),
            "column 2 (x) of the select list is neither a group key, the window nor an aggregate");
  EXPECT_EQ(Error("SELECT k, SUM(x) FROM t GROUP BY k ORDER BY k"),
            "ORDER BY, LIMIT and DISTINCT have no end on a stream: not in a continuous query");
  EXPECT_EQ(Error("SELECT a.k FROM t a JOIN u b ON a.k = b.k"),
            "a join is an interval join of two sources or streams (ON ... AND b.ts BETWEEN a.ts - INTERVAL ... AND "
            "a.ts + INTERVAL ...) or a temporal join of a table (JOIN db.t FOR SYSTEM_TIME AS OF s.ts AS t ON ...)");
  EXPECT_EQ(Error("SELECT k, median(x) FROM t GROUP BY k"),
            "aggregate median is not supported in a continuous query (COUNT, SUM, MIN, MAX, AVG, COUNT DISTINCT)");
  EXPECT_EQ(Error("SELECT SUM(x) FROM t GROUP BY hop(ts, INTERVAL 2 MINUTE, INTERVAL 1 MINUTE)"),
            "a hopping window's slide is larger than its size");
  EXPECT_NE(Error("SELECT SUM(x) FROM t GROUP BY tumble(ts, x)").find("is not a constant interval"),
            std::string::npos);
  EXPECT_NE(Error("SELEKT 1").find("syntax error"), std::string::npos) << Error("SELEKT 1");
}

}  // namespace
}  // namespace mink::stream
