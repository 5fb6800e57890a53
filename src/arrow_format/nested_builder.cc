#include "arrow_format/nested_builder.h"

#include <string>

namespace mink::arrow {
namespace {

constexpr int kMaxDepth = 64;

ArrayDataPtr MakeData(DataTypePtr type, int64_t length, int64_t null_count,
                      std::vector<BufferPtr> buffers, std::vector<ArrayDataPtr> children) {
  auto data = std::make_shared<ArrayData>();
  data->type = std::move(type);
  data->length = length;
  data->null_count = null_count;
  data->buffers = std::move(buffers);
  data->children = std::move(children);
  return data;
}

Status CheckOffsetRange(const DataType& type, int64_t child_length) {
  if (child_length > INT32_MAX) {
    return InvalidArgumentError(type.ToString() + " array has " + std::to_string(child_length) +
                                " child values, more than int32 offsets can address");
  }
  return Status::Ok();
}

Result<std::unique_ptr<ArrayBuilder>> Make(const DataTypePtr& type, int depth) {
  if (!type) return InvalidArgumentError("MakeBuilder: no type");
  if (depth > kMaxDepth) return InvalidArgumentError("MakeBuilder: type nested too deeply");
  std::unique_ptr<ArrayBuilder> out;
  switch (type->id()) {
    case TypeId::kNull:
      out = std::make_unique<NullBuilder>();
      break;
    case TypeId::kBool:
      out = std::make_unique<BooleanBuilder>();
      break;
    case TypeId::kInt8:
      out = std::make_unique<Int8Builder>(type);
      break;
    case TypeId::kInt16:
      out = std::make_unique<Int16Builder>(type);
      break;
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      out = std::make_unique<Int32Builder>(type);
      break;
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      out = std::make_unique<Int64Builder>(type);
      break;
    case TypeId::kUInt8:
      out = std::make_unique<UInt8Builder>(type);
      break;
    case TypeId::kUInt16:
      out = std::make_unique<UInt16Builder>(type);
      break;
    case TypeId::kUInt32:
      out = std::make_unique<UInt32Builder>(type);
      break;
    case TypeId::kUInt64:
      out = std::make_unique<UInt64Builder>(type);
      break;
    case TypeId::kFloat32:
      out = std::make_unique<FloatBuilder>(type);
      break;
    case TypeId::kFloat64:
      out = std::make_unique<DoubleBuilder>(type);
      break;
    case TypeId::kDecimal128:
      out = std::make_unique<Decimal128Builder>(type);
      break;
    case TypeId::kUtf8:
    case TypeId::kBinary:
      out = std::make_unique<BinaryBuilder>(type);
      break;
    case TypeId::kList: {
      MINK_ASSIGN_OR_RETURN(auto values, Make(type->child(0).type(), depth + 1));
      out = std::make_unique<ListBuilder>(type, std::move(values));
      break;
    }
    case TypeId::kMap: {
      const DataTypePtr& entries = type->child(0).type();
      MINK_ASSIGN_OR_RETURN(auto keys, Make(entries->child(0).type(), depth + 1));
      MINK_ASSIGN_OR_RETURN(auto items, Make(entries->child(1).type(), depth + 1));
      out = std::make_unique<MapBuilder>(type, std::move(keys), std::move(items));
      break;
    }
    case TypeId::kStruct: {
      std::vector<std::unique_ptr<ArrayBuilder>> fields;
      for (const Field& f : type->children()) {
        MINK_ASSIGN_OR_RETURN(auto child, Make(f.type(), depth + 1));
        fields.push_back(std::move(child));
      }
      out = std::make_unique<StructBuilder>(type, std::move(fields));
      break;
    }
  }
  if (!out) return InvalidArgumentError("MakeBuilder: unsupported type " + type->ToString());
  return out;
}

}  // namespace

Result<std::unique_ptr<ArrayBuilder>> MakeBuilder(const DataTypePtr& type) { return Make(type, 0); }

// ---- ListBuilder

ListBuilder::ListBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> value_builder)
    : ArrayBuilder(std::move(type)), values_(std::move(value_builder)) {
  CheckType(type_ && type_->id() == TypeId::kList && values_ &&
                values_->type()->Equals(*type_->child(0).type()),
            "ListBuilder");
}

