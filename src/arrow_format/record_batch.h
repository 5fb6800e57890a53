#pragma once
// RecordBatch: a schema plus one equal-length column per field. Immutable and shared as
// RecordBatchPtr; projections share the column buffers.

#include <cstdint>
#include <memory>
#include <vector>

#include "arrow_format/array_data.h"
#include "arrow_format/type.h"
#include "base/result.h"

namespace mink::arrow {

class RecordBatch;
using RecordBatchPtr = std::shared_ptr<const RecordBatch>;

class RecordBatch {
 public:
  // Checks the column count, each column's type against its field and each column's length.
  // (Buffer contents are checked by Validate().)
  static Result<RecordBatchPtr> Make(SchemaPtr schema, int64_t num_rows,
                                     std::vector<ArrayDataPtr> columns);

  const SchemaPtr& schema() const { return schema_; }
  int64_t num_rows() const { return num_rows_; }
  int num_columns() const { return static_cast<int>(columns_.size()); }
  const ArrayDataPtr& Column(int i) const { return columns_[static_cast<size_t>(i)]; }
  const std::vector<ArrayDataPtr>& columns() const { return columns_; }

  // A batch with the chosen columns in the given order, sharing their buffers (no copy).
  Result<RecordBatchPtr> SelectColumns(const std::vector<int>& indices) const;

  // Full check of every column (ValidateArrayData).
  Status Validate() const;
  // Same schema (including metadata) and logically equal columns.
  bool Equals(const RecordBatch& other) const;

  RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<ArrayDataPtr> columns);  // use Make

 private:
  SchemaPtr schema_;
  int64_t num_rows_;
  std::vector<ArrayDataPtr> columns_;
};

}  // namespace mink::arrow
