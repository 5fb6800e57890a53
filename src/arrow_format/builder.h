#pragma once
// Builders: append values one at a time (amortised growth, no heap allocation per value), then
// Finish() into an immutable ArrayData. A validity bitmap is only materialised once the first
// null is appended. Finish() leaves the builder empty and ready for reuse. Builders are not
// thread-safe; the arrays they produce are.
//
// Usage:
//   Int64Builder b;
//   b.Reserve(n);
//   b.Append(42);
//   b.AppendNull();
//   MINK_ASSIGN_OR_RETURN(ArrayDataPtr array, b.Finish());
//
// Nested builders (ListBuilder, MapBuilder, StructBuilder) are in nested_builder.h; MakeBuilder
// creates the right builder for any type.

#include <cstdint>
#include <memory>
#include <string_view>

#include "arrow_format/array.h"
#include "arrow_format/array_data.h"
#include "arrow_format/bit_util.h"
#include "arrow_format/buffer.h"
#include "arrow_format/type.h"
#include "base/result.h"

namespace mink::arrow {

// Length, null count and (once a null appears) the validity bitmap of a builder.
class ValidityBuilder {
 public:
  int64_t length() const { return length_; }
  int64_t null_count() const { return null_count_; }

  void AppendValid() {
    if (materialized_) AppendBit(true);
    ++length_;
  }
  void AppendValid(int64_t n) {
    if (materialized_) {
      for (int64_t i = 0; i < n; ++i) AppendValid();
    } else {
      length_ += n;
    }
  }
  void AppendNull() {
    if (!materialized_) Materialize();
    AppendBit(false);
    ++length_;
    ++null_count_;
  }
  // Counts nulls without a bitmap (for the null type, whose every slot is null).
  void CountNulls(int64_t n) {
    length_ += n;
    null_count_ += n;
  }
  void Reserve(int64_t additional) {
    if (materialized_) bits_.Reserve(bits::BytesForBits(length_ + additional) - bits_.size());
  }
  // The bitmap, or null when there was no null. Resets.
  BufferPtr Finish();

 private:
  void AppendBit(bool valid) {
    if ((length_ & 7) == 0) bits_.Append<uint8_t>(0);
    if (valid) bits::SetBit(bits_.mutable_data(), length_);
  }
  void Materialize();

  int64_t length_ = 0;
  int64_t null_count_ = 0;
  bool materialized_ = false;
  BufferBuilder bits_;
};

class ArrayBuilder {
 public:
  virtual ~ArrayBuilder() = default;
  ArrayBuilder(const ArrayBuilder&) = delete;
  ArrayBuilder& operator=(const ArrayBuilder&) = delete;

  const DataTypePtr& type() const { return type_; }
  int64_t length() const { return validity_.length(); }
  int64_t null_count() const { return validity_.null_count(); }

  virtual void AppendNull() = 0;
  void AppendNulls(int64_t n) {
    for (int64_t i = 0; i < n; ++i) AppendNull();
  }
  // A valid "zero" value: 0, false, "", an empty list or map, a struct of empty values.
  virtual void AppendEmptyValue() = 0;
  // Makes room for `additional` more values (and, for nested types, nothing below them).
  virtual void Reserve(int64_t additional) = 0;
  // The array built so far; the builder is left empty. Fails when the content cannot form a
  // valid array (data beyond 2 GiB for int32 offsets, child lengths that disagree).
  virtual Result<ArrayDataPtr> Finish() = 0;

 protected:
  explicit ArrayBuilder(DataTypePtr type);
  // Aborts with a message when a builder is constructed for a type it cannot build.
  void CheckType(bool ok, const char* builder_name) const;

  DataTypePtr type_;
  ValidityBuilder validity_;
};

class NullBuilder final : public ArrayBuilder {
 public:
  NullBuilder();
  void AppendNull() override { validity_.CountNulls(1); }
  void AppendEmptyValue() override { validity_.CountNulls(1); }
  void Reserve(int64_t) override {}
  Result<ArrayDataPtr> Finish() override;
};

class BooleanBuilder final : public ArrayBuilder {
 public:
  BooleanBuilder();
  void Append(bool value) {
    if ((length() & 7) == 0) values_.Append<uint8_t>(0);
    if (value) bits::SetBit(values_.mutable_data(), length());
    validity_.AppendValid();
  }
  void AppendNull() override {
    if ((length() & 7) == 0) values_.Append<uint8_t>(0);
    validity_.AppendNull();
  }
  void AppendEmptyValue() override { Append(false); }
  void Reserve(int64_t additional) override;
  Result<ArrayDataPtr> Finish() override;

