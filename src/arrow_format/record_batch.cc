#include "arrow_format/record_batch.h"

#include <string>

namespace mink::arrow {

RecordBatch::RecordBatch(SchemaPtr schema, int64_t num_rows, std::vector<ArrayDataPtr> columns)
    : schema_(std::move(schema)), num_rows_(num_rows), columns_(std::move(columns)) {}

Result<RecordBatchPtr> RecordBatch::Make(SchemaPtr schema, int64_t num_rows,
                                         std::vector<ArrayDataPtr> columns) {
  if (!schema) return InvalidArgumentError("record batch without a schema");
  if (num_rows < 0) return InvalidArgumentError("record batch with a negative row count");
  if (static_cast<int>(columns.size()) != schema->num_fields()) {
    return InvalidArgumentError("record batch has " + std::to_string(columns.size()) +
                                " columns but its schema has " +
                                std::to_string(schema->num_fields()) + " fields");
  }
  for (int i = 0; i < schema->num_fields(); ++i) {
    const Field& field = schema->field(i);
    const ArrayDataPtr& column = columns[static_cast<size_t>(i)];
    if (!column || !column->type) {
      return InvalidArgumentError("record batch column " + field.name() + " is missing");
    }
    if (!column->type->Equals(*field.type())) {
      return InvalidArgumentError("record batch column " + field.name() + " has type " +
                                  column->type->ToString() + ", the schema says " +
                                  field.type()->ToString());
    }
    if (column->length != num_rows) {
      return InvalidArgumentError("record batch column " + field.name() + " has " +
                                  std::to_string(column->length) + " rows, expected " +
                                  std::to_string(num_rows));
    }
  }
  return std::make_shared<const RecordBatch>(std::move(schema), num_rows, std::move(columns));
}

Result<RecordBatchPtr> RecordBatch::SelectColumns(const std::vector<int>& indices) const {
  std::vector<Field> fields;
  std::vector<ArrayDataPtr> columns;
  fields.reserve(indices.size());
  columns.reserve(indices.size());
  for (int index : indices) {
    if (index < 0 || index >= num_columns()) {
      return InvalidArgumentError("column index " + std::to_string(index) +
                                  " is out of range for a batch of " +
                                  std::to_string(num_columns()) + " columns");
    }
    fields.push_back(schema_->field(index));
    columns.push_back(columns_[static_cast<size_t>(index)]);
  }
  auto schema = std::make_shared<const Schema>(std::move(fields), schema_->metadata());
  return std::make_shared<const RecordBatch>(std::move(schema), num_rows_, std::move(columns));
}

Status RecordBatch::Validate() const {
  for (int i = 0; i < num_columns(); ++i) {
    Status s = ValidateArrayData(*columns_[static_cast<size_t>(i)]);
    if (!s.ok()) return s.WithContext("column " + schema_->field(i).name());
  }
  return Status::Ok();
}

bool RecordBatch::Equals(const RecordBatch& other) const {
  if (num_rows_ != other.num_rows_ || !schema_->Equals(*other.schema_)) return false;
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (!ArrayDataEquals(*columns_[i], *other.columns_[i])) return false;
  }
  return true;
}

}  // namespace mink::arrow
