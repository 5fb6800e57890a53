#pragma once
// The first half of every write: each row of the written batches checked against the table
// (columns, types, NOT NULL) and given its partition, bucket and encoded primary key. Nothing
// is written unless every row passes; an error names the row.

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "arrow_format/record_batch.h"
#include "table/catalog.h"
#include "table/requests.h"
#include "table/value.h"

namespace mink::table {

// A written row with where it goes.
struct RoutedRow {
  Row row;
  std::string partition;  // "" for an unpartitioned table
  int32_t bucket = 0;
  std::string key;        // encoded primary key (primary-key tables)
  int64_t line = 0;       // 1-based position in the write, for errors
};

struct RoutedWrite {
  // The columns a partial update names (with the primary key); empty when the write is whole.
  std::vector<bool> targets;
  std::vector<RoutedRow> rows;
};

// Checks and routes the rows. A table without a bucket key sends a whole write to one bucket:
// for an idempotent write (writer id and sequence) bucket (writer id + sequence) mod the bucket
// count, so its retries go where it went; else the next of `sticky` (round robin over writes).
Result<RoutedWrite> RouteRows(const ResolvedTable& table, const WriteRequest& request,
                              const std::vector<arrow::RecordBatchPtr>& batches,
                              std::atomic<uint64_t>* sticky);

// Rows grouped by (partition, bucket), in first-appearance order of the groups.
std::vector<std::pair<std::pair<std::string, int32_t>, std::vector<RoutedRow*>>> GroupByBucket(
    std::vector<RoutedRow>& rows);

}  // namespace mink::table
