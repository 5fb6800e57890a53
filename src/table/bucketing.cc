#include "table/bucketing.h"

#include <climits>
#include <cstring>

#include "base/bytes.h"
#include "table/row_codec.h"

namespace mink::table {
namespace {

constexpr uint32_t kC1 = 0xcc9e2d51, kC2 = 0x1b873593;

uint32_t Rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
uint32_t MixK1(uint32_t k) { return Rotl(k * kC1, 15) * kC2; }
uint32_t MixH1(uint32_t h, uint32_t k) { return Rotl(h ^ k, 13) * 5 + 0xe6546b64; }
uint32_t Fmix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

// Minimal big-endian two's complement bytes of an integer (as Java's BigInteger.toByteArray).
std::string MinimalBigEndian(int128 v) {
  std::string bytes;
  for (int i = 15; i >= 0; --i) bytes.push_back(static_cast<char>(static_cast<unsigned __int128>(v) >> (8 * i)));
  size_t start = 0;
  while (start + 1 < bytes.size()) {
    uint8_t b = static_cast<uint8_t>(bytes[start]);
    uint8_t next = static_cast<uint8_t>(bytes[start + 1]);
    if ((b == 0x00 && !(next & 0x80)) || (b == 0xFF && (next & 0x80))) {
      ++start;
    } else {
      break;
    }
  }
  return bytes.substr(start);
}

// Splits a TIME/TIMESTAMP value of the type's unit into epoch millis and nanos within the milli.
void SplitMillis(int64_t value, const LogicalType& t, int64_t* millis, int64_t* nanos_of_milli) {
  int64_t per_second = t.UnitsPerSecond();
  if (per_second <= 1000) {
    *millis = value * (1000 / per_second);
    *nanos_of_milli = 0;
    return;
  }
  int64_t per_milli = per_second / 1000;
  *millis = value / per_milli;
  int64_t rest = value % per_milli;
  if (rest < 0) {
    rest += per_milli;
    *millis -= 1;
  }
  *nanos_of_milli = rest * (1'000'000 / per_milli);
}

// FLOAT and DOUBLE keys: the IEEE bits, little-endian (Fluss and Iceberg alike).
void PutFloatBits(std::string* out, const Value& v) {
  float f = static_cast<float>(v.double_value());
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  PutU32(out, bits);
}

void PutDoubleBits(std::string* out, const Value& v) {
  double d = v.double_value();
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  PutU64(out, bits);
}

Status NullKey(size_t i) {
  return InvalidArgumentError("bucket key field " + std::to_string(i) + " is null");
}

}  // namespace

Result<BucketFunction> ParseBucketFunction(std::string_view name) {
  if (name == "native" || name == "fluss") return BucketFunction::kNative;
  if (name == "paimon") return BucketFunction::kPaimon;
  if (name == "iceberg") return BucketFunction::kIceberg;
  return InvalidArgumentError("unknown bucketing function '" + std::string(name) +
                              "' (native, paimon or iceberg)");
}

std::string_view BucketFunctionName(BucketFunction f) {
  switch (f) {
    case BucketFunction::kNative: return "native";
    case BucketFunction::kPaimon: return "paimon";
    case BucketFunction::kIceberg: return "iceberg";
  }
  return "native";
}

int32_t FlinkMurmur42(std::string_view bytes) {
  uint32_t h = 42;
  size_t words = bytes.size() / 4;
  for (size_t i = 0; i < words; ++i) h = MixH1(h, MixK1(LoadU32(bytes.data() + 4 * i)));
  for (size_t i = words * 4; i < bytes.size(); ++i) {
    // Each tail byte, sign-extended, takes a full round (unlike standard murmur3).
    h = MixH1(h, MixK1(static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(bytes[i])))));
  }
  h ^= static_cast<uint32_t>(bytes.size());
  return static_cast<int32_t>(Fmix(h));
}

int32_t Murmur3x86(std::string_view bytes, uint32_t seed) {
  uint32_t h = seed;
  size_t words = bytes.size() / 4;
  for (size_t i = 0; i < words; ++i) h = MixH1(h, MixK1(LoadU32(bytes.data() + 4 * i)));
  uint32_t k = 0;
  size_t tail = bytes.size() & 3;
  const auto* t = reinterpret_cast<const uint8_t*>(bytes.data() + words * 4);
  if (tail >= 3) k ^= static_cast<uint32_t>(t[2]) << 16;
  if (tail >= 2) k ^= static_cast<uint32_t>(t[1]) << 8;
  if (tail >= 1) {
    k ^= t[0];
    h ^= MixK1(k);
  }
  h ^= static_cast<uint32_t>(bytes.size());
  return static_cast<int32_t>(Fmix(h));
}

