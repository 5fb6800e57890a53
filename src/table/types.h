#pragma once
// Mink's logical types and table schemas, as users write them: `id BIGINT NOT NULL`,
// `amount DECIMAL(10,2)`, `tags ARRAY<STRING>`, `attrs MAP<STRING, INT>`, `pos ROW<x INT, y INT>`.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace mink::table {

enum class TypeKind : uint8_t {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInt,
  kBigInt,
  kFloat,
  kDouble,
  kDecimal,
  kString,
  kBytes,
  kDate,          // days since 1970-01-01
  kTime,          // time of day; precision 0-9 (stored in the unit the precision needs)
  kTimestamp,     // wall-clock date-time without zone
  kTimestampLtz,  // an instant (UTC)
  kArray,
  kMap,
  kRow,
};

struct LogicalType {
  TypeKind kind = TypeKind::kInt;
  int precision = 0;  // DECIMAL(p,s), TIME(p), TIMESTAMP(p)
  int scale = 0;      // DECIMAL
  bool nullable = true;  // of elements, map values and row fields
  std::vector<LogicalType> children;     // ARRAY: element; MAP: key, value; ROW: fields
  std::vector<std::string> field_names;  // ROW

  std::string ToString() const;
  bool operator==(const LogicalType& other) const;
  bool IsInteger() const;
  bool IsNested() const {
    return kind == TypeKind::kArray || kind == TypeKind::kMap || kind == TypeKind::kRow;
  }
  // TIME/TIMESTAMP values are integers in this many units per second (1, 1e3, 1e6 or 1e9).
  int64_t UnitsPerSecond() const;
};

// "BIGINT", "DECIMAL(10,2)", "TIMESTAMP(3)", "ARRAY<INT>", "MAP<STRING, INT>",
// "ROW<a INT, b STRING NOT NULL>" (case-insensitive keywords).
Result<LogicalType> ParseType(std::string_view text);

struct Column {
  std::string name;
  LogicalType type;
  bool not_null = false;
  // The column's identity across schema changes: it keeps its id when renamed or retyped, and
  // a dropped column's id is never given to another (TableDescriptor::next_column_id).
  int32_t id = 0;
};

// "name TYPE [NOT NULL]"
Result<Column> ParseColumn(std::string_view text);

struct TableSchema {
  std::vector<Column> columns;
  int32_t schema_id = 0;

  // Index of the column or -1.
  int Find(std::string_view name) const;
  // Index of the column with this id or -1.
  int FindId(int32_t id) const;
};

}  // namespace mink::table
