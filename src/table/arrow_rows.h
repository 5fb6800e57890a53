#pragma once
// Between Arrow and the table layer's rows: the Arrow type of each logical type, and reading
// and writing Values of Arrow columns.
//   BOOLEAN bool, TINYINT int8, SMALLINT int16, INT int32, BIGINT int64, FLOAT float32,
//   DOUBLE float64, DECIMAL(p,s) decimal128(p,s), STRING utf8, BYTES binary, DATE date32,
//   TIME(p) time32[s|ms] / time64[us|ns], TIMESTAMP(p) timestamp[unit],
//   TIMESTAMP_LTZ(p) timestamp[unit, UTC], ARRAY list, MAP map, ROW struct.

#include <memory>
#include <vector>

#include "arrow_format/nested_builder.h"
#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "table/types.h"
#include "table/value.h"

namespace mink::table {

arrow::DataTypePtr ToArrowType(const LogicalType& type);
arrow::SchemaPtr ToArrowSchema(const TableSchema& schema);
// The Arrow unit of a TIME/TIMESTAMP precision.
arrow::TimeUnit TimeUnitOf(int precision);
// The fractional-second digits of a time unit: 0, 3, 6 or 9.
int DigitsOf(arrow::TimeUnit unit);

// Reads the values of one Arrow column as the given logical type (the column's Arrow type must
// be ToArrowType(type); check with ArrowTypeMatches first).
class ColumnReader {
 public:
  ColumnReader(arrow::ArrayDataPtr data, const LogicalType& type);
  ~ColumnReader();
  ColumnReader(ColumnReader&&) noexcept;
  bool IsNull(int64_t i) const;
  Value Get(int64_t i) const;
  int64_t length() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Appends Values to an Arrow builder made by arrow::MakeBuilder(ToArrowType(type)).
Status AppendValue(arrow::ArrayBuilder* builder, const Value& value, const LogicalType& type);

// Whether an Arrow type carries the logical type exactly.
bool ArrowTypeMatches(const arrow::DataType& arrow_type, const LogicalType& type);

std::vector<Row> BatchToRows(const arrow::RecordBatch& batch, const std::vector<LogicalType>& types);
Result<arrow::RecordBatchPtr> RowsToBatch(const std::vector<const Row*>& rows,
                                          const arrow::SchemaPtr& schema,
                                          const std::vector<LogicalType>& types);

}  // namespace mink::table
