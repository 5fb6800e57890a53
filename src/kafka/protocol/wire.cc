#include "kafka/protocol/wire.h"

#include <cstring>
#include <limits>

namespace mink::kafka {

void AppendUnsignedVarint(std::string* out, uint32_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void AppendUnsignedVarlong(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

int VarintSize(int32_t v) {
  uint32_t u = (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
  int n = 1;
  while (u >= 0x80) {
    u >>= 7;
    ++n;
  }
  return n;
}

int VarlongSize(int64_t v) {
  uint64_t u = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  int n = 1;
  while (u >= 0x80) {
    u >>= 7;
    ++n;
  }
  return n;
}

namespace {

std::string Describe(const MessageContext& c) {
  std::string s = c.name;
  if (c.kind == MessageContext::Kind::kOther) return s;
  s += " v" + std::to_string(c.version);
  s += c.kind == MessageContext::Kind::kRequest ? " request" : " response";
  return s;
}

}  // namespace

// ---- Reader ----

void Reader::PushPath(const char* field) {
  if (depth_ < kMaxDepth) path_[depth_] = field;
  ++depth_;
}

void Reader::Fail(const char* field, std::string_view what) {
  if (!status_.ok()) return;
  std::string path;
  for (int i = 0; i < depth_ && i < kMaxDepth; ++i) {
    if (path_[i] == nullptr) continue;
    if (!path.empty()) path += '.';
    path += path_[i];
  }
  if (field != nullptr && *field != '\0') {
    if (!path.empty()) path += '.';
    path += field;
  }
  if (path.empty()) path = "(message)";
  status_ = InvalidArgumentError("malformed " + Describe(context_) + ": " + path + ": " +
                                 std::string(what));
}

void Reader::ExpectEnd() {
  if (ok() && remaining() != 0) {
    Fail(nullptr, std::to_string(remaining()) + " unexpected bytes after the last field");
  }
}

bool Reader::Need(const char* field, size_t n) {
  if (!ok()) return false;
  if (remaining() < n) {
    Fail(field, "needs " + std::to_string(n) + " bytes, " + std::to_string(remaining()) + " left");
    return false;
  }
  return true;
}

void Reader::Int8(const char* field, int8_t& v) {
  if (!Need(field, 1)) return;
  v = static_cast<int8_t>(data_[pos_]);
  pos_ += 1;
}

void Reader::Int16(const char* field, int16_t& v) {
  if (!Need(field, 2)) return;
  v = static_cast<int16_t>(LoadBe16(data_.data() + pos_));
  pos_ += 2;
}

void Reader::Int32(const char* field, int32_t& v) {
  if (!Need(field, 4)) return;
  v = static_cast<int32_t>(LoadBe32(data_.data() + pos_));
  pos_ += 4;
}

void Reader::Int64(const char* field, int64_t& v) {
  if (!Need(field, 8)) return;
  v = static_cast<int64_t>(LoadBe64(data_.data() + pos_));
  pos_ += 8;
}

void Reader::Bool(const char* field, bool& v) {
  if (!Need(field, 1)) return;
  v = data_[pos_] != 0;
  pos_ += 1;
}

void Reader::UuidField(const char* field, Uuid& v) {
  if (!Need(field, v.size())) return;
  std::memcpy(v.data(), data_.data() + pos_, v.size());
  pos_ += v.size();
}

bool Reader::ReadUnsignedVarint(const char* field, uint64_t& v, int max_bytes) {
  if (!ok()) return false;
  v = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (remaining() == 0) {
      Fail(field, "truncated varint");
      return false;
    }
    uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    v |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) return true;
  }
  Fail(field, "varint longer than " + std::to_string(max_bytes) + " bytes");
  return false;
}

void Reader::UnsignedVarint(const char* field, uint32_t& v) {
  uint64_t u = 0;
  if (!ReadUnsignedVarint(field, u, 5)) return;
  if (u > std::numeric_limits<uint32_t>::max()) return Fail(field, "varint overflows 32 bits");
  v = static_cast<uint32_t>(u);
}

void Reader::Varint(const char* field, int32_t& v) {
  uint32_t u = 0;
  UnsignedVarint(field, u);
  if (!ok()) return;
  v = static_cast<int32_t>((u >> 1) ^ (~(u & 1) + 1));
}

void Reader::Varlong(const char* field, int64_t& v) {
  uint64_t u = 0;
  if (!ReadUnsignedVarint(field, u, 10)) return;
  v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
}

bool Reader::Length(const char* field, bool wide, int64_t& n) {
  if (!ok()) return false;
  if (flexible()) {
    uint32_t u = 0;
    UnsignedVarint(field, u);
    if (!ok()) return false;
    n = static_cast<int64_t>(u) - 1;
  } else if (wide) {
    int32_t len = 0;
    Int32(field, len);
    if (!ok()) return false;
    n = len;
  } else {
    int16_t len = 0;
    Int16(field, len);
    if (!ok()) return false;
    n = len;
  }
  if (n < -1) {
    Fail(field, "negative length " + std::to_string(n));
    return false;
  }
  if (n > static_cast<int64_t>(remaining())) {
    Fail(field, "length " + std::to_string(n) + " exceeds the " + std::to_string(remaining()) +
                    " bytes left");
    return false;
  }
  return true;
}

void Reader::String(const char* field, std::string& v) {
  int64_t n = 0;
  if (!Length(field, false, n)) return;
  if (n < 0) return Fail(field, "null is not allowed");
  v.assign(data_.data() + pos_, static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
}

void Reader::NullableString(const char* field, std::optional<std::string>& v, bool nullable) {
  int64_t n = 0;
  if (!Length(field, false, n)) return;
  if (n < 0) {
    if (!nullable) return Fail(field, "null is not allowed in this version");
    v.reset();
    return;
  }
  v.emplace(data_.data() + pos_, static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
}

void Reader::Bytes(const char* field, std::string& v) {
  int64_t n = 0;
  if (!Length(field, true, n)) return;
  if (n < 0) return Fail(field, "null is not allowed");
  v.assign(data_.data() + pos_, static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
}

void Reader::NullableBytes(const char* field, std::optional<std::string>& v) {
  int64_t n = 0;
  if (!Length(field, true, n)) return;
  if (n < 0) {
    v.reset();
    return;
  }
  v.emplace(data_.data() + pos_, static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
}

void Reader::Raw(const char* field, size_t n, std::string_view& v) {
  if (!Need(field, n)) return;
  v = data_.substr(pos_, n);
  pos_ += n;
}

bool Reader::ArrayLength(const char* field, bool nullable, int32_t& n) {
  if (!ok()) return false;
  int64_t count = 0;
  if (flexible()) {
    uint32_t u = 0;
    UnsignedVarint(field, u);
    if (!ok()) return false;
    count = static_cast<int64_t>(u) - 1;
  } else {
    int32_t c = 0;
    Int32(field, c);
    if (!ok()) return false;
    count = c;
  }
  if (count < 0) {
    if (count == -1 && nullable) {
      n = -1;
      return true;
    }
    Fail(field, count == -1 ? "null array is not allowed" : "negative array length");
    return false;
  }
  // Every element takes at least one byte on the wire.
  if (count > static_cast<int64_t>(remaining())) {
    Fail(field, "array of " + std::to_string(count) + " elements exceeds the " +
                    std::to_string(remaining()) + " bytes left");
    return false;
  }
  n = static_cast<int32_t>(count);
  return true;
}

void Reader::Tags(std::initializer_list<TagField<Reader>> known) {
  if (!flexible() || !ok()) return;
  uint32_t count = 0;
  UnsignedVarint("_tagged_fields", count);
  if (!ok()) return;
  if (count > remaining()) return Fail("_tagged_fields", "tag count exceeds the bytes left");
  int64_t last_tag = -1;
  for (uint32_t i = 0; i < count && ok(); ++i) {
    uint32_t tag = 0, size = 0;
    UnsignedVarint("_tagged_fields", tag);
    UnsignedVarint("_tagged_fields", size);
    if (!ok()) return;
    if (static_cast<int64_t>(tag) <= last_tag) {
      return Fail("_tagged_fields", "tags out of order");
    }
    last_tag = tag;
    if (size > remaining()) {
      return Fail("_tagged_fields", "tag " + std::to_string(tag) + " size " +
                                        std::to_string(size) + " exceeds the bytes left");
    }
    for (const auto& k : known) {
      if (k.tag != tag) continue;
      Reader sub(data_.substr(pos_, size), context_);
      std::copy(std::begin(path_), std::end(path_), std::begin(sub.path_));
      sub.depth_ = depth_;
      k.field(sub);
      if (!sub.ok()) {
        status_ = sub.status_;
        return;
      }
      break;
    }
    pos_ += size;  // unknown tags are skipped; known ones may carry more than we read
  }
}

// ---- Writer ----

void Writer::Fail(const char* field, std::string_view what) {
  if (!status_.ok()) return;
  status_ = InvalidArgumentError("cannot encode " + Describe(context_) + ": " +
                                 (field ? field : "(message)") + ": " + std::string(what));
}

void Writer::Length(bool wide, int64_t n) {
  if (flexible()) {
    AppendUnsignedVarint(out_, static_cast<uint32_t>(n + 1));
  } else if (wide) {
    AppendBe32(out_, static_cast<uint32_t>(static_cast<int32_t>(n)));
  } else {
    AppendBe16(out_, static_cast<uint16_t>(static_cast<int16_t>(n)));
  }
}

void Writer::String(const char* field, const std::string& v) {
  if (!ok()) return;
  if (!flexible() && v.size() > static_cast<size_t>(std::numeric_limits<int16_t>::max())) {
    return Fail(field, "string longer than 32767 bytes");
  }
  if (v.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Fail(field, "string too long");
  }
  Length(false, static_cast<int64_t>(v.size()));
  out_->append(v);
}

void Writer::NullableString(const char* field, const std::optional<std::string>& v,
                            bool nullable) {
  if (!ok()) return;
  if (!v.has_value()) {
    if (!nullable) return Fail(field, "null is not allowed in this version");
    Length(false, -1);
    return;
  }
  String(field, *v);
}

void Writer::Bytes(const char* field, const std::string& v) {
  if (!ok()) return;
  if (v.size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Fail(field, "bytes too long");
  }
  Length(true, static_cast<int64_t>(v.size()));
  out_->append(v);
}

void Writer::NullableBytes(const char* field, const std::optional<std::string>& v) {
  if (!ok()) return;
  if (!v.has_value()) {
    Length(true, -1);
    return;
  }
  Bytes(field, *v);
}

void Writer::Records(const char* field, const std::optional<std::string>& v) {
  if (splices_ == nullptr || !v.has_value() || v->size() < kMinSplicedRecords) {
    return NullableBytes(field, v);
  }
  if (!ok()) return;
  if (v->size() >= static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return Fail(field, "bytes too long");
  }
  Length(true, static_cast<int64_t>(v->size()));
  splices_->push_back({out_->size(), *v});
}

bool Writer::ArrayLength(const char* field, int64_t n) {
  if (!ok()) return false;
  if (n >= std::numeric_limits<int32_t>::max()) {
    Fail(field, "array too long");
    return false;
  }
  if (flexible()) {
    AppendUnsignedVarint(out_, static_cast<uint32_t>(n + 1));
  } else {
    AppendBe32(out_, static_cast<uint32_t>(static_cast<int32_t>(n)));
  }
  return true;
}

void Writer::Tags(std::initializer_list<TagField<Writer>> known) {
  if (!flexible() || !ok()) return;
  uint32_t count = 0;
  for (const auto& k : known) count += k.present ? 1 : 0;
  AppendUnsignedVarint(out_, count);
  for (const auto& k : known) {
    if (!k.present) continue;
    std::string value;
    Writer sub(&value, context_);
    k.field(sub);
    if (!sub.ok()) {
      status_ = sub.status_;
      return;
    }
    AppendUnsignedVarint(out_, k.tag);
    AppendUnsignedVarint(out_, static_cast<uint32_t>(value.size()));
    out_->append(value);
  }
}

}  // namespace mink::kafka
