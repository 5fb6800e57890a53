#include "stream/table_lookup.h"

#include <algorithm>

#include "stream/output_table.h"
#include "table/arrow_rows.h"

namespace mink::stream {

Result<TableLookup> TableLookup::Make(table::TableStore* tables, const QueryShape& shape) {
  const std::string what = "the temporal join of " + shape.lookup_table;
  auto resolved = tables->Resolve(shape.lookup_table);
  if (!resolved.ok()) return Status(resolved.status().code(), what + ": " + resolved.status().message());
  std::shared_ptr<const table::ResolvedTable> table = *resolved;
  if (table->pk.empty()) return InvalidArgumentError(what + ": a temporal join looks rows up in a primary-key table");
  std::vector<std::string> pk;
  std::vector<table::LogicalType> pk_types;
  std::vector<arrow::Field> pk_fields;
  for (size_t i = 0; i < table->pk.size(); ++i) {
    const auto column = static_cast<size_t>(table->pk[i]);
    pk.push_back(table->d.schema.columns[column].name);
    pk_types.push_back(table->pk_types[i]);
    pk_fields.push_back(table->schema->field(static_cast<int>(column)));
  }
  std::vector<std::string> given = shape.lookup_columns, wanted = pk;
  std::sort(given.begin(), given.end());
  std::sort(wanted.begin(), wanted.end());
  if (given != wanted) {
    std::string names;
    for (const auto& n : pk) names += (names.empty() ? "" : ", ") + n;
    return InvalidArgumentError(what + ": the ON must give its primary key (" + names + "), each column once");
  }
  table::LookupRequest request;
  request.table = shape.lookup_table;
  TableLookup out;
  MINK_ASSIGN_OR_RETURN(out.schema, tables->LookupSchema(request));
  auto key_schema = std::make_shared<arrow::Schema>(std::move(pk_fields));
  out.lookup = [tables, request, pk, pk_types, key_schema](const arrow::RecordBatchPtr& keys) -> Result<arrow::RecordBatchPtr> {
    // DuckDB's key columns as the table's key types, in the primary key's order.
    std::vector<std::vector<Scalar>> columns;
    for (const auto& name : pk) {
      int at = -1;
      for (int c = 0; c < keys->num_columns(); ++c) {
        if (keys->schema()->field(c).name() == name) at = c;
      }
      if (at < 0) return InternalError("the lookup keys have no column " + name);
      MINK_ASSIGN_OR_RETURN(auto values, ScalarsOf(keys->Column(at)));
      columns.push_back(std::move(values));
    }
    std::vector<table::Row> rows;
    for (int64_t i = 0; i < keys->num_rows(); ++i) {
      table::Row row;
      bool null_key = false;
      for (size_t c = 0; c < pk.size(); ++c) {
        const Scalar& v = columns[c][static_cast<size_t>(i)];
        null_key = null_key || v.is_null();
        row.push_back(ValueOf(v, pk_types[c]));
      }
      if (!null_key) rows.push_back(std::move(row));  // a null key meets no row
    }
    if (rows.empty()) return arrow::RecordBatchPtr();
    std::vector<const table::Row*> pointers;
    for (const auto& r : rows) pointers.push_back(&r);
    MINK_ASSIGN_OR_RETURN(auto typed, table::RowsToBatch(pointers, key_schema, pk_types));
    return tables->Lookup(request, *typed);
  };
  return out;
}

}  // namespace mink::stream
