#pragma once
// Logical types, fields and schemas of Mink's Arrow subset.
//
// A DataType is immutable and shared as DataTypePtr (shared_ptr<const DataType>). Nested types
// (list, map, struct) hold their child Fields. Parameterless types are singletons, so comparing
// pointers is a fast path, but Equals() is the definition of type equality.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace mink::arrow {

enum class TypeId : uint8_t {
  kNull,
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat32,
  kFloat64,
  kDecimal128,  // 16-byte two's complement unscaled value
  kUtf8,        // int32 offsets
  kBinary,      // int32 offsets
  kDate32,      // int32 days since the epoch
  kTime32,      // int32, unit second or millisecond
  kTime64,      // int64, unit microsecond or nanosecond
  kTimestamp,   // int64 in `unit` since the epoch, optional time zone
  kList,        // child "item"
  kMap,         // child "entries": non-null struct<key non-null, value>
  kStruct,
};

enum class TimeUnit : uint8_t { kSecond, kMilli, kMicro, kNano };

// "s", "ms", "us", "ns".
std::string_view TimeUnitName(TimeUnit unit);

using KeyValueMetadata = std::vector<std::pair<std::string, std::string>>;

class DataType;
using DataTypePtr = std::shared_ptr<const DataType>;

class Field {
 public:
  Field() = default;
  Field(std::string name, DataTypePtr type, bool nullable = true, KeyValueMetadata metadata = {});

  const std::string& name() const { return name_; }
  const DataTypePtr& type() const { return type_; }
  bool nullable() const { return nullable_; }
  const KeyValueMetadata& metadata() const { return metadata_; }
  // The child fields of a nested type (empty for other types).
  const std::vector<Field>& children() const;

  Field WithName(std::string name) const;
  Field WithNullable(bool nullable) const;
  Field WithMetadata(KeyValueMetadata metadata) const;

  bool Equals(const Field& other, bool check_metadata = true) const;
  // "name: type" or "name: type not null".
  std::string ToString() const;

 private:
  std::string name_;
  DataTypePtr type_;
  bool nullable_ = true;
  KeyValueMetadata metadata_;
};

class DataType {
 public:
  TypeId id() const { return id_; }

  // kDecimal128.
  int32_t precision() const { return precision_; }
  int32_t scale() const { return scale_; }
  // kTime32, kTime64, kTimestamp.
  TimeUnit unit() const { return unit_; }
  // kTimestamp: empty means time-zone naive.
  const std::string& timezone() const { return timezone_; }
  // kMap.
  bool keys_sorted() const { return keys_sorted_; }

  // kList: [item]; kMap: [entries]; kStruct: the struct fields.
  const std::vector<Field>& children() const { return children_; }
  int num_children() const { return static_cast<int>(children_.size()); }
  const Field& child(int i) const { return children_[static_cast<size_t>(i)]; }

  // Width in bytes of a fixed-width value (0 for bool, null and variable-width types).
  int byte_width() const;
  bool is_nested() const {
    return id_ == TypeId::kList || id_ == TypeId::kMap || id_ == TypeId::kStruct;
  }

  bool Equals(const DataType& other, bool check_metadata = true) const;
  // Arrow C++ style: "int64", "timestamp[ms, tz=UTC]", "list<item: string>", ...
  std::string ToString() const;

  // Use the factory functions below. Public only for make_shared.
  struct Params {
    int32_t precision = 0;
    int32_t scale = 0;
    TimeUnit unit = TimeUnit::kSecond;
    std::string timezone;
    bool keys_sorted = false;
    std::vector<Field> children;
  };
  DataType(TypeId id, Params params);

 private:
  TypeId id_;
  int32_t precision_;
  int32_t scale_;
  TimeUnit unit_;
  std::string timezone_;
  bool keys_sorted_;
  std::vector<Field> children_;
};

inline bool operator==(const DataType& a, const DataType& b) { return a.Equals(b); }
inline bool operator==(const Field& a, const Field& b) { return a.Equals(b); }

// Parameterless types (shared singletons).
const DataTypePtr& Null();
const DataTypePtr& Bool();
const DataTypePtr& Int8();
const DataTypePtr& Int16();
const DataTypePtr& Int32();
const DataTypePtr& Int64();
const DataTypePtr& UInt8();
const DataTypePtr& UInt16();
const DataTypePtr& UInt32();
const DataTypePtr& UInt64();
const DataTypePtr& Float32();
const DataTypePtr& Float64();
const DataTypePtr& Utf8();
const DataTypePtr& Binary();
const DataTypePtr& Date32();

// Precondition 1 <= precision <= 38 (MakeDecimal128 checks it).
DataTypePtr Decimal128(int32_t precision, int32_t scale);
Result<DataTypePtr> MakeDecimal128(int32_t precision, int32_t scale);
// time32 for seconds and milliseconds, time64 for micro- and nanoseconds.
DataTypePtr Time(TimeUnit unit);
DataTypePtr Timestamp(TimeUnit unit, std::string timezone = "");
// list<item: value_type> (nullable items).
DataTypePtr List(DataTypePtr value_type);
DataTypePtr List(Field item);
// map<entries: struct<key: key_type not null, value: item_type>>.
DataTypePtr Map(DataTypePtr key_type, DataTypePtr item_type, bool keys_sorted = false);
// From an explicit entries field; checks it is a struct of two fields.
Result<DataTypePtr> MakeMap(Field entries, bool keys_sorted = false);
DataTypePtr Struct(std::vector<Field> fields);

class Schema {
 public:
  explicit Schema(std::vector<Field> fields, KeyValueMetadata metadata = {});

  const std::vector<Field>& fields() const { return fields_; }
  int num_fields() const { return static_cast<int>(fields_.size()); }
  const Field& field(int i) const { return fields_[static_cast<size_t>(i)]; }
  const KeyValueMetadata& metadata() const { return metadata_; }
  // Index of the first field with this name, or -1.
  int GetFieldIndex(std::string_view name) const;

  bool Equals(const Schema& other, bool check_metadata = true) const;
  std::string ToString() const;  // one "name: type" line per field

 private:
  std::vector<Field> fields_;
  KeyValueMetadata metadata_;
};

using SchemaPtr = std::shared_ptr<const Schema>;

inline bool operator==(const Schema& a, const Schema& b) { return a.Equals(b); }

}  // namespace mink::arrow
