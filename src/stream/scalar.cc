#include "stream/scalar.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "arrow_format/array.h"

namespace mink::stream {

namespace {

// Null first, then numbers, then strings.
int Rank(const Scalar& s) { return s.is_null() ? 0 : s.is_string() ? 2 : 1; }

constexpr int kMaxScale = 38;
constexpr __int128 kInt128Max = static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 1);

__int128 Pow10(int exponent) {
  __int128 p = 1;
  for (int i = 0; i < exponent; ++i) p *= 10;
  return p;
}

bool Exact(const Scalar& s) { return s.is_int() || s.is_decimal(); }
int ScaleOf(const Scalar& s) { return s.is_decimal() ? s.decimal_scale() : 0; }

}  // namespace

double Scalar::AsDouble() const {
  if (is_int()) return static_cast<double>(int_value());
  if (is_decimal()) {
    return static_cast<double>(static_cast<long double>(decimal_unscaled()) /
                               static_cast<long double>(Pow10(decimal_scale())));
  }
  return double_value();
}

bool Scalar::UnscaledAt(int scale, __int128* out) const {
  if (!Exact(*this) || scale < 0 || scale > kMaxScale) return false;
  const __int128 v = is_int() ? int_value() : decimal_unscaled();
  const int from = ScaleOf(*this);
  if (scale >= from) {
    const __int128 factor = Pow10(scale - from);
    if (v > kInt128Max / factor || v < -(kInt128Max / factor)) return false;
    *out = v * factor;
    return true;
  }
  const __int128 factor = Pow10(from - scale);
  __int128 q = v / factor;
  const __int128 r = v % factor;
  if (2 * (r < 0 ? -r : r) >= factor) q += v < 0 ? -1 : 1;
  *out = q;
  return true;
}

std::partial_ordering Scalar::operator<=>(const Scalar& other) const {
  const int a = Rank(*this), b = Rank(other);
  if (a != b) return a <=> b;
  if (a == 0) return std::partial_ordering::equivalent;
  if (a == 2) return string_value() <=> other.string_value();
  if (is_int() && other.is_int()) return int_value() <=> other.int_value();
  if (Exact(*this) && Exact(other)) {
    const int scale = std::max(ScaleOf(*this), ScaleOf(other));
    __int128 x = 0, y = 0;
    if (UnscaledAt(scale, &x) && other.UnscaledAt(scale, &y)) return x <=> y;
  }
  return AsDouble() <=> other.AsDouble();
}

void Scalar::Encode(std::string* out) const {
  if (is_null()) {
    PutU8(out, 0);
  } else if (is_int()) {
    PutU8(out, 1);
    PutI64(out, int_value());
  } else if (is_decimal()) {
    PutU8(out, 4);
    const auto bits = static_cast<unsigned __int128>(decimal_unscaled());
    PutU64(out, static_cast<uint64_t>(bits));
    PutU64(out, static_cast<uint64_t>(bits >> 64));
    PutU8(out, static_cast<uint8_t>(decimal_scale()));
  } else if (is_double()) {
    PutU8(out, 2);
    uint64_t bits;
    const double d = double_value();
    std::memcpy(&bits, &d, 8);
    PutU64(out, bits);
  } else {
    PutU8(out, 3);
    PutU32(out, static_cast<uint32_t>(string_value().size()));
    out->append(string_value());
  }
}

bool Scalar::Decode(ByteReader* in, Scalar* out) {
  uint8_t tag = 0;
  if (!in->ReadU8(&tag)) return false;
  switch (tag) {
    case 0: *out = Scalar(); return true;
    case 1: {
      int64_t v;
      if (!in->ReadI64(&v)) return false;
      *out = Int(v);
      return true;
    }
    case 2: {
      uint64_t bits;
      if (!in->ReadU64(&bits)) return false;
      double d;
      std::memcpy(&d, &bits, 8);
      *out = Double(d);
      return true;
    }
    case 3: {
      uint32_t n;
      std::string_view bytes;
      if (!in->ReadU32(&n) || !in->ReadBytes(n, &bytes)) return false;
      *out = String(std::string(bytes));
      return true;
    }
    case 4: {
      uint64_t low, high;
      uint8_t scale;
      if (!in->ReadU64(&low) || !in->ReadU64(&high) || !in->ReadU8(&scale) || scale > kMaxScale) return false;
      *out = Decimal(static_cast<__int128>((static_cast<unsigned __int128>(high) << 64) | low), scale);
      return true;
    }
    default: return false;
  }
}