void ListBuilder::Reserve(int64_t additional) {
  offsets_.Reserve(additional * 4);
  validity_.Reserve(additional);
}

Result<ArrayDataPtr> ListBuilder::Finish() {
  MINK_RETURN_IF_ERROR(CheckOffsetRange(*type_, values_->length()));
  offsets_.Append(static_cast<int32_t>(values_->length()));
  int64_t length = validity_.length();
  int64_t null_count = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  BufferPtr offsets = offsets_.Finish();
  MINK_ASSIGN_OR_RETURN(ArrayDataPtr values, values_->Finish());
  return MakeData(type_, length, null_count, {std::move(validity), std::move(offsets)},
                  {std::move(values)});
}

// ---- MapBuilder

MapBuilder::MapBuilder(DataTypePtr type, std::unique_ptr<ArrayBuilder> key_builder,
                       std::unique_ptr<ArrayBuilder> item_builder)
    : ArrayBuilder(std::move(type)),
      keys_(std::move(key_builder)),
      items_(std::move(item_builder)) {
  CheckType(type_ && type_->id() == TypeId::kMap && keys_ && items_ &&
                keys_->type()->Equals(*type_->child(0).type()->child(0).type()) &&
                items_->type()->Equals(*type_->child(0).type()->child(1).type()),
            "MapBuilder");
}

void MapBuilder::Reserve(int64_t additional) {
  offsets_.Reserve(additional * 4);
  validity_.Reserve(additional);
}

Result<ArrayDataPtr> MapBuilder::Finish() {
  const int64_t entries = keys_->length();
  if (items_->length() != entries) {
    return InvalidArgumentError(type_->ToString() + " builder has " + std::to_string(entries) +
                                " keys but " + std::to_string(items_->length()) + " values");
  }
  MINK_RETURN_IF_ERROR(CheckOffsetRange(*type_, entries));
  offsets_.Append(static_cast<int32_t>(entries));
  int64_t length = validity_.length();
  int64_t null_count = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  BufferPtr offsets = offsets_.Finish();
  MINK_ASSIGN_OR_RETURN(ArrayDataPtr keys, keys_->Finish());
  MINK_ASSIGN_OR_RETURN(ArrayDataPtr items, items_->Finish());
  ArrayDataPtr entry_data =
      MakeData(type_->child(0).type(), entries, 0, {nullptr}, {std::move(keys), std::move(items)});
  return MakeData(type_, length, null_count, {std::move(validity), std::move(offsets)},
                  {std::move(entry_data)});
}

// ---- StructBuilder

StructBuilder::StructBuilder(DataTypePtr type,
                             std::vector<std::unique_ptr<ArrayBuilder>> field_builders)
    : ArrayBuilder(std::move(type)), fields_(std::move(field_builders)) {
  bool ok = type_ && type_->id() == TypeId::kStruct &&
            fields_.size() == static_cast<size_t>(type_->num_children());
  for (size_t i = 0; ok && i < fields_.size(); ++i) {
    ok = fields_[i] && fields_[i]->type()->Equals(*type_->children()[i].type());
  }
  CheckType(ok, "StructBuilder");
}

void StructBuilder::AppendNull() {
  validity_.AppendNull();
  for (auto& f : fields_) f->AppendEmptyValue();
}

void StructBuilder::AppendEmptyValue() {
  validity_.AppendValid();
  for (auto& f : fields_) f->AppendEmptyValue();
}

void StructBuilder::Reserve(int64_t additional) {
  validity_.Reserve(additional);
  for (auto& f : fields_) f->Reserve(additional);
}

Result<ArrayDataPtr> StructBuilder::Finish() {
  const int64_t length = validity_.length();
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i]->length() != length) {
      return InvalidArgumentError(type_->ToString() + " builder has " + std::to_string(length) +
                                  " rows but field " + type_->children()[i].name() + " has " +
                                  std::to_string(fields_[i]->length()));
    }
  }
  int64_t null_count = validity_.null_count();
  BufferPtr validity = validity_.Finish();
  std::vector<ArrayDataPtr> children;
  children.reserve(fields_.size());
  for (auto& f : fields_) {
    MINK_ASSIGN_OR_RETURN(ArrayDataPtr child, f->Finish());
    children.push_back(std::move(child));
  }
  return MakeData(type_, length, null_count, {std::move(validity)}, std::move(children));
}

}  // namespace mink::arrow
