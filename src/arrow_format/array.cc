#include "arrow_format/array.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace mink::arrow {

Array::Array(ArrayDataPtr data) : data_(std::move(data)) {
  if (!data_ || !data_->type) {
    std::fprintf(stderr, "mink::arrow: array view over null data\n");
    std::abort();
  }
  if (data_->type->id() == TypeId::kNull) {
    all_null_ = true;
  } else if (!data_->buffers.empty() && data_->buffers[0] != nullptr) {
    validity_ = data_->buffers[0]->data();
  }
}

void Array::CheckPhysicalType(bool ok, const char* view_name) const {
  if (ok) return;
  std::fprintf(stderr, "mink::arrow: %s cannot read an array of type %s\n", view_name,
               data_->type->ToString().c_str());
  std::abort();
}

BooleanArray::BooleanArray(ArrayDataPtr data) : Array(std::move(data)) {
  CheckPhysicalType(data_->type->id() == TypeId::kBool, "BooleanArray");
  values_ = data_->buffers[1]->data();
}

Decimal128Array::Decimal128Array(ArrayDataPtr data) : Array(std::move(data)) {
  CheckPhysicalType(data_->type->id() == TypeId::kDecimal128, "Decimal128Array");
  values_ = data_->buffers[1]->data();
}

std::string Decimal128Array::FormatValue(int64_t i) const {
  return FormatDecimal(Value(i), data_->type->scale());
}

std::string Int128ToString(Int128 value) {
  if (value == 0) return "0";
  bool negative = value < 0;
  // Work on the magnitude as unsigned so that the minimum value does not overflow.
  unsigned __int128 magnitude =
      negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(value)
               : static_cast<unsigned __int128>(value);
  std::string digits;
  while (magnitude != 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string FormatDecimal(Int128 unscaled, int32_t scale) {
  std::string digits = Int128ToString(unscaled);
  if (scale <= 0) {
    if (unscaled != 0) digits.append(static_cast<size_t>(-scale), '0');
    return digits;
  }
  bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.erase(0, 1);
  if (digits.size() <= static_cast<size_t>(scale)) {
    digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
  }
  digits.insert(digits.size() - static_cast<size_t>(scale), 1, '.');
  if (negative) digits.insert(digits.begin(), '-');
  return digits;
}

BinaryArray::BinaryArray(ArrayDataPtr data) : Array(std::move(data)) {
  CheckPhysicalType(data_->type->id() == TypeId::kUtf8 || data_->type->id() == TypeId::kBinary,
                    "BinaryArray");
  offsets_ = data_->buffers[1]->data();
  data_bytes_ = reinterpret_cast<const char*>(data_->buffers[2]->data());
}

ListArray::ListArray(ArrayDataPtr data) : ListArray(std::move(data), false) {}

ListArray::ListArray(ArrayDataPtr data, bool is_map) : Array(std::move(data)) {
  CheckPhysicalType(data_->type->id() == (is_map ? TypeId::kMap : TypeId::kList),
                    is_map ? "MapArray" : "ListArray");
  offsets_ = data_->buffers[1]->data();
}

MapArray::MapArray(ArrayDataPtr data) : ListArray(std::move(data), true) {}

StructArray::StructArray(ArrayDataPtr data) : Array(std::move(data)) {
  CheckPhysicalType(data_->type->id() == TypeId::kStruct, "StructArray");
}

ArrayDataPtr StructArray::GetFieldByName(std::string_view name) const {
  const auto& fields = data_->type->children();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name() == name) return data_->children[i];
  }
  return nullptr;
}

}  // namespace mink::arrow