int32_t BucketOf(BucketFunction f, std::string_view key, int32_t n) {
  switch (f) {
    case BucketFunction::kNative: {
      int32_t key_hash = FlinkMurmur42(key);
      std::string le4;
      PutU32(&le4, static_cast<uint32_t>(key_hash));
      int32_t h = Murmur3x86(le4, 0);
      int32_t positive = h >= 0 ? h : (h == INT32_MIN ? 0 : -h);
      return positive % n;
    }
    case BucketFunction::kPaimon: {
      int32_t r = FlinkMurmur42(key) % n;  // truncating remainder, then abs
      return r < 0 ? -r : r;
    }
    case BucketFunction::kIceberg:
      return (Murmur3x86(key, 0) & 0x7FFFFFFF) % n;
  }
  return 0;
}

Result<std::string> EncodeCompactedKey(const std::vector<Value>& fields,
                                       const std::vector<LogicalType>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    const Value& v = fields[i];
    if (v.is_null()) return NullKey(i);
    const LogicalType& t = types[i];
    switch (t.kind) {
      case TypeKind::kBoolean:
      case TypeKind::kTinyInt:
        out.push_back(static_cast<char>(v.int_value()));
        break;
      case TypeKind::kSmallInt:
        PutU16(&out, static_cast<uint16_t>(v.int_value()));
        break;
      case TypeKind::kInt:
      case TypeKind::kDate:
        PutVarint64(&out, static_cast<uint32_t>(static_cast<int32_t>(v.int_value())));
        break;
      case TypeKind::kTime: {
        int64_t millis, nanos;
        SplitMillis(v.int_value(), t, &millis, &nanos);
        PutVarint64(&out, static_cast<uint32_t>(static_cast<int32_t>(millis)));
        break;
      }
      case TypeKind::kBigInt:
        PutVarint64(&out, static_cast<uint64_t>(v.int_value()));
        break;
      case TypeKind::kFloat:
        PutFloatBits(&out, v);
        break;
      case TypeKind::kDouble:
        PutDoubleBits(&out, v);
        break;
      case TypeKind::kString:
      case TypeKind::kBytes:
        PutVarint64(&out, static_cast<uint32_t>(v.bytes().size()));
        out.append(v.bytes());
        break;
      case TypeKind::kDecimal:
        if (t.precision <= 18) {
          PutVarint64(&out, static_cast<uint64_t>(static_cast<int64_t>(v.decimal_value())));
        } else {
          std::string be = MinimalBigEndian(v.decimal_value());
          PutVarint64(&out, static_cast<uint32_t>(be.size()));
          out.append(be);
        }
        break;
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampLtz: {
        int64_t millis, nanos;
        SplitMillis(v.int_value(), t, &millis, &nanos);
        PutVarint64(&out, static_cast<uint64_t>(millis));
        if (t.precision > 3) PutVarint64(&out, static_cast<uint32_t>(nanos));
        break;
      }
      default:
        return InvalidArgumentError("type " + t.ToString() + " cannot be part of a key");
    }
  }
  return out;
}

