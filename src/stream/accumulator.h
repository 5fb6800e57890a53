#pragma once
// Accumulator: the running state of one aggregate of one group (and window) of a continuous
// query: COUNT(*), COUNT(x), SUM, MIN, MAX, AVG, COUNT(DISTINCT x). Each takes rows with a
// weight, +1 for a row added and -1 for one retracted (a changelog's update-before or delete), and
// stays exact under retractions: counts and integer sums are counted back, MIN, MAX and COUNT
// DISTINCT keep an ordered multiset of the values, so retracting the current maximum gives the
// next one. Sessions that merge merge their accumulators.
//
// Not thread-safe; one operator owns it.

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/result.h"
#include "stream/scalar.h"

namespace mink::stream {

enum class AggregateKind { kCountRows, kCount, kSum, kMin, kMax, kAvg, kCountDistinct };

// "COUNT", "SUM", ..., "COUNT DISTINCT" (COUNT(*) is "COUNT").
std::string AggregateName(AggregateKind kind);

// The aggregate a call names (`count`, `sum`, `min`, `max`, `avg`, case-insensitive; `star`:
// COUNT(*); `distinct`: COUNT(DISTINCT x)); InvalidArgument naming it otherwise.
Result<AggregateKind> AggregateKindOf(std::string_view function, bool star, bool distinct);

class Accumulator {
 public:
  explicit Accumulator(AggregateKind kind = AggregateKind::kCountRows) : kind_(kind) {}

  // Adds `value` with `weight` (+1 added, -1 retracted). Retracting a value the accumulator does
  // not hold is FailedPrecondition (an input changelog out of order), and changes nothing.
  Status Add(const Scalar& value, int64_t weight);
  // Adds everything `other` (of the same kind) holds.
  void Merge(const Accumulator& other);

  // The aggregate's value: COUNT an integer; SUM an integer over integers, a decimal (at the
  // largest scale added) once a decimal was added, a double once a double was (null without
  // values); AVG a double or null; MIN, MAX the value or null.
  Scalar Value() const;
  // Rows it holds (added minus retracted, nulls included).
  int64_t rows() const { return rows_; }

  // Checkpoint bytes (docs/formats/continuous-state.md).
  void Encode(std::string* out) const;
  // An accumulator of `kind` from `in`, written by checkpoint `version`; false when the bytes
  // are not one.
  static bool Decode(ByteReader* in, AggregateKind kind, uint8_t version, Accumulator* out);

 private:
  // Keeps int_sum_ at `scale` places when that is more than it has.
  void RaiseScale(int scale);
  // The integers' and decimals' sum, as a decimal.
  Scalar ExactSum() const { return Scalar::Decimal(int_sum_, std::max(sum_scale_, 0)); }

  AggregateKind kind_;
  int64_t rows_ = 0;
  int64_t count_ = 0;  // non-null values
  __int128 int_sum_ = 0;  // integers and decimals, unscaled at sum_scale_ (0 while it is -1)
  int sum_scale_ = -1;    // -1: no decimal added yet
  double double_sum_ = 0;
  int64_t doubles_ = 0;  // non-null double values among them
  std::map<Scalar, int64_t> values_;  // MIN, MAX, COUNT DISTINCT: value -> how many
};

}  // namespace mink::stream
