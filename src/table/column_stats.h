#pragma once
// Column statistics of log tables, as the node computes them (TableStore::ColumnStats) and as
// clients read them back from the column-stats action (docs/flight-api.md): per bucket, the
// range and null count of every integer-valued column, for query planners.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mink::table {

// The range of one integer-valued column (integers, DATE, TIME, TIMESTAMP: the stored integer)
// over the rows of a bucket's log.
struct ColumnRange {
  std::string column;
  int64_t null_count = 0;
  bool has_values = false;  // false: no non-null value seen; min and max are unset
  int64_t min = 0;
  int64_t max = 0;
};

// Column ranges of one bucket of a log table over its log below `end`. Conservative: the ranges
// hold every row below `end` (rows retention removed since may still widen them), never less.
struct BucketColumnStats {
  std::optional<std::string> partition;  // partition name, if partitioned
  int32_t bucket = 0;
  int64_t end = 0;
  int64_t rows = 0;                  // rows the ranges were computed over
  std::vector<ColumnRange> columns;  // every integer-valued column, in table order
};

}  // namespace mink::table
