#include "table/table_stats.h"

#include <gtest/gtest.h>

#include "table_test_node.h"

namespace mink::table {
namespace {

// shop.metrics: a log table of two buckets keyed by id (native bucketing: id 1 in b0, id 300 in
// b1) with integer-valued columns of several widths and a string column.
class TableStatsTest : public testing::RoomsTest {
 protected:
  void SetUp() override {
    RoomsTest::SetUp();
    TableSpec metrics;
    metrics.columns = {"id BIGINT NOT NULL", "n INT", "note STRING", "day DATE", "t SMALLINT"};
    metrics.bucket_key = {"id"};
    metrics.bucket_count = 2;
    MustCreate("shop.metrics", metrics);
  }

  static Value I(int64_t v) { return Value::Int(v); }
  static Row M(int64_t id, Value n, Value note, Value day, Value t) {
    return {I(id), std::move(n), std::move(note), std::move(day), std::move(t)};
  }
  // Each bucket as "b<n> rows=<rows> end=<end> <column>:<nulls>:<min>..<max> ...", a column with
  // no value as <column>:<nulls>:-.
  static std::vector<std::string> Render(const Result<std::vector<BucketColumnStats>>& stats) {
    EXPECT_TRUE(stats.ok()) << stats.status();
    std::vector<std::string> out;
    if (!stats.ok()) return out;
    for (const auto& b : *stats) {
      std::string line = (b.partition ? *b.partition + "/" : std::string()) + "b" +
                         std::to_string(b.bucket) + " rows=" + std::to_string(b.rows) +
                         " end=" + std::to_string(b.end);
      for (const auto& c : b.columns) {
        line += " " + c.column + ":" + std::to_string(c.null_count) + ":" +
                (c.has_values ? std::to_string(c.min) + ".." + std::to_string(c.max) : "-");
      }
      out.push_back(line);
    }
    return out;
  }
  std::vector<std::string> Stats(const std::string& table) {
    return Render(rooms_->stats.ColumnStats(table));
  }
};

TEST_F(TableStatsTest, TheColumnStatsOfALogTableGrowWithLaterWrites) {
  rooms_->MustWrite("shop.metrics", {M(1, I(10), Value::Bytes("a"), Value(), I(7)),
                                     M(1, Value(), Value::Bytes("b"), I(3), I(-2))});
  EXPECT_EQ(Stats("shop.metrics"),
            (std::vector<std::string>{"b0 rows=2 end=2 id:0:1..1 n:1:10..10 day:1:3..3 t:0:-2..7",
                                      "b1 rows=0 end=0 id:0:- n:0:- day:0:- t:0:-"}));
  rooms_->MustWrite("shop.metrics", {M(1, I(-4), Value(), I(2), I(100)),
                                     M(300, I(5), Value::Bytes("c"), Value(), Value())});
  const std::vector<std::string> grown = {
      "b0 rows=3 end=3 id:0:1..1 n:1:-4..10 day:1:2..3 t:0:-2..100",
      "b1 rows=1 end=1 id:0:300..300 n:0:5..5 day:1:- t:1:-"};
  EXPECT_EQ(Stats("shop.metrics"), grown);
  // Extending the cached ranges gives what computing them afresh gives.
  ColumnStatsCache fresh(node_->meta.get(), node_->storage.get(), &rooms_->catalog);
  EXPECT_EQ(Render(fresh.ColumnStats("shop.metrics")), grown);
  // Rows trimmed away keep counting: the ranges stay conservative.
  ASSERT_TRUE(node_->storage->Trim(*rooms_->catalog.BucketStream("shop.metrics", 0), 2).ok());
  EXPECT_EQ(Stats("shop.metrics"), grown);
}

TEST_F(TableStatsTest, ThePartitionsOfATableHaveStatsOfTheirOwn) {
  TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "region STRING"};
  spec.partition_by = {"region"};
  MustCreate("shop.visits", spec);
  auto row = [](int64_t id, const char* region) {
    return Row{Value::Int(id), Value::Bytes(region)};
  };
  rooms_->MustWrite("shop.visits", {row(5, "us"), row(9, "us")});
  rooms_->MustWrite("shop.visits", {row(-3, "eu")});
  EXPECT_EQ(Stats("shop.visits"), (std::vector<std::string>{"eu/b0 rows=1 end=1 id:0:-3..-3",
                                                            "us/b0 rows=2 end=2 id:0:5..9"}));
}

TEST_F(TableStatsTest, ColumnStatsAreRefusedForAPrimaryKeyTable) {
  TableSpec kv;
  kv.columns = {"id BIGINT NOT NULL", "n INT"};
  kv.primary_key = {"id"};
  MustCreate("shop.kv", kv);
  rooms_->MustWrite("shop.kv", {{Value::Int(1), Value::Int(2)}});
  auto refused = rooms_->stats.ColumnStats("shop.kv");
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find("shop.kv has a primary key"), std::string::npos)
      << refused.status();
  EXPECT_EQ(rooms_->stats.ColumnStats("shop.nope").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace mink::table
