#pragma once
// Arrow -> JSON and text, for every client that prints what a node sends: `mink read` and
// mink-query's output formats.
//
// One JSON object per row, keys in column order, no spaces: 64-bit integers as numbers, DECIMAL
// as a number with exactly its scale digits (10.50), BYTES as hex, DATE/TIME/TIMESTAMP as ISO
// strings ('T' separator; a trailing Z when the timestamp has a time zone), FLOAT/DOUBLE in their
// shortest round-trip form, ARRAY as arrays, MAP as objects when the keys are strings and as
// arrays of [key, value] pairs otherwise, ROW as objects, null as null.

#include <cstdint>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"

namespace mink::arrow_json {

// Formats the values of one column (any Arrow type the node sends).
class ColumnFormatter {
 public:
  // Unimplemented for Arrow types Mink does not produce.
  static Result<ColumnFormatter> Make(arrow::ArrayDataPtr data);
  // JSON gives 64-bit integers as strings ("46"): they survive JSON parsers that read numbers
  // as doubles (JavaScript's), as HTTP APIs give them.
  void QuoteWideIntegers() { quote_wide_ = true; }

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
  bool quote_wide_ = false;
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
  // `quote_wide_integers`: 64-bit integers as strings (ColumnFormatter::QuoteWideIntegers).
  static Result<RowFormatter> Make(const arrow::RecordBatch& batch, bool quote_wide_integers = false);
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

}  // namespace mink::arrow_json
