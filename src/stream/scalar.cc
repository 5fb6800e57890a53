#include "stream/scalar.h"

#include <cstdio>
#include <cstring>

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

void Scalar::Encode(std::string* out) const {
  if (is_null()) {
    PutU8(out, 0);
  } else if (is_int()) {
    PutU8(out, 1);
    PutI64(out, int_value());
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
    default: return false;
  }
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
