#pragma once
// JSON lines -> Arrow for `mink write` (the way back, Arrow -> JSON for `mink read`, is
// arrow_json/arrow_to_json.h).
//
// Input (one JSON object per line, converted to the table's Arrow types, see ToArrowType):
//   BOOLEAN true/false; TINYINT..BIGINT an integral number (or a string holding one) in range
//   for the width; FLOAT/DOUBLE a number or "NaN"/"Infinity"/"-Infinity"; DECIMAL(p,s) a number
//   or string that fits p and s exactly (no rounding); STRING a string; BYTES a hex string;
//   DATE "YYYY-MM-DD" or integer days; TIME "HH:MM:SS[.fff]"; TIMESTAMP "YYYY-MM-DD HH:MM:SS[.f]"
//   (or 'T') or epoch milliseconds; TIMESTAMP_LTZ the same with an optional Z/offset; ARRAY an
//   array; MAP an object (keys converted from their text) or an array of [key, value] pairs;
//   ROW an object of its fields (missing fields are null).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow_format/nested_builder.h"
#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "cli/json_value.h"
#include "client/table_description.h"
#include "table/value.h"

namespace mink::cli {

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
  static Result<JsonRowConverter> Make(const client::TableDescription& table,
                                       const WriteShape& shape);
  // Converts the keys of a lookup: objects of exactly `key_columns` (each required), in table
  // order.
  static Result<JsonRowConverter> ForKeys(const client::TableDescription& table,
                                          const std::vector<std::string>& key_columns);

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
  std::vector<client::ColumnSpec> columns_;  // every table column
  std::vector<int> written_index_;           // per table column: index in the written row, or -1
  std::vector<Target> targets_;              // the written columns
  std::string columns_flag_;                 // "--columns (a,b)" for messages
  bool keys_only_ = false;                   // ForKeys: columns_flag_ names the key
  std::string auto_increment_;               // a column writes leave to the table
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

}  // namespace mink::cli
