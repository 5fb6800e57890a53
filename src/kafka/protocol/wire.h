#pragma once
// Kafka wire primitives: a bounds-checked big-endian Reader and a Writer with the same field
// methods, so that one field list per message (a template over the two, see codec_internal.h)
// serves both decoding and encoding.
//
// Both are "sticky": the first error is kept, every later call does nothing, and status() reports
// it. A Reader checks the remaining length before every read, and no length read from the wire
// can make it allocate more than the bytes that are left. Errors are InvalidArgument
// "malformed <Api> v<N> request: <field path>: <what>".
//
// Flexible versions (KIP-482) switch strings, bytes and arrays to their compact forms and end
// every struct with a tagged-field section. Tags() reads the known tags of that section and SKIPS
// unknown ones (they are dropped: a re-encoded message carries only the tags this library knows).

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mink::kafka {

using Uuid = std::array<uint8_t, 16>;

// Names the message being read or written, for error messages and version-dependent fields.
struct MessageContext {
  enum class Kind : uint8_t { kRequest, kResponse, kOther };
  const char* name = "";  // "Produce", or "record batch" for kOther
  int16_t version = 0;
  Kind kind = Kind::kOther;
  bool flexible = false;
};

// A known tagged field of a flexible struct: `present` tells the Writer whether to emit it (the
// Reader ignores it); `field` reads or writes its value through a sub-reader/writer.
template <class IO>
struct TagField {
  uint32_t tag;
  bool present;
  std::function<void(IO&)> field;
};

// ---- Raw big-endian and varint helpers (no bounds checks: callers check) ----

inline void AppendBe16(std::string* out, uint16_t v) {
  char b[2] = {static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(b, 2);
}
inline void AppendBe32(std::string* out, uint32_t v) {
  char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<char>(v >> (24 - 8 * i));
  out->append(b, 4);
}
inline void AppendBe64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (56 - 8 * i));
  out->append(b, 8);
}
inline uint16_t LoadBe16(const char* p) {
  return static_cast<uint16_t>((static_cast<uint8_t>(p[0]) << 8) | static_cast<uint8_t>(p[1]));
}
inline uint32_t LoadBe32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
inline uint64_t LoadBe64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
inline void StoreBe32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (24 - 8 * i));
}
inline void StoreBe64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (56 - 8 * i));
}

