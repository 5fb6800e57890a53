#include "arrow_format/type.h"

#include <string>

namespace mink::arrow {
namespace {

const std::vector<Field>& NoChildren() {
  static const std::vector<Field> none;
  return none;
}

DataTypePtr MakeSimple(TypeId id) {
  return std::make_shared<const DataType>(id, DataType::Params{});
}

std::string_view SimpleName(TypeId id) {
  switch (id) {
    case TypeId::kNull:
      return "null";
    case TypeId::kBool:
      return "bool";
    case TypeId::kInt8:
      return "int8";
    case TypeId::kInt16:
      return "int16";
    case TypeId::kInt32:
      return "int32";
    case TypeId::kInt64:
      return "int64";
    case TypeId::kUInt8:
      return "uint8";
    case TypeId::kUInt16:
      return "uint16";
    case TypeId::kUInt32:
      return "uint32";
    case TypeId::kUInt64:
      return "uint64";
    case TypeId::kFloat32:
      return "float";
    case TypeId::kFloat64:
      return "double";
    case TypeId::kUtf8:
      return "string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kDate32:
      return "date32[day]";
    default:
      return "";
  }
}

}  // namespace

std::string_view TimeUnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return "s";
    case TimeUnit::kMilli:
      return "ms";
    case TimeUnit::kMicro:
      return "us";
    case TimeUnit::kNano:
      return "ns";
  }
  return "?";
}

// ---- Field

Field::Field(std::string name, DataTypePtr type, bool nullable, KeyValueMetadata metadata)
    : name_(std::move(name)),
      type_(std::move(type)),
      nullable_(nullable),
      metadata_(std::move(metadata)) {}

const std::vector<Field>& Field::children() const {
  return type_ ? type_->children() : NoChildren();
}

Field Field::WithName(std::string name) const {
  Field f = *this;
  f.name_ = std::move(name);
  return f;
}

Field Field::WithNullable(bool nullable) const {
  Field f = *this;
  f.nullable_ = nullable;
  return f;
}

Field Field::WithMetadata(KeyValueMetadata metadata) const {
  Field f = *this;
  f.metadata_ = std::move(metadata);
  return f;
}

bool Field::Equals(const Field& other, bool check_metadata) const {
  if (name_ != other.name_ || nullable_ != other.nullable_) return false;
  if (check_metadata && metadata_ != other.metadata_) return false;
  if (type_ == other.type_) return true;
  if (!type_ || !other.type_) return false;
  return type_->Equals(*other.type_, check_metadata);
}

std::string Field::ToString() const {
  std::string out = name_ + ": " + (type_ ? type_->ToString() : "<no type>");
  if (!nullable_) out += " not null";
  return out;
}

// ---- DataType

DataType::DataType(TypeId id, Params params)
    : id_(id),
      precision_(params.precision),
      scale_(params.scale),
      unit_(params.unit),
      timezone_(std::move(params.timezone)),
      keys_sorted_(params.keys_sorted),
      children_(std::move(params.children)) {}

int DataType::byte_width() const {
  switch (id_) {
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return 1;
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return 2;
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
    case TypeId::kTime32:
      return 4;
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
      return 8;
    case TypeId::kDecimal128:
      return 16;
    default:
      return 0;
  }
}

bool DataType::Equals(const DataType& other, bool check_metadata) const {
  if (this == &other) return true;
  if (id_ != other.id_) return false;
  switch (id_) {
    case TypeId::kDecimal128:
      return precision_ == other.precision_ && scale_ == other.scale_;
    case TypeId::kTime32:
    case TypeId::kTime64:
      return unit_ == other.unit_;
    case TypeId::kTimestamp:
      return unit_ == other.unit_ && timezone_ == other.timezone_;
    case TypeId::kMap:
      if (keys_sorted_ != other.keys_sorted_) return false;
      [[fallthrough]];
    case TypeId::kList:
    case TypeId::kStruct:
      if (children_.size() != other.children_.size()) return false;
      for (size_t i = 0; i < children_.size(); ++i) {
        if (!children_[i].Equals(other.children_[i], check_metadata)) return false;
      }
      return true;
    default:
      return true;
  }
}

std::string DataType::ToString() const {
  switch (id_) {
    case TypeId::kDecimal128:
      return "decimal128(" + std::to_string(precision_) + ", " + std::to_string(scale_) + ")";
    case TypeId::kTime32:
      return "time32[" + std::string(TimeUnitName(unit_)) + "]";
    case TypeId::kTime64:
      return "time64[" + std::string(TimeUnitName(unit_)) + "]";
    case TypeId::kTimestamp: {
      std::string out = "timestamp[" + std::string(TimeUnitName(unit_));
      if (!timezone_.empty()) out += ", tz=" + timezone_;
      return out + "]";
    }
    case TypeId::kList:
      return "list<" + children_[0].ToString() + ">";
    case TypeId::kMap: {
      const auto& kv = children_[0].type()->children();
      std::string out = "map<" + kv[0].type()->ToString() + ", " + kv[1].type()->ToString();
      if (keys_sorted_) out += ", keys_sorted";
      return out + ">";
    }
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < children_.size(); ++i) {
        if (i > 0) out += ", ";
        out += children_[i].ToString();
      }
      return out + ">";
    }
    default:
      return std::string(SimpleName(id_));
  }
}

