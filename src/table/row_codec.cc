#include "table/row_codec.h"

#include <cstring>

#include "base/bytes.h"
#include "table/arrow_rows.h"

namespace mink::table {

void PutVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint64(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && !in->empty(); shift += 7) {
    uint8_t byte = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

namespace {

uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

void EncodeValue(const Value& v, const LogicalType& t, std::string* out);
Status DecodeValue(std::string_view* in, const LogicalType& t, Value* out, int depth);

void EncodeFields(const std::vector<Value>& fields, const std::vector<LogicalType>& types,
                  std::string* out) {
  size_t bitmap_at = out->size();
  out->append((types.size() + 7) / 8, '\0');
  for (size_t i = 0; i < types.size(); ++i) {
    if (i >= fields.size() || fields[i].is_null()) {
      (*out)[bitmap_at + i / 8] = static_cast<char>((*out)[bitmap_at + i / 8] | (1 << (i % 8)));
      continue;
    }
    EncodeValue(fields[i], types[i], out);
  }
}

void EncodeValue(const Value& v, const LogicalType& t, std::string* out) {
  switch (t.kind) {
    case TypeKind::kBoolean:
    case TypeKind::kTinyInt:
      out->push_back(static_cast<char>(v.int_value()));
      break;
    case TypeKind::kSmallInt:
      PutU16(out, static_cast<uint16_t>(v.int_value()));
      break;
    case TypeKind::kInt:
    case TypeKind::kBigInt:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz:
      PutVarint64(out, ZigZag(v.int_value()));
      break;
    case TypeKind::kFloat: {
      float f = static_cast<float>(v.double_value());
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      PutU32(out, bits);
      break;
    }
    case TypeKind::kDouble: {
      double d = v.double_value();
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      PutU64(out, bits);
      break;
    }
    case TypeKind::kDecimal: {
      int128 u = v.decimal_value();
      PutU64(out, static_cast<uint64_t>(u));
      PutU64(out, static_cast<uint64_t>(u >> 64));
      break;
    }
    case TypeKind::kString:
    case TypeKind::kBytes:
      PutVarint64(out, v.bytes().size());
      out->append(v.bytes());
      break;
    case TypeKind::kArray:
    case TypeKind::kMap: {
      const auto& items = v.list();
      bool is_map = t.kind == TypeKind::kMap;
      size_t count = is_map ? items.size() / 2 : items.size();
      PutVarint64(out, count);
      for (size_t i = 0; i < count; ++i) {
        if (is_map) EncodeValue(items[2 * i], t.children[0], out);
        const Value& item = is_map ? items[2 * i + 1] : items[i];
        const LogicalType& item_type = is_map ? t.children[1] : t.children[0];
        out->push_back(item.is_null() ? 1 : 0);
        if (!item.is_null()) EncodeValue(item, item_type, out);
      }
      break;
    }
    case TypeKind::kRow:
      EncodeFields(v.list(), t.children, out);
      break;
  }
}

Status Truncated() { return DataLossError("KV row is truncated or malformed"); }

Status DecodeFields(std::string_view* in, const std::vector<LogicalType>& types,
                    std::vector<Value>* out, int depth) {
  size_t bitmap = (types.size() + 7) / 8;
  if (in->size() < bitmap) return Truncated();
  std::string_view bits = in->substr(0, bitmap);
  in->remove_prefix(bitmap);
  out->resize(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    if (static_cast<uint8_t>(bits[i / 8]) & (1 << (i % 8))) {
      (*out)[i] = Value();
      continue;
    }
    MINK_RETURN_IF_ERROR(DecodeValue(in, types[i], &(*out)[i], depth + 1));
  }
  return Status::Ok();
}

Status DecodeValue(std::string_view* in, const LogicalType& t, Value* out, int depth) {
  if (depth > 64) return DataLossError("KV row nests too deeply");
  auto take = [&](size_t n, std::string_view* bytes) {
    if (in->size() < n) return false;
    *bytes = in->substr(0, n);
    in->remove_prefix(n);
    return true;
  };
  std::string_view b;
  uint64_t u = 0;
  switch (t.kind) {
    case TypeKind::kBoolean:
      if (!take(1, &b)) return Truncated();
      *out = Value::Bool(b[0] != 0);
      return Status::Ok();
    case TypeKind::kTinyInt:
      if (!take(1, &b)) return Truncated();
      *out = Value::Int(static_cast<int8_t>(b[0]));
      return Status::Ok();
    case TypeKind::kSmallInt:
      if (!take(2, &b)) return Truncated();
      *out = Value::Int(static_cast<int16_t>(static_cast<uint8_t>(b[0]) |
                                             (static_cast<uint8_t>(b[1]) << 8)));
      return Status::Ok();
    case TypeKind::kInt:
    case TypeKind::kBigInt:
    case TypeKind::kDate:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz:
      if (!GetVarint64(in, &u)) return Truncated();
      *out = Value::Int(UnZigZag(u));
      return Status::Ok();
    case TypeKind::kFloat: {
      if (!take(4, &b)) return Truncated();
      uint32_t bits = LoadU32(b.data());
      float f;
      std::memcpy(&f, &bits, 4);
      *out = Value::Double(f);
      return Status::Ok();
    }
    case TypeKind::kDouble: {
      if (!take(8, &b)) return Truncated();
      uint64_t bits = LoadU64(b.data());
      double d;
      std::memcpy(&d, &bits, 8);
      *out = Value::Double(d);
      return Status::Ok();
    }
    case TypeKind::kDecimal: {
      if (!take(16, &b)) return Truncated();
      uint64_t lo = LoadU64(b.data()), hi = LoadU64(b.data() + 8);
      *out = Value::Decimal(static_cast<int128>((static_cast<unsigned __int128>(hi) << 64) | lo));
      return Status::Ok();
    }
    case TypeKind::kString:
    case TypeKind::kBytes:
      if (!GetVarint64(in, &u) || u > in->size() || !take(u, &b)) return Truncated();
      *out = Value::Bytes(std::string(b));
      return Status::Ok();
    case TypeKind::kArray:
    case TypeKind::kMap: {
      if (!GetVarint64(in, &u) || u > in->size()) return Truncated();
      bool is_map = t.kind == TypeKind::kMap;
      std::vector<Value> items;
      items.reserve(is_map ? 2 * u : u);
      for (uint64_t i = 0; i < u; ++i) {
        if (is_map) {
          items.emplace_back();
          MINK_RETURN_IF_ERROR(DecodeValue(in, t.children[0], &items.back(), depth + 1));
        }
        if (!take(1, &b)) return Truncated();
        items.emplace_back();
        if (b[0] == 0) {
          MINK_RETURN_IF_ERROR(
              DecodeValue(in, is_map ? t.children[1] : t.children[0], &items.back(), depth + 1));
        }
      }
      *out = Value::List(std::move(items));
      return Status::Ok();
    }
    case TypeKind::kRow: {
      std::vector<Value> fields;
      MINK_RETURN_IF_ERROR(DecodeFields(in, t.children, &fields, depth));
      *out = Value::List(std::move(fields));
      return Status::Ok();
    }
  }
  return Truncated();
}

}  // namespace

void EncodeRow(const Row& row, const std::vector<LogicalType>& types, std::string* out) {
  EncodeFields(row, types, out);
}

Status AppendEncodedRow(std::string_view data, const std::vector<LogicalType>& types,
                        const std::vector<arrow::ArrayBuilder*>& builders) {
  const size_t bitmap = (types.size() + 7) / 8;
  if (data.size() < bitmap) return Truncated();
  const std::string_view bits = data.substr(0, bitmap);
  data.remove_prefix(bitmap);
  for (size_t i = 0; i < types.size(); ++i) {
    arrow::ArrayBuilder* b = builders[i];
    if (static_cast<uint8_t>(bits[i / 8]) & (1 << (i % 8))) {
      if (b != nullptr) b->AppendNull();
      continue;
    }
    const LogicalType& t = types[i];
    if (t.kind == TypeKind::kString || t.kind == TypeKind::kBytes) {
      // The bytes go from the row to the column, never through a std::string.
      uint64_t n = 0;
      if (!GetVarint64(&data, &n) || n > data.size()) return Truncated();
      if (b != nullptr) MINK_RETURN_IF_ERROR(static_cast<arrow::BinaryBuilder*>(b)->Append(data.substr(0, n)));
      data.remove_prefix(n);
      continue;
    }
    Value v;
    MINK_RETURN_IF_ERROR(DecodeValue(&data, t, &v, 1));
    if (b != nullptr) MINK_RETURN_IF_ERROR(AppendValue(b, v, t));
  }
  if (!data.empty()) return DataLossError("KV row has trailing bytes");
  return Status::Ok();
}

Result<Row> DecodeRow(std::string_view data, const std::vector<LogicalType>& types) {
  Row row;
  MINK_RETURN_IF_ERROR(DecodeFields(&data, types, &row, 0));
  if (!data.empty()) return DataLossError("KV row has trailing bytes");
  return row;
}

}  // namespace mink::table
