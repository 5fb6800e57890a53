#pragma once
// Data written under one schema of a table, read under another (the table's schemas are in its
// descriptor; batches and KV snapshots record the schema id they were written with). Columns are
// matched by id, so a renamed column keeps its values under its new name; a column the data
// lacks (added since) reads as null; a dropped column is left out; a widened column's values are
// widened (schema_change.h says which changes are allowed).

#include <map>
#include <memory>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "base/shared_bytes.h"
#include "table/descriptor.h"
#include "table/payload.h"
#include "table/types.h"
#include "table/value.h"

namespace mink::table {

// A value written as `from`, read as `to` (a change CheckPromotion allows, or the same type).
Value PromoteValue(const Value& value, const LogicalType& from, const LogicalType& to);

// A row of `from`'s columns as a row of `to`'s.
Row UpgradeRow(const Row& row, const TableSchema& from, const TableSchema& to);

// Record batches decoded under one schema, given the columns of another.
class SchemaUpgrade {
 public:
  // `columns`: indexes of `to`'s columns wanted, in output order.
  static SchemaUpgrade Make(const TableSchema& from, const TableSchema& to,
                            const std::vector<int>& columns);
  // Indexes of `from`'s columns to decode (PayloadDecoder::DecodeProjected), in the order Apply
  // takes them.
  const std::vector<int>& source_columns() const { return source_columns_; }
  // The wanted columns from a batch decoded as source_columns(); `out_schema` names and types
  // them (the wanted columns of `to`, in order).
  Result<arrow::RecordBatchPtr> Apply(const arrow::RecordBatch& decoded,
                                      const arrow::SchemaPtr& out_schema) const;

 private:
  struct Target {
    int source = -1;  // position in the decoded batch; -1: the data lacks the column (null)
    LogicalType from, to;
  };
  std::vector<int> source_columns_;
  std::vector<Target> targets_;
};

// Decodes a table's stored batches, whatever schema each was written with, as some columns of
// the current schema. Not thread-safe (one per read).
class TableBatchDecoder {
 public:
  // `columns`: indexes of the current schema's columns wanted, in output order.
  static Result<TableBatchDecoder> Make(const TableDescriptor& d, const std::vector<int>& columns);
  // The wanted columns of a batch of schema `schema_id`. FailedPrecondition for a schema newer
  // than the descriptor's (the table changed after it was read), DataLoss for one it never had.
  Result<arrow::RecordBatchPtr> Decode(const SharedBytes& payload, int32_t schema_id);

 private:
  struct Older {
    PayloadDecoder decoder;
    SchemaUpgrade upgrade;
  };
  const TableDescriptor* d_ = nullptr;
  std::vector<int> columns_;
  arrow::SchemaPtr out_schema_;
  std::unique_ptr<PayloadDecoder> current_;
  std::map<int32_t, Older> older_;
};

}  // namespace mink::table