// ---- Factories

#define MINK_ARROW_SINGLETON(Name, id)                      \
  const DataTypePtr& Name() {                               \
    static const DataTypePtr type = MakeSimple(TypeId::id); \
    return type;                                            \
  }
MINK_ARROW_SINGLETON(Null, kNull)
MINK_ARROW_SINGLETON(Bool, kBool)
MINK_ARROW_SINGLETON(Int8, kInt8)
MINK_ARROW_SINGLETON(Int16, kInt16)
MINK_ARROW_SINGLETON(Int32, kInt32)
MINK_ARROW_SINGLETON(Int64, kInt64)
MINK_ARROW_SINGLETON(UInt8, kUInt8)
MINK_ARROW_SINGLETON(UInt16, kUInt16)
MINK_ARROW_SINGLETON(UInt32, kUInt32)
MINK_ARROW_SINGLETON(UInt64, kUInt64)
MINK_ARROW_SINGLETON(Float32, kFloat32)
MINK_ARROW_SINGLETON(Float64, kFloat64)
MINK_ARROW_SINGLETON(Utf8, kUtf8)
MINK_ARROW_SINGLETON(Binary, kBinary)
MINK_ARROW_SINGLETON(Date32, kDate32)
#undef MINK_ARROW_SINGLETON

DataTypePtr Decimal128(int32_t precision, int32_t scale) {
  DataType::Params p;
  p.precision = precision;
  p.scale = scale;
  return std::make_shared<const DataType>(TypeId::kDecimal128, std::move(p));
}

Result<DataTypePtr> MakeDecimal128(int32_t precision, int32_t scale) {
  if (precision < 1 || precision > 38) {
    return InvalidArgumentError("decimal128 precision must be in [1, 38], got " +
                                std::to_string(precision));
  }
  if (scale > precision || scale < -precision) {
    return InvalidArgumentError("decimal128 scale " + std::to_string(scale) +
                                " is out of range for precision " + std::to_string(precision));
  }
  return Decimal128(precision, scale);
}

DataTypePtr Time(TimeUnit unit) {
  DataType::Params p;
  p.unit = unit;
  bool narrow = unit == TimeUnit::kSecond || unit == TimeUnit::kMilli;
  return std::make_shared<const DataType>(narrow ? TypeId::kTime32 : TypeId::kTime64, std::move(p));
}

DataTypePtr Timestamp(TimeUnit unit, std::string timezone) {
  DataType::Params p;
  p.unit = unit;
  p.timezone = std::move(timezone);
  return std::make_shared<const DataType>(TypeId::kTimestamp, std::move(p));
}

DataTypePtr List(DataTypePtr value_type) { return List(Field("item", std::move(value_type))); }

DataTypePtr List(Field item) {
  DataType::Params p;
  p.children.push_back(std::move(item));
  return std::make_shared<const DataType>(TypeId::kList, std::move(p));
}

DataTypePtr Map(DataTypePtr key_type, DataTypePtr item_type, bool keys_sorted) {
  Field entries("entries",
                Struct({Field("key", std::move(key_type), /*nullable=*/false),
                        Field("value", std::move(item_type))}),
                /*nullable=*/false);
  DataType::Params p;
  p.keys_sorted = keys_sorted;
  p.children.push_back(std::move(entries));
  return std::make_shared<const DataType>(TypeId::kMap, std::move(p));
}

Result<DataTypePtr> MakeMap(Field entries, bool keys_sorted) {
  if (!entries.type() || entries.type()->id() != TypeId::kStruct ||
      entries.type()->num_children() != 2) {
    return InvalidArgumentError("map entries must be a struct of two fields (key, value), got " +
                                entries.ToString());
  }
  DataType::Params p;
  p.keys_sorted = keys_sorted;
  p.children.push_back(std::move(entries));
  return std::make_shared<const DataType>(TypeId::kMap, std::move(p));
}

DataTypePtr Struct(std::vector<Field> fields) {
  DataType::Params p;
  p.children = std::move(fields);
  return std::make_shared<const DataType>(TypeId::kStruct, std::move(p));
}

// ---- Schema

Schema::Schema(std::vector<Field> fields, KeyValueMetadata metadata)
    : fields_(std::move(fields)), metadata_(std::move(metadata)) {}

int Schema::GetFieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name() == name) return static_cast<int>(i);
  }
  return -1;
}

bool Schema::Equals(const Schema& other, bool check_metadata) const {
  if (fields_.size() != other.fields_.size()) return false;
  if (check_metadata && metadata_ != other.metadata_) return false;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (!fields_[i].Equals(other.fields_[i], check_metadata)) return false;
  }
  return true;
}

std::string Schema::ToString() const {
  std::string out;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) out += "\n";
    out += fields_[i].ToString();
  }
  return out;
}

}  // namespace mink::arrow
