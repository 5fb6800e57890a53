#pragma once
// Scalar: one value of a continuous query's group key or aggregate input, as the per-batch
// DuckDB query hands it over: null, a 64-bit integer (integers, and timestamps as their scaled
// integers), a decimal (a 128-bit unscaled integer and its scale, kept exact), a double, or a
// string. Ordered (null first, then numbers by value, integers and decimals exactly, then
// strings), so MIN, MAX and COUNT DISTINCT keep them in ordered multisets.

#include <compare>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "arrow_format/array_data.h"
#include "arrow_format/record_batch.h"
#include "base/bytes.h"
#include "base/result.h"

namespace mink::stream {

class Scalar {
 public:
  Scalar() = default;  // null
  static Scalar Int(int64_t v) { return Scalar(v); }
  static Scalar Double(double v) { return Scalar(v); }
  static Scalar String(std::string v) { return Scalar(std::move(v)); }
  // unscaled × 10^-scale.
  static Scalar Decimal(__int128 unscaled, int scale) {
    const auto bits = static_cast<unsigned __int128>(unscaled);
    return Scalar(DecimalValue{static_cast<uint64_t>(bits), static_cast<uint64_t>(bits >> 64), scale});
  }

  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_int() const { return std::holds_alternative<int64_t>(v_); }
  bool is_double() const { return std::holds_alternative<double>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_decimal() const { return std::holds_alternative<DecimalValue>(v_); }
  int64_t int_value() const { return std::get<int64_t>(v_); }
  double double_value() const { return std::get<double>(v_); }
  const std::string& string_value() const { return std::get<std::string>(v_); }
  __int128 decimal_unscaled() const {
    const DecimalValue& d = std::get<DecimalValue>(v_);
    return static_cast<__int128>((static_cast<unsigned __int128>(d.high) << 64) | d.low);
  }
  int decimal_scale() const { return std::get<DecimalValue>(v_).scale; }
  // A number as a double (rounded when it is a decimal or a large integer).
  double AsDouble() const;
  // An integer or a decimal as an unscaled integer at `scale` (rounded half away from zero when
  // `scale` is smaller than the decimal's); false when it does not fit 128 bits or is neither.
  bool UnscaledAt(int scale, __int128* out) const;

  std::partial_ordering operator<=>(const Scalar& other) const;
  bool operator==(const Scalar& other) const { return (*this <=> other) == 0; }

  std::string ToString() const;  // "null", "42", "1.5", "'text'"; a decimal with its scale's places

  // Checkpoint bytes (docs/formats/continuous-state.md): a tag (0 null, 1 integer, 2 double,
  // 3 string, 4 decimal), then an int64, a double's bits, a u32 length and the bytes, or the
  // unscaled 128 bits (low, high) and the scale as a u8.
  void Encode(std::string* out) const;
  static bool Decode(ByteReader* in, Scalar* out);

 private:
  explicit Scalar(int64_t v) : v_(v) {}
  explicit Scalar(double v) : v_(v) {}
  explicit Scalar(std::string v) : v_(std::move(v)) {}
  // Two halves rather than an __int128, whose 16-byte alignment would make every Scalar larger.
  struct DecimalValue {
    uint64_t low;
    uint64_t high;
    int scale;
  };
  explicit Scalar(DecimalValue v) : v_(v) {}

  std::variant<std::monostate, int64_t, double, std::string, DecimalValue> v_;
};

// The values of an Arrow column as Scalars: integers, dates, times and timestamps as integers
// (a timestamp in its unit), decimals as decimals, floats as doubles, strings and binaries as strings,
// booleans as 0 or 1. Other types are InvalidArgument.
Result<std::vector<Scalar>> ScalarsOf(const arrow::ArrayDataPtr& column);

// The rows of a batch as Scalars (ScalarsOf of each column).
Result<std::vector<std::vector<Scalar>>> RowsOf(const arrow::RecordBatch& batch);

}  // namespace mink::stream
