#pragma once
// Value: one field of a row, as the table layer's merge engines, key encoders and KV state see
// it. Representation by logical type:
//   BOOLEAN -> kBool; TINYINT..BIGINT, DATE (days), TIME and TIMESTAMP(_LTZ) (integers in the
//   unit of the type's precision) -> kInt; FLOAT, DOUBLE -> kDouble; DECIMAL -> kDecimal (the
//   unscaled integer; the scale is the type's); STRING (UTF-8), BYTES -> kBytes;
//   ARRAY (elements), ROW (fields), MAP (key, value, key, value, ...) -> kList.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mink::table {

using int128 = __int128;

class Value {
 public:
  enum class Kind : uint8_t { kNull, kBool, kInt, kDouble, kDecimal, kBytes, kList };

  Value() = default;
  static Value Bool(bool v) { Value x(Kind::kBool); x.i_ = v; return x; }
  static Value Int(int64_t v) { Value x(Kind::kInt); x.i_ = v; return x; }
  static Value Double(double v) { Value x(Kind::kDouble); x.d_ = v; return x; }
  static Value Decimal(int128 unscaled) { Value x(Kind::kDecimal); x.i_ = unscaled; return x; }
  static Value Bytes(std::string v) { Value x(Kind::kBytes); x.s_ = std::move(v); return x; }
  static Value List(std::vector<Value> v) { Value x(Kind::kList); x.list_ = std::move(v); return x; }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool bool_value() const { return i_ != 0; }
  int64_t int_value() const { return static_cast<int64_t>(i_); }
  double double_value() const { return d_; }
  int128 decimal_value() const { return i_; }
  const std::string& bytes() const { return s_; }
  const std::vector<Value>& list() const { return list_; }

  bool operator==(const Value& o) const {
    return kind_ == o.kind_ && i_ == o.i_ && (kind_ != Kind::kDouble || d_ == o.d_) &&
           s_ == o.s_ && list_ == o.list_;
  }

 private:
  explicit Value(Kind kind) : kind_(kind) {}
  Kind kind_ = Kind::kNull;
  int128 i_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<Value> list_;
};

using Row = std::vector<Value>;

}  // namespace mink::table
