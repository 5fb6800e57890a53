#pragma once
// JSON lines <-> Arrow for `mink write` and `mink read`.
//
// Input (one JSON object per line, converted to the table's Arrow types, see ToArrowType):
//   BOOLEAN true/false; TINYINT..BIGINT an integral number (or a string holding one) in range
//   for the width; FLOAT/DOUBLE a number or "NaN"/"Infinity"/"-Infinity"; DECIMAL(p,s) a number
//   or string that fits p and s exactly (no rounding); STRING a string; BYTES a hex string;
//   DATE "YYYY-MM-DD" or integer days; TIME "HH:MM:SS[.fff]"; TIMESTAMP "YYYY-MM-DD HH:MM:SS[.f]"
//   (or 'T') or epoch milliseconds; TIMESTAMP_LTZ the same with an optional Z/offset; ARRAY an
//   array; MAP an object (keys converted from their text) or an array of [key, value] pairs;
//   ROW an object of its fields (missing fields are null).
//
// Output (one JSON object per row, keys in column order, no spaces): 64-bit integers as numbers,
// DECIMAL as a number with exactly its scale digits (10.50), BYTES as hex, DATE/TIME/TIMESTAMP as
// ISO strings ('T' separator; a trailing Z when the timestamp has a time zone), FLOAT/DOUBLE in
// their shortest round-trip form, ARRAY as arrays, MAP as objects when the keys are strings and
// as arrays of [key, value] pairs otherwise, ROW as objects, null as null.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow_format/nested_builder.h"
#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "cli/json_value.h"
#include "cli/table_description.h"
#include "table/value.h"

namespace mink::cli {

// ---- JSON -> Arrow

// Converts one JSON value to a table::Value of `type`. `path` names the value in errors
// ("amount", "tags[2]", "pos.x"); messages read "column 'amount': DECIMAL(10,2) value "abc" is
// not a number".
Result<table::Value> JsonToValue(const JsonValue& json, const table::LogicalType& type,
                                 const std::string& path);

struct WriteShape {
  bool is_delete = false;                    // --delete: rows name the keys to delete
  std::vector<std::string> partial_columns;  // --columns: a partial update (empty: all columns)
};

// Converts input lines to rows of the columns a write sends.
class JsonRowConverter {
 public:
  // Checks the shape against the table: --delete and --columns need a primary key, --columns
  // names existing columns. Errors are InvalidArgument.
  static Result<JsonRowConverter> Make(const TableDescription& table, const WriteShape& shape);

  // The schema of the batches sent: the written columns in table order (the primary key is
  // always part of a partial update).
  const arrow::SchemaPtr& schema() const { return schema_; }
  const std::vector<table::LogicalType>& types() const { return types_; }
  // The DoPut descriptor's "columns": the written columns of a partial update, else empty.
  const std::vector<std::string>& descriptor_columns() const { return descriptor_columns_; }

  // One input line (a JSON object) to a row of schema(). The error names the column and the
  // problem, without the line number: "unknown column 'nope' in shop.orders",
  // "column 'region' is NOT NULL but missing", "malformed JSON at column 5: ...".
  Result<table::Row> ConvertLine(std::string_view line) const;
  Result<table::Row> ConvertObject(const JsonValue& object) const;

 private:
  struct Target {
    int table_index;
    bool required;  // NOT NULL enforced (or primary key)
  };
  JsonRowConverter() = default;

  std::string table_name_;
  std::vector<ColumnSpec> columns_;  // every table column
  std::vector<int> written_index_;   // per table column: index in the written row, or -1
  std::vector<Target> targets_;      // the written columns
  std::string columns_flag_;         // "--columns (a,b)" for messages
  arrow::SchemaPtr schema_;
  std::vector<table::LogicalType> types_;
  std::vector<std::string> descriptor_columns_;
};

// Accumulates rows into one record batch.
class BatchBuilder {
 public:
  static Result<BatchBuilder> Make(arrow::SchemaPtr schema, std::vector<table::LogicalType> types);
  Status Append(const table::Row& row);
  int64_t num_rows() const { return rows_; }
  // The batch so far; the builder is left empty.
  Result<arrow::RecordBatchPtr> Finish();

 private:
  BatchBuilder() = default;
  arrow::SchemaPtr schema_;
  std::vector<table::LogicalType> types_;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders_;
  int64_t rows_ = 0;
};

// ---- Arrow -> JSON

// Formats the values of one column (any Arrow type the node sends).
class ColumnFormatter {
 public:
  // Unimplemented for Arrow types Mink does not produce.
  static Result<ColumnFormatter> Make(arrow::ArrayDataPtr data);

  bool IsNull(int64_t i) const;
  // The JSON text of value i.
  void AppendJson(int64_t i, std::string* out) const;
  // The text for a table cell: like JSON, but strings, dates, times and hex without quotes
  // (control characters escaped) and null as "null".
  void AppendText(int64_t i, std::string* out) const;
  // Numbers are right-aligned in tables.
  bool is_numeric() const;

 private:
  ColumnFormatter() = default;
  arrow::ArrayDataPtr data_;
  arrow::TypeId id_ = arrow::TypeId::kNull;
  const uint8_t* validity_ = nullptr;
  const uint8_t* values_ = nullptr;  // fixed-width values, or offsets of utf8/binary/list/map
  const char* bytes_ = nullptr;      // utf8/binary data
  int digits_ = 0;                   // time/timestamp fractional digits of the unit
  bool utc_ = false;                 // timestamp with a time zone
  bool string_keys_ = false;         // map<utf8, _>
  std::vector<ColumnFormatter> children_;
  std::vector<std::string> names_;  // struct field names
};

// Formats whole rows of a batch.
class RowFormatter {
 public:
  static Result<RowFormatter> Make(const arrow::RecordBatch& batch);
  // {"col":value,...} without a newline.
  void AppendJsonRow(int64_t row, std::string* out) const;
  const std::vector<ColumnFormatter>& columns() const { return columns_; }

 private:
  RowFormatter() = default;
  std::vector<std::string> quoted_names_;  // "\"name\":"
  std::vector<ColumnFormatter> columns_;
};

// Every row of the batch as a JSON line ("...\n" per row).
Result<std::string> BatchToJsonLines(const arrow::RecordBatch& batch);

}  // namespace mink::cli
