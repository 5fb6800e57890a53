#pragma once
// The data of table_bench: a 10-column log table (web-server logs) and a primary-key table,
// generated deterministically from the row number, as Arrow record batches and as the JSON lines
// `mink write` reads (the same rows, so the CLI and DoPut rates compare like for like).

#include <cstdint>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"

namespace mink::bench {

// create-table "columns" of the log table, in order.
const std::vector<std::string>& LogTableColumns();
// The same, as `mink table create -C` arguments.
std::string LogTableColumnFlags();
arrow::SchemaPtr LogTableSchema();
// Rows [first, first + count) of the log table.
Result<arrow::RecordBatchPtr> LogRows(int64_t first, int64_t count);
// The same rows as JSON lines (one object per line, '\n' after each), appended to `out`.
void LogRowsJson(int64_t first, int64_t count, std::string* out);

// The primary-key table: id BIGINT NOT NULL (the key), name, balance, visits, updated.
const std::vector<std::string>& KeyedTableColumns();
arrow::SchemaPtr KeyedTableSchema();
// Keys [first, first + count) of `key_count` in a scrambled order (every key once per pass);
// `pass` changes the non-key values.
Result<arrow::RecordBatchPtr> KeyedRows(int64_t first, int64_t count, int64_t key_count, int pass);

}  // namespace mink::bench
