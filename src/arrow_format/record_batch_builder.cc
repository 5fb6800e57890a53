#include "arrow_format/record_batch_builder.h"

#include <string>

namespace mink::arrow {

RecordBatchBuilder::RecordBatchBuilder(SchemaPtr schema,
                                       std::vector<std::unique_ptr<ArrayBuilder>> builders)
    : schema_(std::move(schema)), builders_(std::move(builders)) {}

Result<std::unique_ptr<RecordBatchBuilder>> RecordBatchBuilder::Make(SchemaPtr schema) {
  if (!schema) return InvalidArgumentError("RecordBatchBuilder: no schema");
  std::vector<std::unique_ptr<ArrayBuilder>> builders;
  for (const Field& field : schema->fields()) {
    MINK_ASSIGN_OR_RETURN(auto builder, MakeBuilder(field.type()));
    builders.push_back(std::move(builder));
  }
  return std::unique_ptr<RecordBatchBuilder>(
      new RecordBatchBuilder(std::move(schema), std::move(builders)));
}

void RecordBatchBuilder::Reserve(int64_t rows) {
  for (auto& b : builders_) b->Reserve(rows);
}

Result<RecordBatchPtr> RecordBatchBuilder::Flush() {
  const int64_t rows = num_rows();
  for (size_t i = 0; i < builders_.size(); ++i) {
    if (builders_[i]->length() != rows) {
      return InvalidArgumentError("column " + schema_->fields()[i].name() + " has " +
                                  std::to_string(builders_[i]->length()) + " rows, column " +
                                  schema_->fields()[0].name() + " has " + std::to_string(rows));
    }
  }
  std::vector<ArrayDataPtr> columns;
  columns.reserve(builders_.size());
  for (size_t i = 0; i < builders_.size(); ++i) {
    auto column = builders_[i]->Finish();
    if (!column.ok()) return column.status().WithContext("column " + schema_->fields()[i].name());
    columns.push_back(std::move(column).value());
  }
  return RecordBatch::Make(schema_, rows, std::move(columns));
}

}  // namespace mink::arrow