Result<std::string> EncodePaimonKey(const std::vector<Value>& fields,
                                    const std::vector<LogicalType>& types) {
  const size_t arity = types.size();
  const size_t header = ((arity + 63 + 8) / 64) * 8;
  std::string out(header + 8 * arity, '\0');
  auto slot = [&](size_t i) { return out.data() + header + 8 * i; };
  for (size_t i = 0; i < arity; ++i) {
    const Value& v = fields[i];
    if (v.is_null()) return NullKey(i);
    const LogicalType& t = types[i];
    char* s = slot(i);
    auto put_le = [&](uint64_t x, int n) {
      for (int b = 0; b < n; ++b) s[b] = static_cast<char>(x >> (8 * b));
    };
    auto put_variable = [&](const std::string& bytes, uint64_t low) {
      uint64_t offset = out.size();
      out.append(bytes);
      out.append((8 - bytes.size() % 8) % 8, '\0');
      s = slot(i);  // out may have moved
      put_le((offset << 32) | low, 8);
    };
    switch (t.kind) {
      case TypeKind::kBoolean:
      case TypeKind::kTinyInt: put_le(static_cast<uint64_t>(v.int_value()), 1); break;
      case TypeKind::kSmallInt: put_le(static_cast<uint64_t>(v.int_value()), 2); break;
      case TypeKind::kInt:
      case TypeKind::kDate: put_le(static_cast<uint64_t>(v.int_value()), 4); break;
      case TypeKind::kTime: {
        int64_t millis, nanos;
        SplitMillis(v.int_value(), t, &millis, &nanos);
        put_le(static_cast<uint64_t>(millis), 4);
        break;
      }
      case TypeKind::kBigInt: put_le(static_cast<uint64_t>(v.int_value()), 8); break;
      case TypeKind::kFloat: {
        float f = static_cast<float>(v.double_value());
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        put_le(bits, 4);
        break;
      }
      case TypeKind::kDouble: {
        double d = v.double_value();
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        put_le(bits, 8);
        break;
      }
      case TypeKind::kString:
      case TypeKind::kBytes:
        if (v.bytes().size() <= 7) {
          std::memcpy(s, v.bytes().data(), v.bytes().size());
          s[7] = static_cast<char>(0x80 | v.bytes().size());
        } else {
          put_variable(v.bytes(), v.bytes().size());
        }
        break;
      case TypeKind::kDecimal:
        if (t.precision <= 18) {
          put_le(static_cast<uint64_t>(static_cast<int64_t>(v.decimal_value())), 8);
        } else {
          std::string be = MinimalBigEndian(v.decimal_value());
          std::string area = be + std::string(16 - be.size(), '\0');
          put_variable(area, be.size());
        }
        break;
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampLtz: {
        int64_t millis, nanos;
        SplitMillis(v.int_value(), t, &millis, &nanos);
        if (t.precision <= 3) {
          put_le(static_cast<uint64_t>(millis), 8);
        } else {
          std::string area;
          PutU64(&area, static_cast<uint64_t>(millis));
          put_variable(area, static_cast<uint64_t>(nanos));
        }
        break;
      }
      default:
        return InvalidArgumentError("type " + t.ToString() + " cannot be part of a key");
    }
  }
  return out;
}

Result<std::string> EncodeIcebergKey(const std::vector<Value>& fields,
                                     const std::vector<LogicalType>& types) {
  if (types.size() != 1) {
    return InvalidArgumentError("Iceberg bucketing hashes exactly one bucket-key column, not " +
                                std::to_string(types.size()));
  }
  const Value& v = fields[0];
  if (v.is_null()) return NullKey(0);
  const LogicalType& t = types[0];
  std::string out;
  switch (t.kind) {
    case TypeKind::kInt:
    case TypeKind::kDate:
    case TypeKind::kBigInt:
      PutU64(&out, static_cast<uint64_t>(v.int_value()));
      break;
    case TypeKind::kTime:
    case TypeKind::kTimestamp: {
      int64_t millis, nanos;
      SplitMillis(v.int_value(), t, &millis, &nanos);
      PutU64(&out, static_cast<uint64_t>(millis * 1000 + nanos / 1000));
      break;
    }
    case TypeKind::kString:
    case TypeKind::kBytes:
      out = v.bytes();
      break;
    case TypeKind::kDecimal:
      out = MinimalBigEndian(v.decimal_value());
      break;
    case TypeKind::kFloat:
      PutFloatBits(&out, v);
      break;
    case TypeKind::kDouble:
      PutDoubleBits(&out, v);
      break;
    default:
      return InvalidArgumentError("Iceberg bucketing does not support " + t.ToString());
  }
  return out;
}

Result<std::string> EncodeBucketKey(BucketFunction f, const std::vector<Value>& fields,
                                    const std::vector<LogicalType>& types) {
  switch (f) {
    case BucketFunction::kNative: return EncodeCompactedKey(fields, types);
    case BucketFunction::kPaimon: return EncodePaimonKey(fields, types);
    case BucketFunction::kIceberg: return EncodeIcebergKey(fields, types);
  }
  return EncodeCompactedKey(fields, types);
}

}  // namespace mink::table
