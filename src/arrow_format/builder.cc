#include "arrow_format/builder.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace mink::arrow {
namespace {

template <typename T>
const DataTypePtr& DefaultType();
template <>
const DataTypePtr& DefaultType<int8_t>() {
  return Int8();
}
template <>
const DataTypePtr& DefaultType<int16_t>() {
  return Int16();
}
template <>
const DataTypePtr& DefaultType<int32_t>() {
  return Int32();
}
template <>
const DataTypePtr& DefaultType<int64_t>() {
  return Int64();
}
template <>
const DataTypePtr& DefaultType<uint8_t>() {
  return UInt8();
}
template <>
const DataTypePtr& DefaultType<uint16_t>() {
  return UInt16();
}
template <>
const DataTypePtr& DefaultType<uint32_t>() {
  return UInt32();
}
template <>
const DataTypePtr& DefaultType<uint64_t>() {
  return UInt64();
}
template <>
const DataTypePtr& DefaultType<float>() {
  return Float32();
}
template <>
const DataTypePtr& DefaultType<double>() {
  return Float64();
}

template <typename T>
bool IsFloat() {
  return std::is_floating_point_v<T>;
}

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

}  // namespace

// ---- ValidityBuilder

void ValidityBuilder::Materialize() {
  materialized_ = true;
  bits_.Resize(bits::BytesForBits(length_));
  if (bits_.size() > 0) std::memset(bits_.mutable_data(), 0xFF, static_cast<size_t>(bits_.size()));
  // Bits at and after length_ in the last byte are cleared so that AppendBit can OR into it.
  for (int64_t i = length_; i < bits_.size() * 8; ++i) bits::ClearBit(bits_.mutable_data(), i);
}

BufferPtr ValidityBuilder::Finish() {
  BufferPtr out = null_count_ > 0 ? bits_.Finish() : nullptr;
  bits_.Reset();
  length_ = 0;
  null_count_ = 0;
  materialized_ = false;
  return out;
}

// ---- ArrayBuilder

ArrayBuilder::ArrayBuilder(DataTypePtr type) : type_(std::move(type)) {}

void ArrayBuilder::CheckType(bool ok, const char* builder_name) const {
  if (ok) return;
  std::fprintf(stderr, "mink::arrow: %s cannot build type %s\n", builder_name,
               type_ ? type_->ToString().c_str() : "<null>");
  std::abort();
}

// ---- NullBuilder

NullBuilder::NullBuilder() : ArrayBuilder(Null()) {}

Result<ArrayDataPtr> NullBuilder::Finish() {
  int64_t length = validity_.length();
  (void)validity_.Finish();
  return MakeData(type_, length, length, {});
}

// ---- BooleanBuilder

BooleanBuilder::BooleanBuilder() : ArrayBuilder(Bool()) {}

void BooleanBuilder::Reserve(int64_t additional) {
  values_.Reserve(bits::BytesForBits(length() + additional) - values_.size());
  validity_.Reserve(additional);
}

Result<ArrayDataPtr> BooleanBuilder::Finish() {
  int64_t length = validity_.length();
  int64_t null_count = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  return MakeData(type_, length, null_count, {std::move(validity), values_.Finish()});
}

// ---- NumericBuilder

template <typename T>
NumericBuilder<T>::NumericBuilder() : ArrayBuilder(DefaultType<T>()) {}

template <typename T>
NumericBuilder<T>::NumericBuilder(DataTypePtr type) : ArrayBuilder(std::move(type)) {
  CheckType(
      type_ && type_->byte_width() == static_cast<int>(sizeof(T)) &&
          type_->id() != TypeId::kDecimal128 &&
          ((type_->id() == TypeId::kFloat32 || type_->id() == TypeId::kFloat64) == IsFloat<T>()),
      "NumericBuilder");
}

template <typename T>
Result<ArrayDataPtr> NumericBuilder<T>::Finish() {
  int64_t length = validity_.length();
  int64_t null_count = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  return MakeData(type_, length, null_count, {std::move(validity), values_.Finish()});
}

template class NumericBuilder<int8_t>;
template class NumericBuilder<int16_t>;
template class NumericBuilder<int32_t>;
template class NumericBuilder<int64_t>;
template class NumericBuilder<uint8_t>;
template class NumericBuilder<uint16_t>;
template class NumericBuilder<uint32_t>;
template class NumericBuilder<uint64_t>;
template class NumericBuilder<float>;
template class NumericBuilder<double>;

// ---- Decimal128Builder

Decimal128Builder::Decimal128Builder(DataTypePtr type) : ArrayBuilder(std::move(type)) {
  CheckType(type_ && type_->id() == TypeId::kDecimal128, "Decimal128Builder");
}

Result<ArrayDataPtr> Decimal128Builder::Finish() {
  int64_t length = validity_.length();
  int64_t null_count = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  return MakeData(type_, length, null_count, {std::move(validity), values_.Finish()});
}

// ---- BinaryBuilder

BinaryBuilder::BinaryBuilder(DataTypePtr type) : ArrayBuilder(std::move(type)) {
  CheckType(type_ && (type_->id() == TypeId::kUtf8 || type_->id() == TypeId::kBinary),
            "BinaryBuilder");
  offsets_.Append(int32_t{0});
}

Status BinaryBuilder::Overflow() const {
  return InvalidArgumentError(type_->ToString() + " array data would exceed 2 GiB (" +
                              std::to_string(data_.size()) + " bytes so far)");
}

Result<ArrayDataPtr> BinaryBuilder::Finish() {
  int64_t length = validity_.length();
  int64_t null_count = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  ArrayDataPtr out =
      MakeData(type_, length, null_count, {std::move(validity), offsets_.Finish(), data_.Finish()});
  offsets_.Append(int32_t{0});
  return out;
}

}  // namespace mink::arrow
