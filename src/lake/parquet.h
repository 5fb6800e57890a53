#pragma once
// The Parquet files of lake tables, written and read by the embedded DuckDB (mink::sql): each
// column carries its Iceberg field id; reads match columns by field id, so files written before
// a column was renamed, added or widened read under the current schema; equality delete files
// remove the rows whose key they hold.

#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "lake/iceberg.h"
#include "sql/database.h"
#include "table/catalog.h"
#include "table/lake_source.h"

namespace mink::lake {

class ParquetFiles {
 public:
  explicit ParquetFiles(sql::Database* db) : db_(db) {}

  // Writes `batches` (of `schema`: columns of the table named and typed as the table's current
  // schema has them) to the local file `path`, with the field ids of `layout`; the file's size.
  Result<int64_t> Write(const LakeLayout& layout, const arrow::SchemaPtr& schema,
                        std::vector<arrow::RecordBatchPtr> batches, const std::string& path);
  // The scan's columns of `table`'s current schema (every column when it names none), in
  // their Arrow types, of the local data file `path`: the rows that pass the scan's filters,
  // without those whose identifier columns match a row of one of the local equality delete
  // files `deletes`. A filter naming no column, or with the wrong number of values, is
  // InvalidArgument.
  Result<std::vector<arrow::RecordBatchPtr>> Read(const table::ResolvedTable& table,
                                                  const LakeLayout& layout, const std::string& path,
                                                  const std::vector<std::string>& deletes,
                                                  const table::LakeScan& scan = {});

 private:
  sql::Database* const db_;
};

}  // namespace mink::lake
