#pragma once
// Shared test data: a schema with every supported type, batches of it with nulls in every
// nullable column, and the canonical JSON form of values that tests/node/arrow_interop.js prints.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"

namespace mink::arrow::testing {

// Every type Mink supports, nested types included; one NOT NULL column; field and schema
// metadata.
SchemaPtr AllTypesSchema();

// Rows [first_row, first_row + num_rows) of a deterministic table over AllTypesSchema(), built
// with the builders. Row r of a nullable column k is null when (r * 7 + k) % 5 == 0.
RecordBatchPtr AllTypesBatch(int64_t first_row, int64_t num_rows);

// Canonical JSON of element i (see arrow_interop.js).
nlohmann::json ValueJson(const ArrayData& array, int64_t i);
// {"column": value, ...} per row.
std::vector<nlohmann::json> RowsJson(const RecordBatch& batch);
// The type string Arrow JS prints for a type ("Int64", "Timestamp<MILLISECOND, UTC>", ...).
std::string JsTypeName(const DataType& type);

}  // namespace mink::arrow::testing
