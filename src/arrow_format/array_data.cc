#include "arrow_format/array_data.h"

#include <cstring>
#include <string>

#include "arrow_format/bit_util.h"

namespace mink::arrow {
namespace {

constexpr int kMaxDepth = 64;

Status Invalid(const ArrayData& data, const std::string& what) {
  return InvalidArgumentError(data.type->ToString() + " array of length " +
                              std::to_string(data.length) + ": " + what);
}

int32_t LoadOffset(const Buffer& offsets, int64_t i) {
  int32_t v;
  std::memcpy(&v, offsets.data() + i * 4, 4);
  return v;
}

// Offsets: length + 1 int32 values, first >= 0, non-decreasing, last <= limit.
Status ValidateOffsets(const ArrayData& data, const BufferPtr& offsets, int64_t limit,
                       const char* limit_name) {
  if (!offsets) return Invalid(data, "missing offsets buffer");
  if (data.length > offsets->size() / 4 - 1) {
    return Invalid(data, "offsets buffer has " + std::to_string(offsets->size()) +
                             " bytes, too few for " + std::to_string(data.length) + " values");
  }
  int32_t prev = LoadOffset(*offsets, 0);
  if (prev < 0) return Invalid(data, "first offset is negative");
  for (int64_t i = 1; i <= data.length; ++i) {
    int32_t cur = LoadOffset(*offsets, i);
    if (cur < prev) {
      return Invalid(data, "offsets decrease at index " + std::to_string(i));
    }
    prev = cur;
  }
  if (prev > limit) {
    return Invalid(data, "last offset " + std::to_string(prev) + " is beyond the " + limit_name +
                             " (" + std::to_string(limit) + ")");
  }
  return Status::Ok();
}

Status ValidateBufferSize(const ArrayData& data, int index, int64_t needed, const char* name) {
  const BufferPtr& b = data.buffers[static_cast<size_t>(index)];
  if (!b) return Invalid(data, std::string("missing ") + name + " buffer");
  if (b->size() < needed) {
    return Invalid(data, std::string(name) + " buffer has " + std::to_string(b->size()) +
                             " bytes, needs " + std::to_string(needed));
  }
  return Status::Ok();
}

size_t ExpectedChildren(const DataType& type) {
  switch (type.id()) {
    case TypeId::kList:
    case TypeId::kMap:
      return 1;
    case TypeId::kStruct:
      return type.children().size();
    default:
      return 0;
  }
}

Status Validate(const ArrayData& data, int depth) {
  if (!data.type) return InvalidArgumentError("array has no type");
  if (depth > kMaxDepth) return Invalid(data, "nested deeper than 64 levels");
  const DataType& type = *data.type;
  if (data.length < 0) return Invalid(data, "negative length");
  if (data.null_count < 0 || data.null_count > data.length) {
    return Invalid(data, "null_count " + std::to_string(data.null_count) + " is out of range");
  }
  const int expected_buffers = NumBuffers(type.id());
  if (static_cast<int>(data.buffers.size()) != expected_buffers) {
    return Invalid(data, "has " + std::to_string(data.buffers.size()) + " buffers, expected " +
                             std::to_string(expected_buffers));
  }
  if (data.children.size() != ExpectedChildren(type)) {
    return Invalid(data, "has " + std::to_string(data.children.size()) + " children, expected " +
                             std::to_string(ExpectedChildren(type)));
  }
  if (type.id() == TypeId::kNull) {
    if (data.null_count != data.length) return Invalid(data, "null_count must equal length");
    return Status::Ok();
  }
  // Validity.
  const BufferPtr& validity = data.buffers[0];
  if (validity) {
    if (validity->size() < bits::BytesForBits(data.length)) {
      return Invalid(data, "validity bitmap has " + std::to_string(validity->size()) +
                               " bytes, needs " + std::to_string(bits::BytesForBits(data.length)));
    }
    int64_t nulls = data.length - bits::CountSetBits(validity->data(), 0, data.length);
    if (nulls != data.null_count) {
      return Invalid(data, "null_count " + std::to_string(data.null_count) +
                               " does not match the validity bitmap (" + std::to_string(nulls) +
                               " nulls)");
    }
  } else if (data.null_count != 0) {
    return Invalid(data, "null_count is " + std::to_string(data.null_count) +
                             " but there is no validity bitmap");
  }

  switch (type.id()) {
    case TypeId::kBool:
      return ValidateBufferSize(data, 1, bits::BytesForBits(data.length), "values");
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      if (!data.buffers[2]) return Invalid(data, "missing data buffer");
      return ValidateOffsets(data, data.buffers[1], data.buffers[2]->size(), "data buffer size");
    }
    case TypeId::kList:
    case TypeId::kMap: {
      const ArrayData* child = data.children[0].get();
      if (!child || !child->type) return Invalid(data, "missing child array");
      if (!child->type->Equals(*type.child(0).type())) {
        return Invalid(data, "child type " + child->type->ToString() + " does not match");
      }
      MINK_RETURN_IF_ERROR(ValidateOffsets(data, data.buffers[1], child->length, "child length"));
      if (type.id() == TypeId::kMap && child->null_count != 0) {
        return Invalid(data, "map entries must not be null");
      }
      return Validate(*child, depth + 1);
    }
    case TypeId::kStruct: {
      for (size_t i = 0; i < data.children.size(); ++i) {
        const ArrayData* child = data.children[i].get();
        if (!child || !child->type) return Invalid(data, "missing child array");
        if (!child->type->Equals(*type.children()[i].type())) {
          return Invalid(data,
                         "child " + std::to_string(i) + " has type " + child->type->ToString());
        }
        if (child->length != data.length) {
          return Invalid(data, "child " + type.children()[i].name() + " has length " +
                                   std::to_string(child->length));
        }
        MINK_RETURN_IF_ERROR(Validate(*child, depth + 1));
      }
      return Status::Ok();
    }
    default: {
      const int width = type.byte_width();
      if (width == 0) return Invalid(data, "unsupported type");
      if (data.length > INT64_MAX / width) return Invalid(data, "length overflows");
      return ValidateBufferSize(data, 1, data.length * width, "values");
    }
  }
}

bool SlotEquals(const ArrayData& a, const ArrayData& b, int64_t i, int64_t j);

bool ChildRangeEquals(const ArrayData& a, const ArrayData& b, int64_t ai, int64_t bi, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    if (!SlotEquals(a, b, ai + k, bi + k)) return false;
  }
  return true;
}

