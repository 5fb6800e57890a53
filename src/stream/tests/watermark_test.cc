// A source's watermark: the highest value of its declared expression over the rows seen, never
// moving back; an expression DuckDB cannot evaluate over the source is refused naming it.
#include "stream/watermark.h"

#include <gtest/gtest.h>

namespace mink::stream {
namespace {

class WatermarkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = sql::Database::Open();
    ASSERT_TRUE(db.ok());
    db_ = std::move(*db);
    auto session = db_->Connect();
    ASSERT_TRUE(session.ok());
    session_ = std::move(*session);
  }
  // A batch of trades at the given seconds after 2026-10-18 09:30:00 UTC.
  arrow::RecordBatchPtr Trades(const std::string& seconds) {
    auto b = session_->Collect("SELECT 'AAPL' AS symbol, TIMESTAMP '2026-10-18 09:30:00' + to_seconds(s) AS ts "
                               "FROM (VALUES " + seconds + ") v(s)");
    EXPECT_TRUE(b.ok()) << b.status();
    return b.ok() && !b->empty() ? b->front() : nullptr;
  }

  std::unique_ptr<sql::Database> db_;
  std::unique_ptr<sql::Session> session_;
};

TEST_F(WatermarkTest, BoundedOutOfOrdernessNeverMovesBack) {
  auto first = Trades("(5), (40)");
  auto w = SourceWatermark::Make(db_.get(), "trades", {"ts", "ts - INTERVAL '5' SECOND"}, first->schema());
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ((*w)->watermark(), INT64_MIN);
  const int64_t base = 1'792'315'800'000'000;  // 2026-10-18 09:30:00 in microseconds
  EXPECT_EQ(*(*w)->Observe(first), base + 35'000'000) << "09:30:40 less five seconds";
  EXPECT_EQ(*(*w)->Observe(Trades("(41), (10)")), base + 36'000'000);
  EXPECT_EQ(*(*w)->Observe(Trades("(20)")), base + 36'000'000) << "an older row does not move it back";
  // The seed's trades: the newest is 09:32:30, so the watermark is 09:32:25 and the 09:32 minute
  // stays open.
  EXPECT_EQ(*(*w)->Observe(Trades("(70), (150)")), base + 145'000'000);

  auto bare = SourceWatermark::Make(db_.get(), "trades", {"ts", ""}, first->schema());
  ASSERT_TRUE(bare.ok()) << bare.status();
  EXPECT_EQ(*(*bare)->Observe(first), base + 40'000'000) << "no delay: the column itself";
}

TEST_F(WatermarkTest, AnExpressionDuckDBCannotEvaluateIsRefused) {
  auto batch = Trades("(1)");
  auto w = SourceWatermark::Make(db_.get(), "trades", {"ts", "symbol - 5"}, batch->schema());
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(w.status().message().find("the watermark of source trades (symbol - 5)"), std::string::npos)
      << w.status();
}

}  // namespace
}  // namespace mink::stream
