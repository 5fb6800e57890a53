#pragma once
// Typed read-only views of an ArrayData. A view holds a shared_ptr to its data, so it stays
// valid on its own; it is cheap to create and as thread-safe as the immutable data it reads.
//
// A view's type must match the array's (e.g. Int64Array over int64, timestamp or time64 data);
// constructing a view over the wrong physical type is a programming error and aborts.
// Index arguments are not range-checked: 0 <= i < length().

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "arrow_format/array_data.h"
#include "arrow_format/bit_util.h"

namespace mink::arrow {

__extension__ typedef __int128 Int128;  // decimal128 unscaled values

class Array {
 public:
  explicit Array(ArrayDataPtr data);

  const ArrayDataPtr& data() const { return data_; }
  const DataTypePtr& type() const { return data_->type; }
  int64_t length() const { return data_->length; }
  int64_t null_count() const { return data_->null_count; }

  bool IsNull(int64_t i) const {
    return all_null_ || (validity_ != nullptr && !bits::GetBit(validity_, i));
  }
  bool IsValid(int64_t i) const { return !IsNull(i); }

 protected:
  // Aborts with a message naming both types when the data is not of a type the view reads.
  void CheckPhysicalType(bool ok, const char* view_name) const;

  ArrayDataPtr data_;
  const uint8_t* validity_ = nullptr;
  bool all_null_ = false;
};

// Fixed-width values: integers, floats, date32, time32/64, timestamp.
template <typename T>
class NumericArray : public Array {
 public:
  explicit NumericArray(ArrayDataPtr data) : Array(std::move(data)) {
    CheckPhysicalType(
        data_->type->byte_width() == sizeof(T) && data_->type->id() != TypeId::kDecimal128,
        "NumericArray");
    values_ = data_->buffers[1]->template data_as<T>();
  }
  T Value(int64_t i) const { return values_[i]; }
  const T* raw_values() const { return values_; }

 private:
  const T* values_;
};

using Int8Array = NumericArray<int8_t>;
using Int16Array = NumericArray<int16_t>;
using Int32Array = NumericArray<int32_t>;
using Int64Array = NumericArray<int64_t>;
using UInt8Array = NumericArray<uint8_t>;
using UInt16Array = NumericArray<uint16_t>;
using UInt32Array = NumericArray<uint32_t>;
using UInt64Array = NumericArray<uint64_t>;
using FloatArray = NumericArray<float>;
using DoubleArray = NumericArray<double>;
using Date32Array = NumericArray<int32_t>;     // days since 1970-01-01
using Time32Array = NumericArray<int32_t>;     // seconds or milliseconds since midnight
using Time64Array = NumericArray<int64_t>;     // micro- or nanoseconds since midnight
using TimestampArray = NumericArray<int64_t>;  // type()->unit() since the epoch

class BooleanArray : public Array {
 public:
  explicit BooleanArray(ArrayDataPtr data);
  bool Value(int64_t i) const { return bits::GetBit(values_, i); }

 private:
  const uint8_t* values_;
};

class Decimal128Array : public Array {
 public:
  explicit Decimal128Array(ArrayDataPtr data);
  // The unscaled value; the number is Value(i) * 10^-scale.
  Int128 Value(int64_t i) const {
    Int128 v;
    std::memcpy(&v, values_ + i * 16, 16);
    return v;
  }
  // "10.50" for unscaled 1050 at scale 2.
  std::string FormatValue(int64_t i) const;

 private:
  const uint8_t* values_;
};

// Decimal text of an unscaled value: FormatDecimal(-5, 2) == "-0.05".
std::string FormatDecimal(Int128 unscaled, int32_t scale);
std::string Int128ToString(Int128 value);

// utf8 and binary.
class BinaryArray : public Array {
 public:
  explicit BinaryArray(ArrayDataPtr data);
  std::string_view GetView(int64_t i) const {
    int32_t begin = offset(i);
    return std::string_view(data_bytes_ + begin, static_cast<size_t>(offset(i + 1) - begin));
  }
  std::string GetString(int64_t i) const { return std::string(GetView(i)); }
  int32_t value_offset(int64_t i) const { return offset(i); }
  int32_t value_length(int64_t i) const { return offset(i + 1) - offset(i); }

 private:
  int32_t offset(int64_t i) const {
    int32_t v;
    std::memcpy(&v, offsets_ + i * 4, 4);
    return v;
  }
  const uint8_t* offsets_;
  const char* data_bytes_;
};
using StringArray = BinaryArray;

// list<T>: element i is values()[value_offset(i), value_offset(i) + value_length(i)).
class ListArray : public Array {
 public:
  explicit ListArray(ArrayDataPtr data);
  int32_t value_offset(int64_t i) const {
    int32_t v;
    std::memcpy(&v, offsets_ + i * 4, 4);
    return v;
  }
  int32_t value_length(int64_t i) const { return value_offset(i + 1) - value_offset(i); }
  const ArrayDataPtr& values() const { return data_->children[0]; }

 protected:
  ListArray(ArrayDataPtr data, bool is_map);

 private:
  const uint8_t* offsets_;
};

// map<K, V>: a list of entries; keys() and items() are the entries' two children.
class MapArray : public ListArray {
 public:
  explicit MapArray(ArrayDataPtr data);
  const ArrayDataPtr& entries() const { return values(); }
  const ArrayDataPtr& keys() const { return values()->children[0]; }
  const ArrayDataPtr& items() const { return values()->children[1]; }
};

class StructArray : public Array {
 public:
  explicit StructArray(ArrayDataPtr data);
  int num_fields() const { return static_cast<int>(data_->children.size()); }
  const ArrayDataPtr& field(int i) const { return data_->children[static_cast<size_t>(i)]; }
  // The child with this name, or null.
  ArrayDataPtr GetFieldByName(std::string_view name) const;
};

}  // namespace mink::arrow
