#pragma once
// The rows of one bucket stream between two offsets, in offset order, under the table's
// current schema (whatever schema each batch was written with), each with its change type:
// what union reads and the lake's tiering read.

#include <cstdint>
#include <functional>

#include "storage/stream_store.h"
#include "table/catalog.h"
#include "table/changelog.h"
#include "table/value.h"

namespace mink::table {

// Calls `visit` for every row at offsets [from, end) of `stream` (end: INT64_MAX for all),
// stopping at the first error.
Status VisitBucketRows(storage::StreamStore* storage, const ResolvedTable& table, uint64_t stream,
                       int64_t from, int64_t end,
                       const std::function<Status(Row row, ChangeType type, int64_t offset)>& visit);

// The same rows as record batches of the table's columns `columns` (indexes of the current
// schema, in that order), for readers that need no row-by-row look: whole stored batches are
// decoded once, only the first and last ones cut.
Status VisitBucketBatches(storage::StreamStore* storage, const ResolvedTable& table, uint64_t stream,
                          int64_t from, int64_t end, const std::vector<int>& columns,
                          const std::function<Status(const arrow::RecordBatchPtr&)>& visit);

}  // namespace mink::table
