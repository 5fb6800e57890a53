#include "table/partition_name.h"

#include <algorithm>
#include <cstdio>

namespace mink::table {

Result<std::string> PartitionName(const Row& row, const std::vector<int>& columns,
                                  const std::vector<LogicalType>& types) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < columns.size(); ++i) {
    const Value& v = row[static_cast<size_t>(columns[i])];
    if (v.is_null()) return InvalidArgumentError("a partition column is null");
    std::string part;
    switch (types[i].kind) {
      case TypeKind::kBoolean: part = v.bool_value() ? "true" : "false"; break;
      case TypeKind::kFloat:
      case TypeKind::kDouble: {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%g", v.double_value());
        part = buf;
        std::replace(part.begin(), part.end(), '.', '_');
        break;
      }
      case TypeKind::kString: part = v.bytes(); break;
      case TypeKind::kBytes: {
        static const char kHex[] = "0123456789abcdef";
        for (unsigned char c : v.bytes()) {
          part += kHex[c >> 4];
          part += kHex[c & 15];
        }
        break;
      }
      case TypeKind::kDate: {
        // Civil date from days since the epoch.
        int64_t z = v.int_value() + 719468;
        int64_t era = (z >= 0 ? z : z - 146096) / 146097;
        int64_t doe = z - era * 146097;
        int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
        int64_t m = mp < 10 ? mp + 3 : mp - 9;
        char buf[96];
        std::snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lld", static_cast<long long>(y + (m <= 2)),
                      static_cast<long long>(m), static_cast<long long>(d));
        part = buf;
        break;
      }
      default: part = std::to_string(v.int_value()); break;
    }
    if (part.empty() || part.size() > 200 || part.rfind("__", 0) == 0) {
      return InvalidArgumentError("partition value '" + part +
                                  "' must be 1-200 characters and not start with __");
    }
    for (char c : part) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
        return InvalidArgumentError("partition value '" + part +
                                    "' may only contain letters, digits, '_' and '-'");
      }
    }
    parts.push_back(std::move(part));
  }
  return JoinPartitionValues(parts);
}

}  // namespace mink::table
