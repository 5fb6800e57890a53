// The windowed aggregate: which windows a row falls in, when windows close, what late rows do,
// sessions merging, and aggregates that stay exact under retractions.
#include "stream/window_aggregate.h"

#include <gtest/gtest.h>

#include "stream/checkpoint_bytes.h"

namespace mink::stream {
namespace {

using Scalars = std::vector<Scalar>;

Scalars Key(const char* k) { return {Scalar::String(k)}; }

WindowResult Result(const char* key, int64_t start, int64_t end, Scalars values) {
  return {Key(key), {start, end}, std::move(values)};
}

std::string Show(const std::vector<WindowResult>& results) {
  std::string out;
  for (const auto& r : results) {
    out += r.key[0].ToString() + " [" + std::to_string(r.window.start) + "," + std::to_string(r.window.end) + ")";
    for (const auto& v : r.values) out += " " + v.ToString();
    out += "\n";
  }
  return out;
}

void Add(WindowAggregate* w, const char* key, int64_t t, Scalars inputs, int64_t weight = 1) {
  auto added = w->Add(Key(key), t, inputs, weight);
  ASSERT_TRUE(added.ok()) << added.status();
  ASSERT_TRUE(*added) << key << "@" << t << " was late";
}

TEST(WindowAggregate, WindowsOfARow) {
  EXPECT_EQ(WindowsOf(WindowSpec::Tumble(60), 125), (std::vector<Window>{{120, 180}}));
  EXPECT_EQ(WindowsOf(WindowSpec::Tumble(60), -1), (std::vector<Window>{{-60, 0}})) << "floor, not truncation";
  EXPECT_EQ(WindowsOf(WindowSpec::Tumble(60, 15), 10), (std::vector<Window>{{-45, 15}}));
  EXPECT_EQ(WindowsOf(WindowSpec::Hop(20, 60), 45), (std::vector<Window>{{0, 60}, {20, 80}, {40, 100}}));
  EXPECT_EQ(WindowsOf(WindowSpec::Hop(20, 60), 5), (std::vector<Window>{{-40, 20}, {-20, 40}, {0, 60}}));
  EXPECT_FALSE(WindowSpec::Hop(30, 20).Check().ok());
  EXPECT_FALSE(WindowSpec::Hop(25, 60).Check().ok());
  EXPECT_FALSE(WindowSpec::Tumble(0).Check().ok());
  EXPECT_FALSE(WindowSpec::Session(-1).Check().ok());
  EXPECT_TRUE(WindowSpec::Hop(20, 60).Check().ok());
}

// Tumbling windows close one by one as the watermark passes their ends, results by key.
TEST(WindowAggregate, TumblingWindowsCloseAtTheirEnd) {
  WindowAggregate w(WindowSpec::Tumble(1000), {AggregateKind::kSum, AggregateKind::kCountRows});
  Add(&w, "b", 150, {Scalar::Int(7), Scalar()});
  Add(&w, "a", 400, {Scalar::Int(5), Scalar()});
  Add(&w, "a", 999, {Scalar::Int(1), Scalar()});
  Add(&w, "a", 1000, {Scalar::Int(2), Scalar()});
  Add(&w, "c", 1700, {Scalar(), Scalar()});  // a null input: counted as a row, not summed
  EXPECT_TRUE(w.Advance(999).empty()) << "[0, 1000) is open until the watermark reaches 1000";
  EXPECT_EQ(Show(w.Advance(1000)), Show({Result("a", 0, 1000, {Scalar::Int(6), Scalar::Int(2)}),
                                         Result("b", 0, 1000, {Scalar::Int(7), Scalar::Int(1)})}));
  EXPECT_TRUE(w.Advance(900).empty()) << "the watermark does not go back";
  EXPECT_EQ(w.watermark(), 1000);
  EXPECT_EQ(Show(w.Advance(2500)), Show({Result("a", 1000, 2000, {Scalar::Int(2), Scalar::Int(1)}),
                                         Result("c", 1000, 2000, {Scalar(), Scalar::Int(1)})}));
  EXPECT_EQ(w.open_windows(), 0u);
}

// A row whose windows have all closed is dropped and counted; one with an open window is not.
TEST(WindowAggregate, LateRowsAreDroppedAndCounted) {
  WindowAggregate tumble(WindowSpec::Tumble(100), {AggregateKind::kCountRows});
  Add(&tumble, "a", 250, {Scalar()});
  tumble.Advance(200);
  auto late = tumble.Add(Key("a"), 199, {Scalar()});
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(*late);
  EXPECT_EQ(tumble.late_rows(), 1);
  Add(&tumble, "a", 200, {Scalar()});
  EXPECT_EQ(Show(tumble.Advance(300)), Show({Result("a", 200, 300, {Scalar::Int(2)})}));

  WindowAggregate hop(WindowSpec::Hop(50, 100), {AggregateKind::kCountRows});
  hop.Advance(100);
  Add(&hop, "a", 60, {Scalar()});  // [0, 100) closed, [50, 150) open: not late
  EXPECT_EQ(hop.late_rows(), 0);
  EXPECT_EQ(Show(hop.Advance(150)), Show({Result("a", 50, 150, {Scalar::Int(1)})}));
}

// Each row of a hopping window is in size / slide windows, those before 0 included.
TEST(WindowAggregate, HoppingWindowsOverlap) {
  WindowAggregate w(WindowSpec::Hop(2000, 4000), {AggregateKind::kSum});
  Add(&w, "x", 500, {Scalar::Int(3)});
  Add(&w, "x", 2500, {Scalar::Int(4)});
  Add(&w, "y", 700, {Scalar::Int(9)});
  EXPECT_EQ(Show(w.Advance(2000)), Show({Result("x", -2000, 2000, {Scalar::Int(3)}),
                                         Result("y", -2000, 2000, {Scalar::Int(9)})}));
  EXPECT_EQ(Show(w.Advance(4000)), Show({Result("x", 0, 4000, {Scalar::Int(7)}),
                                         Result("y", 0, 4000, {Scalar::Int(9)})}));
  EXPECT_EQ(Show(w.Advance(6000)), Show({Result("x", 2000, 6000, {Scalar::Int(4)})}));
}

// Rows closer than the gap share a session; a row between two sessions merges them.
TEST(WindowAggregate, SessionsGrowAndMerge) {
  WindowAggregate w(WindowSpec::Session(1000), {AggregateKind::kSum, AggregateKind::kMax});
  Add(&w, "k", 100, {Scalar::Int(1), Scalar::Int(1)});
  Add(&w, "k", 900, {Scalar::Int(2), Scalar::Int(2)});    // [100, 1900)
  Add(&w, "k", 2600, {Scalar::Int(4), Scalar::Int(4)});   // [2600, 3600)
  Add(&w, "j", 3200, {Scalar::Int(8), Scalar::Int(8)});   // another key: its own session
  EXPECT_EQ(w.open_windows(), 3u);
  Add(&w, "k", 2200, {Scalar::Int(32), Scalar::Int(0)});  // [2200, 3200): joins [2600, 3600) only
  EXPECT_EQ(w.open_windows(), 3u);
  Add(&w, "k", 1850, {Scalar::Int(16), Scalar::Int(3)});  // [1850, 2850) touches both: [100, 3600)
  EXPECT_EQ(w.open_windows(), 2u);
  EXPECT_TRUE(w.Advance(3599).empty());
  EXPECT_EQ(Show(w.Advance(3700)), Show({Result("k", 100, 3600, {Scalar::Int(55), Scalar::Int(4)})}));
  EXPECT_EQ(Show(w.Advance(5000)), Show({Result("j", 3200, 4200, {Scalar::Int(8), Scalar::Int(8)})}));

  // A row that would only extend a closed session is late.
  auto late = w.Add(Key("k"), 3500, {Scalar::Int(1), Scalar::Int(1)});
  ASSERT_TRUE(late.ok());
  EXPECT_FALSE(*late);
  EXPECT_EQ(w.late_rows(), 1);
  EXPECT_EQ(w.open_windows(), 0u);
}

// Retractions (a changelog's update-before and delete) keep every aggregate exact: the maximum
// falls back to the next value, counts and sums count back, a window emptied gives nothing.
TEST(WindowAggregate, RetractionsKeepAggregatesExact) {
  WindowAggregate w(WindowSpec::Tumble(100), {AggregateKind::kMax, AggregateKind::kMin, AggregateKind::kSum,
                                              AggregateKind::kCount, AggregateKind::kCountDistinct,
                                              AggregateKind::kAvg});
  auto row = [](int64_t v) { return Scalars(6, Scalar::Int(v)); };
  Add(&w, "a", 10, row(5));
  Add(&w, "a", 20, row(9));
  Add(&w, "a", 30, row(9));
  Add(&w, "a", 40, row(2));
  Add(&w, "a", 40, row(2), -1);  // retracts the 2
  Add(&w, "a", 20, row(9), -1);  // one of the two 9s
  Add(&w, "b", 50, row(1));
  Add(&w, "b", 50, row(1), -1);  // b's only row
  auto missing = w.Add(Key("a"), 60, row(77), -1);
  EXPECT_EQ(missing.status().code(), StatusCode::kFailedPrecondition) << "nothing of 77 to retract";
  auto no_window = w.Add(Key("z"), 60, row(1), -1);
  EXPECT_EQ(no_window.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Show(w.Advance(100)),
            Show({Result("a", 0, 100, {Scalar::Int(9), Scalar::Int(5), Scalar::Int(14), Scalar::Int(2), Scalar::Int(2),
                                       Scalar::Double(7.0)})}))
      << "b's window held no row any more";
}

// Checkpoint bytes restore the same state; damaged bytes or another query's are refused.
TEST(WindowAggregate, CheckpointsRestoreTheStateAndRefuseOthers) {
  const std::vector<AggregateKind> kinds{AggregateKind::kSum, AggregateKind::kCountDistinct};
  WindowAggregate w(WindowSpec::Session(100), kinds);
  Add(&w, "a", 10, {Scalar::Int(1), Scalar::String("x")});
  Add(&w, "b", 50, {Scalar::Double(2.5), Scalar::String("y")});
  w.Advance(20);
  const std::string bytes = w.Checkpoint();
  auto restored = WindowAggregate::Restore(bytes, WindowSpec::Session(100), kinds);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->watermark(), 20);
  Add(restored->get(), "a", 90, {Scalar::Int(4), Scalar::String("x")});  // extends a's session
  Add(&w, "a", 90, {Scalar::Int(4), Scalar::String("x")});
  EXPECT_EQ(Show((*restored)->Advance(1000)), Show(w.Advance(1000)));
  EXPECT_EQ(Show(WindowAggregate::Restore(bytes, WindowSpec::Session(100), kinds).value()->Advance(1000)),
            Show({Result("a", 10, 110, {Scalar::Int(1), Scalar::Int(1)}),
                  Result("b", 50, 150, {Scalar::Double(2.5), Scalar::Int(1)})}));

