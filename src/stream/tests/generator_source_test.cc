// The GENERATOR source: rows at the configured rate, due by their ts, the same rows from any
// position (so it replays from a checkpoint), and clear errors for bad options.
#include "stream/generator_source.h"

#include <gtest/gtest.h>

#include "stream/continuous_query.h"

namespace mink::stream {
namespace {

std::vector<int64_t> Column(const arrow::RecordBatchPtr& b, int c) {
  std::vector<int64_t> out;
  auto values = ScalarsOf(b->Column(c));
  EXPECT_TRUE(values.ok()) << values.status();
  if (values.ok()) {
    for (const auto& s : *values) out.push_back(s.int_value());
  }
  return out;
}

TEST(GeneratorSource, RowsAreDueAtTheRateAndReplayTheSame) {
  auto g = GeneratorSource::Make({{"rows.per.second", "10"}}, 1'000'000);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(GeneratorSource::Schema()->ToString(), "seq: int64 not null\nts: timestamp[us] not null\nvalue: double not null");
  EXPECT_EQ(*g->Poll(999'999, 100), nullptr) << "nothing due before the start";
  auto first = g->Poll(1'000'250, 100);
  ASSERT_TRUE(first.ok() && *first != nullptr);
  EXPECT_EQ(Column(*first, 0), (std::vector<int64_t>{0, 1, 2}));  // due at +0, +100, +200 ms
  EXPECT_EQ(Column(*first, 1), (std::vector<int64_t>{1'000'000'000, 1'000'100'000, 1'000'200'000}));
  auto capped = g->Poll(1'010'000, 5);
  EXPECT_EQ(Column(*capped, 0), (std::vector<int64_t>{3, 4, 5, 6, 7})) << "at most max_rows";
  EXPECT_EQ(g->position(), 8);

  // From a position again: the same rows, values included.
  auto again = GeneratorSource::Make({{"ROWS.PER.SECOND", "10"}}, 1'000'000);
  again->Seek(3);
  auto replay = again->Poll(1'010'000, 5);
  ASSERT_TRUE(replay.ok() && *replay != nullptr);
  EXPECT_TRUE((*replay)->Equals(**capped));
}

TEST(GeneratorSource, BadOptionsAreNamed) {
  EXPECT_EQ(GeneratorSource::Make({{"rows.per.second", "0"}}, 0).status().message(),
            "GENERATOR's rows.per.second is '0', not a number in 1-10000000");
  EXPECT_EQ(GeneratorSource::Make({{"rows.per.second", "10x"}}, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(GeneratorSource::Make({{"topic", "t"}}, 0).status().message(),
            "GENERATOR has no option 'topic' (it takes rows.per.second)");
  EXPECT_EQ(GeneratorSource::Make({}, 0)->rows_per_second(), 1);
}

// The seed's quick start, run over the generator's rows: the view counts the rows and keeps the
// highest seq.
TEST(GeneratorSource, TheQuickStartsViewOverItsRows) {
  auto db = sql::Database::Open();
  ASSERT_TRUE(db.ok());
  auto view = ContinuousQuery::Make(db->get(), "SELECT COUNT(*) AS rows_seen, MAX(seq) AS last_seq FROM ticks");
  ASSERT_TRUE(view.ok()) << view.status();
  auto ticks = GeneratorSource::Make({{"rows.per.second", "10"}}, 0);
  for (int64_t now = 500; now <= 4500; now += 1000) {
    auto batch = ticks->Poll(now, 1000);
    ASSERT_TRUE(batch.ok() && *batch != nullptr);
    ASSERT_TRUE((*view)->Add(*batch).ok());
  }
  auto changes = (*view)->TakeChanges();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(*changes[0].after, (Row{Scalar::Int(46), Scalar::Int(45)})) << "rows 0..45 are due by 4.5 s";
  EXPECT_EQ((*view)->columns(), (std::vector<std::string>{"rows_seen", "last_seq"}));
}

}  // namespace
}  // namespace mink::stream
