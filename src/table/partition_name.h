#pragma once
// A partition's name: its partition column values rendered as text, in partition-key order,
// joined with '$' ("us", "us$2026-12-04"). Values may hold only letters, digits, '_' and '-'
// (PartitionName checks), so the separator cannot occur inside one. The
// name is what the catalog keys partitions by, what Flight endpoints and `mink read
// --partition` carry, and what the SQL layer parses back to prune partitions.

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "table/types.h"
#include "table/value.h"

namespace mink::table {

inline constexpr char kPartitionSeparator = '$';

inline std::string JoinPartitionValues(const std::vector<std::string>& values) {
  std::string name;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) name += kPartitionSeparator;
    name += values[i];
  }
  return name;
}

// The partition name of a row: its values of the partition `columns` (of `types`) as text. A
// null, or a value that renders outside 1-200 letters, digits, '_' and '-' (or starts with
// "__"), is InvalidArgument.
Result<std::string> PartitionName(const Row& row, const std::vector<int>& columns,
                                  const std::vector<LogicalType>& types);

// The values of a partition name, in partition-key order.
inline std::vector<std::string> SplitPartitionName(std::string_view name) {
  std::vector<std::string> values;
  size_t start = 0;
  while (true) {
    size_t end = name.find(kPartitionSeparator, start);
    values.emplace_back(name.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return values;
}

}  // namespace mink::table
