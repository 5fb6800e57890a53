#pragma once
// RecordBatchBuilder: one builder per schema field; Flush() finishes them into a RecordBatch.
//
//   MINK_ASSIGN_OR_RETURN(auto b, RecordBatchBuilder::Make(schema));
//   b->GetFieldAs<Int64Builder>(0)->Append(1);
//   MINK_RETURN_IF_ERROR(b->GetFieldAs<StringBuilder>(1)->Append("a"));
//   MINK_ASSIGN_OR_RETURN(RecordBatchPtr batch, b->Flush());

#include <memory>
#include <vector>

#include "arrow_format/nested_builder.h"
#include "arrow_format/record_batch.h"

namespace mink::arrow {

class RecordBatchBuilder {
 public:
  static Result<std::unique_ptr<RecordBatchBuilder>> Make(SchemaPtr schema);

  const SchemaPtr& schema() const { return schema_; }
  int num_fields() const { return static_cast<int>(builders_.size()); }
  ArrayBuilder* GetField(int i) const { return builders_[static_cast<size_t>(i)].get(); }
  // The caller knows the field's type (see MakeBuilder for which builder each type gets).
  template <typename B>
  B* GetFieldAs(int i) const {
    return static_cast<B*>(GetField(i));
  }
  // Rows appended so far (the length of the first column).
  int64_t num_rows() const { return builders_.empty() ? 0 : builders_[0]->length(); }

  void Reserve(int64_t rows);
  // A batch of everything appended since the last Flush; every column must have the same
  // length. The builders are left empty.
  Result<RecordBatchPtr> Flush();

 private:
  RecordBatchBuilder(SchemaPtr schema, std::vector<std::unique_ptr<ArrayBuilder>> builders);

  SchemaPtr schema_;
  std::vector<std::unique_ptr<ArrayBuilder>> builders_;
};

}  // namespace mink::arrow