bool IsNullAt(const ArrayData& a, int64_t i) {
  if (a.type->id() == TypeId::kNull) return true;
  return a.buffers[0] && !bits::GetBit(a.buffers[0]->data(), i);
}

bool SlotEquals(const ArrayData& a, const ArrayData& b, int64_t i, int64_t j) {
  bool an = IsNullAt(a, i);
  bool bn = IsNullAt(b, j);
  if (an || bn) return an == bn;
  switch (a.type->id()) {
    case TypeId::kBool:
      return bits::GetBit(a.buffers[1]->data(), i) == bits::GetBit(b.buffers[1]->data(), j);
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      int32_t a0 = LoadOffset(*a.buffers[1], i), a1 = LoadOffset(*a.buffers[1], i + 1);
      int32_t b0 = LoadOffset(*b.buffers[1], j), b1 = LoadOffset(*b.buffers[1], j + 1);
      return a1 - a0 == b1 - b0 && std::memcmp(a.buffers[2]->data() + a0, b.buffers[2]->data() + b0,
                                               static_cast<size_t>(a1 - a0)) == 0;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      int32_t a0 = LoadOffset(*a.buffers[1], i), a1 = LoadOffset(*a.buffers[1], i + 1);
      int32_t b0 = LoadOffset(*b.buffers[1], j), b1 = LoadOffset(*b.buffers[1], j + 1);
      return a1 - a0 == b1 - b0 &&
             ChildRangeEquals(*a.children[0], *b.children[0], a0, b0, a1 - a0);
    }
    case TypeId::kStruct:
      for (size_t c = 0; c < a.children.size(); ++c) {
        if (!SlotEquals(*a.children[c], *b.children[c], i, j)) return false;
      }
      return true;
    default: {
      const int w = a.type->byte_width();
      return std::memcmp(a.buffers[1]->data() + i * w, b.buffers[1]->data() + j * w,
                         static_cast<size_t>(w)) == 0;
    }
  }
}

}  // namespace

int NumBuffers(TypeId id) {
  switch (id) {
    case TypeId::kNull:
      return 0;
    case TypeId::kStruct:
      return 1;
    case TypeId::kUtf8:
    case TypeId::kBinary:
      return 3;
    default:
      return 2;
  }
}

Status ValidateArrayData(const ArrayData& data) { return Validate(data, 0); }

bool ArrayDataEquals(const ArrayData& a, const ArrayData& b) {
  if (!a.type || !b.type || !a.type->Equals(*b.type)) return false;
  if (a.length != b.length || a.null_count != b.null_count) return false;
  for (int64_t i = 0; i < a.length; ++i) {
    if (!SlotEquals(a, b, i, i)) return false;
  }
  return true;
}

}  // namespace mink::arrow
