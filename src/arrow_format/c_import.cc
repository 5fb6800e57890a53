// Import from the Arrow C data interface: parse format strings, then view the producer's buffers
// (kept alive by the imported array, released when the last view goes) or, where the producer's
// offsets do not allow a view (bits not starting on a byte, string offsets not from 0), copy
// them into new Mink buffers.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "arrow_format/bit_util.h"
#include "arrow_format/c_bridge.h"
#include "base/strings.h"

namespace mink::arrow {
namespace {

constexpr int kMaxDepth = 64;

Status Invalid(const std::string& what) {
  return InvalidArgumentError("Arrow C data interface: " + what);
}
Status Unsupported(const std::string& what) {
  return UnimplementedError("Arrow C data interface: " + what + " is not supported");
}

// Releases an imported struct when it goes out of scope.
template <typename T>
struct ReleaseGuard {
  T* ptr;
  ~ReleaseGuard() {
    if (ptr != nullptr && ptr->release != nullptr) ptr->release(ptr);
  }
};

// ---- Schemas

Result<KeyValueMetadata> DecodeMetadata(const char* p) {
  KeyValueMetadata out;
  if (p == nullptr) return out;
  auto read_i32 = [&p]() {
    int32_t v;
    std::memcpy(&v, p, 4);
    p += 4;
    return v;
  };
  int32_t n = read_i32();
  if (n < 0) return Invalid("negative metadata count");
  for (int32_t i = 0; i < n; ++i) {
    int32_t key_len = read_i32();
    if (key_len < 0) return Invalid("negative metadata key length");
    std::string key(p, static_cast<size_t>(key_len));
    p += key_len;
    int32_t value_len = read_i32();
    if (value_len < 0) return Invalid("negative metadata value length");
    std::string value(p, static_cast<size_t>(value_len));
    p += value_len;
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

Result<TimeUnit> ParseUnit(char c, std::string_view format) {
  switch (c) {
    case 's':
      return TimeUnit::kSecond;
    case 'm':
      return TimeUnit::kMilli;
    case 'u':
      return TimeUnit::kMicro;
    case 'n':
      return TimeUnit::kNano;
  }
  return Invalid("bad time unit in format \"" + std::string(format) + "\"");
}

Result<Field> ParseField(const ArrowSchema* s, int depth);

Result<DataTypePtr> ParseType(const ArrowSchema* s, std::vector<Field>& children) {
  const std::string_view f = s->format;
  auto need = [&](size_t n) -> Status {
    if (children.size() != n) {
      return Invalid("format \"" + std::string(f) + "\" with " + std::to_string(children.size()) +
                     " children");
    }
    return Status::Ok();
  };
  if (f.size() == 1) {
    MINK_RETURN_IF_ERROR(need(0));
    switch (f[0]) {
      case 'n':
        return Null();
      case 'b':
        return Bool();
      case 'c':
        return Int8();
      case 'C':
        return UInt8();
      case 's':
        return Int16();
      case 'S':
        return UInt16();
      case 'i':
        return Int32();
      case 'I':
        return UInt32();
      case 'l':
        return Int64();
      case 'L':
        return UInt64();
      case 'f':
        return Float32();
      case 'g':
        return Float64();
      case 'u':
        return Utf8();
      case 'z':
        return Binary();
    }
  } else if (f == "tdD") {
    MINK_RETURN_IF_ERROR(need(0));
    return Date32();
  } else if (f.size() == 3 && f.substr(0, 2) == "tt") {
    MINK_RETURN_IF_ERROR(need(0));
    MINK_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit(f[2], f));
    return Time(unit);
  } else if (f.size() >= 4 && f.substr(0, 2) == "ts" && f[3] == ':') {
    MINK_RETURN_IF_ERROR(need(0));
    MINK_ASSIGN_OR_RETURN(TimeUnit unit, ParseUnit(f[2], f));
    return Timestamp(unit, std::string(f.substr(4)));
  } else if (f.substr(0, 2) == "d:") {
    MINK_RETURN_IF_ERROR(need(0));
    std::vector<std::string> parts = Split(f.substr(2), ',');
    if (parts.size() < 2 || parts.size() > 3)
      return Invalid("bad decimal format " + std::string(f));
    auto precision = ParseInt64(parts[0]);
    auto scale = ParseInt64(parts[1]);
    if (!precision.ok() || !scale.ok()) return Invalid("bad decimal format " + std::string(f));
    if (parts.size() == 3 && parts[2] != "128")
      return Unsupported("decimal format " + std::string(f));
    auto type = MakeDecimal128(static_cast<int32_t>(*precision), static_cast<int32_t>(*scale));
    if (!type.ok()) return Invalid(type.status().message());
    return type;
  } else if (f == "+l") {
    MINK_RETURN_IF_ERROR(need(1));
    return List(children[0]);
  } else if (f == "+s") {
    return Struct(children);
  } else if (f == "+m") {
    MINK_RETURN_IF_ERROR(need(1));
    auto type = MakeMap(children[0], (s->flags & ARROW_FLAG_MAP_KEYS_SORTED) != 0);
    if (!type.ok()) return Invalid(type.status().message());
    return type;
  }
  return Unsupported("format \"" + std::string(f) + "\"");
}

Result<Field> ParseField(const ArrowSchema* s, int depth) {
  if (s == nullptr || s->format == nullptr) return Invalid("schema without a format");
  if (s->release == nullptr) return Invalid("schema already released");
  if (depth > kMaxDepth) return Invalid("schema nested too deeply");
  if (s->dictionary != nullptr) return Unsupported("dictionary-encoded field");
  if (s->n_children < 0 || (s->n_children > 0 && s->children == nullptr)) {
    return Invalid("bad children of format " + std::string(s->format));
  }
  std::vector<Field> children;
  for (int64_t i = 0; i < s->n_children; ++i) {
    MINK_ASSIGN_OR_RETURN(Field child, ParseField(s->children[i], depth + 1));
    children.push_back(std::move(child));
  }
  MINK_ASSIGN_OR_RETURN(DataTypePtr type, ParseType(s, children));
  MINK_ASSIGN_OR_RETURN(KeyValueMetadata metadata, DecodeMetadata(s->metadata));
  return Field(s->name ? s->name : "", std::move(type), (s->flags & ARROW_FLAG_NULLABLE) != 0,
               std::move(metadata));
}

// ---- Arrays

ArrayDataPtr MakeData(DataTypePtr type, int64_t length, int64_t null_count,
                      std::vector<BufferPtr> buffers, std::vector<ArrayDataPtr> children = {}) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = length;
  data->null_count = null_count;
  data->buffers = std::move(buffers);
  data->children = std::move(children);
  return data;
}

BufferPtr CopyBitsToBuffer(const void* src, int64_t offset, int64_t length) {
  BufferBuilder b;
  b.Resize(bits::BytesForBits(length));
  bits::CopyBits(static_cast<const uint8_t*>(src), offset, length, b.mutable_data());
  return b.Finish();
}

// The imported array, released when the last buffer viewing it goes.
struct ImportedArray {
  ArrowArray array{};
  ~ImportedArray() {
    if (array.release != nullptr) array.release(&array);
  }
};
using Owner = std::shared_ptr<const ImportedArray>;

// `size` bytes at `p` of the imported array: a view, or Empty() when there are none.
BufferPtr View(const void* p, int64_t size, const Owner& owner) {
  if (size == 0) return Buffer::Empty();
  return std::make_shared<const Buffer>(p, size, owner);
}

// Bits [offset, offset + length) of `src`: viewed when they start on a byte, else copied.
BufferPtr Bits(const void* src, int64_t offset, int64_t length, const Owner& owner) {
  if (offset % 8 != 0) return CopyBitsToBuffer(src, offset, length);
  return View(static_cast<const uint8_t*>(src) + offset / 8, bits::BytesForBits(length), owner);
}

int32_t LoadI32(const void* p, int64_t i) {
  int32_t v;
  std::memcpy(&v, static_cast<const uint8_t*>(p) + i * 4, 4);
  return v;
}

// Elements [start, start + count) (logical indices, before a->offset) of `a`, which `owner`
// keeps alive.
Result<ArrayDataPtr> CopyRange(const ArrowArray* a, const DataTypePtr& type, int64_t start,
                               int64_t count, int depth, const Owner& owner) {
  if (a == nullptr) return Invalid("missing array");
  if (depth > kMaxDepth) return Invalid("array nested too deeply");
  const int n_buffers = type->id() == TypeId::kNull ? 0 : NumBuffers(type->id());
  const size_t n_children = type->id() == TypeId::kStruct ? type->children().size()
                            : type->is_nested()           ? 1
                                                          : 0;
  if (a->length < 0 || a->offset < 0 || start < 0 || count < 0 || start + count > a->length) {
    return Invalid(type->ToString() + " array: bad length/offset");
  }
  if (a->n_buffers != n_buffers || (n_buffers > 0 && a->buffers == nullptr)) {
    return Invalid(type->ToString() + " array has " + std::to_string(a->n_buffers) +
                   " buffers, expected " + std::to_string(n_buffers));
  }
  if (a->n_children != static_cast<int64_t>(n_children) ||
      (n_children > 0 && a->children == nullptr)) {
    return Invalid(type->ToString() + " array has " + std::to_string(a->n_children) +
                   " children, expected " + std::to_string(n_children));
  }
  if (a->dictionary != nullptr) return Unsupported("dictionary-encoded array");
  const int64_t begin = a->offset + start;  // physical index of the first element
  if (type->id() == TypeId::kNull) return MakeData(type, count, count, {});

  BufferPtr validity;
  int64_t null_count = 0;
  if (a->buffers[0] != nullptr && a->null_count != 0) {
    validity = Bits(a->buffers[0], begin, count, owner);
    null_count = count - bits::CountSetBits(validity->data(), 0, count);
    if (null_count == 0) validity = nullptr;
  }
  auto need = [&](int i) -> Status {
    if (a->buffers[i] == nullptr) {
      return Invalid(type->ToString() + " array: buffer " + std::to_string(i) + " is null");
    }
    return Status::Ok();
  };
  switch (type->id()) {
    case TypeId::kBool:
      if (count > 0) MINK_RETURN_IF_ERROR(need(1));
      return MakeData(
          type, count, null_count,
          {validity, count > 0 ? Bits(a->buffers[1], begin, count, owner) : Buffer::Empty()});
    case TypeId::kUtf8:
    case TypeId::kBinary:
    case TypeId::kList:
    case TypeId::kMap: {
      if (count > 0) {
        MINK_RETURN_IF_ERROR(need(1));
        if (LoadI32(a->buffers[1], begin) == 0) {
          // Offsets from 0: viewed as they are, once checked.
          int32_t prev = 0;
          for (int64_t i = 1; i <= count; ++i) {
            const int32_t cur = LoadI32(a->buffers[1], begin + i);
            if (cur < prev) return Invalid(type->ToString() + " array: bad offsets");
            prev = cur;
          }
          BufferPtr offsets = View(static_cast<const int32_t*>(a->buffers[1]) + begin, (count + 1) * 4, owner);
          if (type->id() == TypeId::kUtf8 || type->id() == TypeId::kBinary) {
            if (prev > 0) MINK_RETURN_IF_ERROR(need(2));
            return MakeData(type, count, null_count, {validity, offsets, View(a->buffers[2], prev, owner)});
          }
          MINK_ASSIGN_OR_RETURN(ArrayDataPtr child, CopyRange(a->children[0], type->child(0).type(), 0, prev,
                                                              depth + 1, owner));
          return MakeData(type, count, null_count, {validity, offsets}, {child});
        }
      }
      BufferBuilder offsets;
      offsets.Reserve((count + 1) * 4);
      int32_t first = 0;
      int32_t last = 0;
      if (count > 0) {
        MINK_RETURN_IF_ERROR(need(1));
        first = LoadI32(a->buffers[1], begin);
        int32_t prev = first;
        for (int64_t i = 0; i <= count; ++i) {
          int32_t cur = LoadI32(a->buffers[1], begin + i);
          if (cur < prev || cur < 0) return Invalid(type->ToString() + " array: bad offsets");
          offsets.UnsafeAppend<int32_t>(cur - first);
          prev = cur;
        }
        last = prev;
      } else {
        offsets.UnsafeAppend<int32_t>(0);
      }
      if (type->id() == TypeId::kUtf8 || type->id() == TypeId::kBinary) {
        if (last > first) MINK_RETURN_IF_ERROR(need(2));
        BufferPtr data =
            last > first
                ? Buffer::Copy(static_cast<const uint8_t*>(a->buffers[2]) + first, last - first)
                : Buffer::Empty();
        return MakeData(type, count, null_count, {validity, offsets.Finish(), data});
      }
      MINK_ASSIGN_OR_RETURN(ArrayDataPtr child, CopyRange(a->children[0], type->child(0).type(),
                                                          first, last - first, depth + 1, owner));
      return MakeData(type, count, null_count, {validity, offsets.Finish()}, {child});
    }
    case TypeId::kStruct: {
      std::vector<ArrayDataPtr> children;
      for (size_t i = 0; i < n_children; ++i) {
        MINK_ASSIGN_OR_RETURN(
            ArrayDataPtr child,
            CopyRange(a->children[i], type->children()[i].type(), begin, count, depth + 1, owner));
        children.push_back(std::move(child));
      }
      return MakeData(type, count, null_count, {validity}, std::move(children));
    }
    default: {
      const int w = type->byte_width();
      if (count > 0) MINK_RETURN_IF_ERROR(need(1));
      BufferPtr values = View(static_cast<const uint8_t*>(a->buffers[1]) + begin * w, count * w, owner);
      return MakeData(type, count, null_count, {validity, values});
    }
  }
}

// Moves `array` into an owner (the C data interface's move: the source is marked released).
Owner TakeArray(ArrowArray* array) {
  auto owned = std::make_shared<ImportedArray>();
  owned->array = *array;
  array->release = nullptr;
  return owned;
}

}  // namespace

Result<Field> ImportField(ArrowSchema* schema) {
  ReleaseGuard<ArrowSchema> guard{schema};
  return ParseField(schema, 0);
}

Result<SchemaPtr> ImportSchema(ArrowSchema* schema) {
  ReleaseGuard<ArrowSchema> guard{schema};
  MINK_ASSIGN_OR_RETURN(Field root, ParseField(schema, 0));
  if (root.type()->id() != TypeId::kStruct) {
    return Invalid("a schema must be a struct (\"+s\"), got " + root.type()->ToString());
  }
  return std::make_shared<const Schema>(root.type()->children(), root.metadata());
}

Result<ArrayDataPtr> ImportArray(ArrowArray* array, const DataTypePtr& type) {
  ReleaseGuard<ArrowArray> guard{array};
  if (array == nullptr || array->release == nullptr) return Invalid("array already released");
  if (!type) return Invalid("no type to import the array as");
  const Owner owner = TakeArray(array);
  MINK_ASSIGN_OR_RETURN(ArrayDataPtr data, CopyRange(&owner->array, type, 0, owner->array.length, 0, owner));
  MINK_RETURN_IF_ERROR(ValidateArrayData(*data));
  return data;
}

Result<RecordBatchPtr> ImportRecordBatch(ArrowArray* array, ArrowSchema* schema) {
  ReleaseGuard<ArrowArray> array_guard{array};
  MINK_ASSIGN_OR_RETURN(SchemaPtr imported_schema, ImportSchema(schema));
  if (array == nullptr || array->release == nullptr) return Invalid("array already released");
  DataTypePtr type = Struct(imported_schema->fields());
  const Owner owner = TakeArray(array);
  MINK_ASSIGN_OR_RETURN(ArrayDataPtr data, CopyRange(&owner->array, type, 0, owner->array.length, 0, owner));
  if (data->null_count != 0) return Invalid("a record batch struct array must not have nulls");
  MINK_RETURN_IF_ERROR(ValidateArrayData(*data));
  return RecordBatch::Make(std::move(imported_schema), data->length, data->children);
}

}  // namespace mink::arrow