std::string Scalar::ToString() const {
  if (is_null()) return "null";
  if (is_int()) return std::to_string(int_value());
  if (is_string()) return "'" + string_value() + "'";
  if (is_decimal()) return arrow::FormatDecimal(decimal_unscaled(), decimal_scale());
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", double_value());
  return buf;
}

namespace {

template <typename A, typename F>
std::vector<Scalar> Convert(const arrow::ArrayDataPtr& column, F value) {
  const A array(column);
  std::vector<Scalar> out;
  out.reserve(static_cast<size_t>(array.length()));
  for (int64_t i = 0; i < array.length(); ++i) out.push_back(array.IsNull(i) ? Scalar() : value(array, i));
  return out;
}

template <typename T>
std::vector<Scalar> Integers(const arrow::ArrayDataPtr& column) {
  return Convert<arrow::NumericArray<T>>(column, [](const auto& a, int64_t i) {
    return Scalar::Int(static_cast<int64_t>(a.Value(i)));
  });
}

}  // namespace

Result<std::vector<Scalar>> ScalarsOf(const arrow::ArrayDataPtr& column) {
  using arrow::TypeId;
  switch (column->type->id()) {
    case TypeId::kNull: return std::vector<Scalar>(static_cast<size_t>(column->length));
    case TypeId::kBool:
      return Convert<arrow::BooleanArray>(column, [](const auto& a, int64_t i) { return Scalar::Int(a.Value(i)); });
    case TypeId::kInt8: return Integers<int8_t>(column);
    case TypeId::kInt16: return Integers<int16_t>(column);
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: return Integers<int32_t>(column);
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp: return Integers<int64_t>(column);
    case TypeId::kUInt8: return Integers<uint8_t>(column);
    case TypeId::kUInt16: return Integers<uint16_t>(column);
    case TypeId::kUInt32: return Integers<uint32_t>(column);
    case TypeId::kUInt64:
      return Convert<arrow::UInt64Array>(column, [](const auto& a, int64_t i) {
        const uint64_t v = a.Value(i);
        return v > static_cast<uint64_t>(INT64_MAX) ? Scalar::Double(static_cast<double>(v))
                                                    : Scalar::Int(static_cast<int64_t>(v));
      });
    case TypeId::kFloat32:
      return Convert<arrow::FloatArray>(column, [](const auto& a, int64_t i) { return Scalar::Double(a.Value(i)); });
    case TypeId::kFloat64:
      return Convert<arrow::DoubleArray>(column, [](const auto& a, int64_t i) { return Scalar::Double(a.Value(i)); });
    case TypeId::kDecimal128: {
      const int scale = column->type->scale();
      return Convert<arrow::Decimal128Array>(column, [scale](const auto& a, int64_t i) {
        return Scalar::Decimal(a.Value(i), scale);
      });
    }
    case TypeId::kUtf8:
    case TypeId::kBinary:
      return Convert<arrow::BinaryArray>(column, [](const auto& a, int64_t i) { return Scalar::String(a.GetString(i)); });
    default: break;
  }
  return InvalidArgumentError("a continuous query's keys and aggregate arguments cannot be " +
                              column->type->ToString());
}

Result<std::vector<std::vector<Scalar>>> RowsOf(const arrow::RecordBatch& batch) {
  std::vector<std::vector<Scalar>> columns;
  for (int c = 0; c < batch.num_columns(); ++c) {
    MINK_ASSIGN_OR_RETURN(auto column, ScalarsOf(batch.Column(c)));
    columns.push_back(std::move(column));
  }
  std::vector<std::vector<Scalar>> rows(static_cast<size_t>(batch.num_rows()));
  for (auto& row : rows) row.reserve(columns.size());
  for (auto& column : columns) {
    for (size_t i = 0; i < rows.size(); ++i) rows[i].push_back(std::move(column[i]));
  }
  return rows;
}

}  // namespace mink::stream