void AppendUnsignedVarint(std::string* out, uint32_t v);
void AppendUnsignedVarlong(std::string* out, uint64_t v);
inline void AppendVarint(std::string* out, int32_t v) {  // zigzag
  AppendUnsignedVarint(out, (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
}
inline void AppendVarlong(std::string* out, int64_t v) {  // zigzag
  AppendUnsignedVarlong(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
// Bytes AppendVarint/AppendVarlong would write.
int VarintSize(int32_t v);
int VarlongSize(int64_t v);

// ---- Reader ----

class Reader {
 public:
  Reader(std::string_view data, MessageContext context) : data_(data), context_(context) {}

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  int16_t version() const { return context_.version; }
  bool flexible() const { return context_.flexible; }
  const MessageContext& context() const { return context_; }
  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }

  void Int8(const char* field, int8_t& v);
  void Int16(const char* field, int16_t& v);
  void Int32(const char* field, int32_t& v);
  void Int64(const char* field, int64_t& v);
  void Bool(const char* field, bool& v);
  void UuidField(const char* field, Uuid& v);
  void UnsignedVarint(const char* field, uint32_t& v);
  void Varint(const char* field, int32_t& v);   // zigzag, records only
  void Varlong(const char* field, int64_t& v);  // zigzag, records only

  // STRING / COMPACT_STRING (null is an error).
  void String(const char* field, std::string& v);
  // NULLABLE_STRING / COMPACT_NULLABLE_STRING; with `nullable` false (a version where the field
  // is not yet nullable) null is an error.
  void NullableString(const char* field, std::optional<std::string>& v, bool nullable = true);
  void Bytes(const char* field, std::string& v);
  void NullableBytes(const char* field, std::optional<std::string>& v);
  // RECORDS: nullable bytes (compact in flexible versions).
  void Records(const char* field, std::optional<std::string>& v) { NullableBytes(field, v); }
  // Exactly n raw bytes, as a view of the input.
  void Raw(const char* field, size_t n, std::string_view& v);

  template <class T, class F>
  void Array(const char* field, std::vector<T>& v, F&& element) {
    int32_t n = 0;
    if (!ArrayLength(field, false, n)) return;
    ReadElements(field, n, v, element);
  }
  template <class T, class F>
  void NullableArray(const char* field, std::optional<std::vector<T>>& v, F&& element,
                     bool nullable = true) {
    int32_t n = 0;
    if (!ArrayLength(field, nullable, n)) return;
    if (n < 0) {
      v.reset();
      return;
    }
    v.emplace();
    ReadElements(field, n, *v, element);
  }

  // The tagged-field section ending a struct in flexible versions (nothing otherwise).
  void Tags(std::initializer_list<TagField<Reader>> known = {});

  // Records an error (the first one wins).
  void Fail(const char* field, std::string_view what);
  // Fails unless every byte was read.
  void ExpectEnd();

 private:
  bool Need(const char* field, size_t n);
  bool ReadUnsignedVarint(const char* field, uint64_t& v, int max_bytes);
  // Reads a string/bytes length: -1 for null. Checks it against the bytes left.
  bool Length(const char* field, bool wide, int64_t& n);
  bool ArrayLength(const char* field, bool nullable, int32_t& n);
  void PushPath(const char* field);
  void PopPath() { --depth_; }

  template <class T, class F>
  void ReadElements(const char* field, int32_t n, std::vector<T>& v, F& element) {
    v.clear();
    PushPath(field);
    // No reserve by the count read from the wire: the vector grows with the elements actually
    // decoded, each of which consumes at least one byte.
    for (int32_t i = 0; i < n && ok(); ++i) element(v.emplace_back());
    PopPath();
  }

  static constexpr int kMaxDepth = 8;
  std::string_view data_;
  size_t pos_ = 0;
  MessageContext context_;
  Status status_;
  const char* path_[kMaxDepth] = {};
  int depth_ = 0;
};

// ---- Writer ----

// RECORDS bytes a Writer left out of its output: they belong at byte `at` of it (in the order
// noted, so `at` never decreases). Sending the output with the splices gathered in (writev) saves
// copying a fetch's records into the response frame.
struct Splice {
  size_t at = 0;
  std::string_view bytes;
};

class Writer {
 public:
  Writer(std::string* out, MessageContext context) : out_(out), context_(context) {}

  // RECORDS fields of at least this many bytes are noted in `splices` instead of copied (their
  // length prefix is still written); the views point into the message being encoded.
  static constexpr size_t kMinSplicedRecords = 16 << 10;
  void set_splices(std::vector<Splice>* splices) { splices_ = splices; }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  int16_t version() const { return context_.version; }
  bool flexible() const { return context_.flexible; }
  const MessageContext& context() const { return context_; }
  std::string* out() { return out_; }

  void Int8(const char*, int8_t v) { out_->push_back(static_cast<char>(v)); }
  void Int16(const char*, int16_t v) { AppendBe16(out_, static_cast<uint16_t>(v)); }
  void Int32(const char*, int32_t v) { AppendBe32(out_, static_cast<uint32_t>(v)); }
  void Int64(const char*, int64_t v) { AppendBe64(out_, static_cast<uint64_t>(v)); }
  void Bool(const char*, bool v) { out_->push_back(v ? 1 : 0); }
  void UuidField(const char*, const Uuid& v) {
    out_->append(reinterpret_cast<const char*>(v.data()), v.size());
  }
  void UnsignedVarint(const char*, uint32_t v) { AppendUnsignedVarint(out_, v); }
  void Varint(const char*, int32_t v) { AppendVarint(out_, v); }
  void Varlong(const char*, int64_t v) { AppendVarlong(out_, v); }

  void String(const char* field, const std::string& v);
  void NullableString(const char* field, const std::optional<std::string>& v,
                      bool nullable = true);
  void Bytes(const char* field, const std::string& v);
  void NullableBytes(const char* field, const std::optional<std::string>& v);
  void Records(const char* field, const std::optional<std::string>& v);
  void Raw(const char*, std::string_view v) { out_->append(v); }

  template <class T, class F>
  void Array(const char* field, const std::vector<T>& v, F&& element) {
    if (!ArrayLength(field, static_cast<int64_t>(v.size()))) return;
    for (const T& e : v) {
      if (!ok()) return;
      element(e);
    }
  }
  template <class T, class F>
  void NullableArray(const char* field, const std::optional<std::vector<T>>& v, F&& element,
                     bool nullable = true) {
    if (!v.has_value()) {
      if (!nullable) return Fail(field, "null is not allowed in this version");
      ArrayLength(field, -1);
      return;
    }
    Array(field, *v, element);
  }

  void Tags(std::initializer_list<TagField<Writer>> known = {});

  void Fail(const char* field, std::string_view what);

 private:
  bool ArrayLength(const char* field, int64_t n);
  void Length(bool wide, int64_t n);

  std::string* out_;
  MessageContext context_;
  Status status_;
  std::vector<Splice>* splices_ = nullptr;
};

// Returns the element of an optional, creating it if needed (Reader side), or the element of a
// present optional (Writer side). Lets one field list fill or read optional tagged structs.
template <class T>
T& Emplace(std::optional<T>& v) {
  if (!v) v.emplace();
  return *v;
}
template <class T>
const T& Emplace(const std::optional<T>& v) {
  return *v;
}

}  // namespace mink::kafka