 private:
  BufferBuilder values_;
};

// Fixed-width values. The default type follows T (int64_t -> int64, double -> float64, ...);
// pass the type for date32, time32/64 and timestamp (Date32Builder b(Date32());).
template <typename T>
class NumericBuilder final : public ArrayBuilder {
 public:
  NumericBuilder();
  explicit NumericBuilder(DataTypePtr type);

  void Append(T value) {
    values_.Append(value);
    validity_.AppendValid();
  }
  void AppendValues(const T* values, int64_t n) {
    values_.Append(values, n * static_cast<int64_t>(sizeof(T)));
    validity_.AppendValid(n);
  }
  void AppendNull() override {
    values_.Append(T{});
    validity_.AppendNull();
  }
  void AppendEmptyValue() override { Append(T{}); }
  void Reserve(int64_t additional) override {
    values_.Reserve(additional * static_cast<int64_t>(sizeof(T)));
    validity_.Reserve(additional);
  }
  Result<ArrayDataPtr> Finish() override;

 private:
  BufferBuilder values_;
};

using Int8Builder = NumericBuilder<int8_t>;
using Int16Builder = NumericBuilder<int16_t>;
using Int32Builder = NumericBuilder<int32_t>;
using Int64Builder = NumericBuilder<int64_t>;
using UInt8Builder = NumericBuilder<uint8_t>;
using UInt16Builder = NumericBuilder<uint16_t>;
using UInt32Builder = NumericBuilder<uint32_t>;
using UInt64Builder = NumericBuilder<uint64_t>;
using FloatBuilder = NumericBuilder<float>;
using DoubleBuilder = NumericBuilder<double>;
using Date32Builder = NumericBuilder<int32_t>;     // construct with Date32()
using Time32Builder = NumericBuilder<int32_t>;     // construct with Time(kSecond or kMilli)
using Time64Builder = NumericBuilder<int64_t>;     // construct with Time(kMicro or kNano)
using TimestampBuilder = NumericBuilder<int64_t>;  // construct with Timestamp(unit, tz)

class Decimal128Builder final : public ArrayBuilder {
 public:
  explicit Decimal128Builder(DataTypePtr type);
  // The unscaled value (123.45 at scale 2 is 12345).
  void Append(Int128 unscaled) {
    values_.Append(unscaled);
    validity_.AppendValid();
  }
  void AppendNull() override {
    values_.Append(Int128{0});
    validity_.AppendNull();
  }
  void AppendEmptyValue() override { Append(0); }
  void Reserve(int64_t additional) override {
    values_.Reserve(additional * 16);
    validity_.Reserve(additional);
  }
  Result<ArrayDataPtr> Finish() override;

 private:
  BufferBuilder values_;
};

// utf8 (the default) and binary. Values are not checked to be UTF-8.
class BinaryBuilder final : public ArrayBuilder {
 public:
  static constexpr int64_t kMaxDataSize = INT32_MAX;

  explicit BinaryBuilder(DataTypePtr type = Utf8());

  // Fails only when the data would pass 2 GiB (int32 offsets).
  Status Append(std::string_view value) {
    const auto n = static_cast<int64_t>(value.size());
    if (n > kMaxDataSize - data_.size()) return Overflow();
    data_.Reserve(n);
    data_.UnsafeAppendBytes(value.data(), n);
    offsets_.Append(static_cast<int32_t>(data_.size()));
    validity_.AppendValid();
    return Status::Ok();
  }
  void AppendNull() override {
    offsets_.Append(static_cast<int32_t>(data_.size()));
    validity_.AppendNull();
  }
  void AppendEmptyValue() override {
    offsets_.Append(static_cast<int32_t>(data_.size()));
    validity_.AppendValid();
  }
  void Reserve(int64_t additional) override {
    offsets_.Reserve(additional * 4);
    validity_.Reserve(additional);
  }
  // Makes room for `bytes` more bytes of value data.
  void ReserveData(int64_t bytes) { data_.Reserve(bytes); }
  int64_t data_size() const { return data_.size(); }
  Result<ArrayDataPtr> Finish() override;

 private:
  Status Overflow() const;

  BufferBuilder offsets_;
  BufferBuilder data_;
};
using StringBuilder = BinaryBuilder;

}  // namespace mink::arrow
