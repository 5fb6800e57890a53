#include "stream/scalar.h"

#include <cstdio>

namespace mink::stream {

namespace {

// Null first, then numbers, then strings.
int Rank(const Scalar& s) { return s.is_null() ? 0 : s.is_string() ? 2 : 1; }

}  // namespace

std::partial_ordering Scalar::operator<=>(const Scalar& other) const {
  const int a = Rank(*this), b = Rank(other);
  if (a != b) return a <=> b;
  if (a == 0) return std::partial_ordering::equivalent;
  if (a == 2) return string_value() <=> other.string_value();
  if (is_int() && other.is_int()) return int_value() <=> other.int_value();
  return AsDouble() <=> other.AsDouble();
}

std::string Scalar::ToString() const {
  if (is_null()) return "null";
  if (is_int()) return std::to_string(int_value());
  if (is_string()) return "'" + string_value() + "'";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", double_value());
  return buf;
}

}  // namespace mink::stream