  std::string flipped = bytes;
  flipped[20] ^= 1;
  EXPECT_EQ(WindowAggregate::Restore(flipped, WindowSpec::Session(100), kinds).status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(WindowAggregate::Restore(bytes.substr(0, 30), WindowSpec::Session(100), kinds).status().code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(WindowAggregate::Restore("MKKA" + bytes.substr(4), WindowSpec::Session(100), kinds).status().code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(WindowAggregate::Restore(bytes, WindowSpec::Session(200), kinds).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(WindowAggregate::Restore(bytes, WindowSpec::Session(100), {AggregateKind::kSum}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(WindowAggregate, SumsOfDoublesAndTheirNulls) {
  Accumulator sum(AggregateKind::kSum);
  EXPECT_TRUE(sum.Value().is_null()) << "SUM of no values is null";
  ASSERT_TRUE(sum.Add(Scalar::Int(2), 1).ok());
  ASSERT_TRUE(sum.Add(Scalar::Double(0.5), 1).ok());
  EXPECT_EQ(sum.Value(), Scalar::Double(2.5));
  ASSERT_TRUE(sum.Add(Scalar::Double(0.5), -1).ok());
  EXPECT_EQ(sum.Value(), Scalar::Int(2)) << "the double retracted, the sum is an integer again";
  Accumulator big(AggregateKind::kSum);
  ASSERT_TRUE(big.Add(Scalar::Int(INT64_MAX), 1).ok());
  ASSERT_TRUE(big.Add(Scalar::Int(INT64_MAX), 1).ok());
  ASSERT_TRUE(big.Add(Scalar::Int(INT64_MAX), -1).ok());
  EXPECT_EQ(big.Value(), Scalar::Int(INT64_MAX)) << "no overflow on the way";
  EXPECT_EQ(AggregateKindOf("SUM", false, true).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(*AggregateKindOf("Count", true, false), AggregateKind::kCountRows);
  EXPECT_EQ(*AggregateKindOf("count", false, true), AggregateKind::kCountDistinct);
  EXPECT_NE(AggregateKindOf("median", false, false).status().message().find("median"), std::string::npos);
}

TEST(WindowAggregate, DecimalsStayExactThroughRetractionsAndCheckpoints) {
  // Ordered and compared exactly, across scales and against integers.
  EXPECT_EQ(Scalar::Decimal(150, 2), Scalar::Decimal(15, 1));
  EXPECT_EQ(Scalar::Decimal(300, 2), Scalar::Int(3));
  EXPECT_LT(Scalar::Decimal(-5, 2), Scalar::Int(0));
  EXPECT_LT(Scalar::Decimal(100000000000000001, 17), Scalar::Decimal(100000000000000002, 17))
      << "closer than a double can tell";
  EXPECT_EQ(Scalar::Decimal(-5, 2).ToString(), "-0.05");
  __int128 rounded = 0;
  ASSERT_TRUE(Scalar::Decimal(125, 2).UnscaledAt(1, &rounded));
  EXPECT_EQ(static_cast<int64_t>(rounded), 13) << "half away from zero";

  // 0.10 three times, one retracted, and 0.005 at a finer scale: exactly 0.205.
  Accumulator sum(AggregateKind::kSum), max(AggregateKind::kMax);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sum.Add(Scalar::Decimal(10, 2), 1).ok());
  ASSERT_TRUE(sum.Add(Scalar::Decimal(10, 2), -1).ok());
  ASSERT_TRUE(sum.Add(Scalar::Decimal(5, 3), 1).ok());
  EXPECT_EQ(sum.Value().ToString(), "0.205");
  ASSERT_TRUE(max.Add(Scalar::Decimal(1999, 2), 1).ok());
  ASSERT_TRUE(max.Add(Scalar::Decimal(2001, 2), 1).ok());
  ASSERT_TRUE(max.Add(Scalar::Decimal(2001, 2), -1).ok());
  EXPECT_EQ(max.Value().ToString(), "19.99");

  std::string bytes;
  sum.Encode(&bytes);
  max.Encode(&bytes);
  ByteReader in(bytes);
  Accumulator sum_back, max_back;
  ASSERT_TRUE(Accumulator::Decode(&in, AggregateKind::kSum, kCheckpointVersion, &sum_back));
  ASSERT_TRUE(Accumulator::Decode(&in, AggregateKind::kMax, kCheckpointVersion, &max_back));
  EXPECT_EQ(sum_back.Value().ToString(), "0.205");
  EXPECT_EQ(max_back.Value().ToString(), "19.99");
  Accumulator merged(AggregateKind::kSum);
  ASSERT_TRUE(merged.Add(Scalar::Int(2), 1).ok());
  merged.Merge(sum_back);
  EXPECT_EQ(merged.Value().ToString(), "2.205") << "an integer sum raised to the decimals' scale";

  // Version 1 wrote no decimal scale: its integer sum reads back as an integer sum.
  std::string v1;
  PutU8(&v1, static_cast<uint8_t>(AggregateKind::kSum));
  PutI64(&v1, 1);
  PutI64(&v1, 1);
  PutU64(&v1, 7);
  PutU64(&v1, 0);
  PutU64(&v1, 0);
  PutI64(&v1, 0);
  PutU32(&v1, 0);
  ByteReader old(v1);
  Accumulator from_v1;
  ASSERT_TRUE(Accumulator::Decode(&old, AggregateKind::kSum, 1, &from_v1));
  EXPECT_EQ(from_v1.Value(), Scalar::Int(7));
  EXPECT_TRUE(old.remaining() == 0);
}

}  // namespace
}  // namespace mink::stream
