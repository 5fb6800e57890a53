#pragma once
// Table descriptions for the cli tests, as the node's describe-table answers them.

#include <string>

#include "client/table_description.h"

namespace mink::cli::testing {

// A describe-table answer with the given columns ("name", "TYPE", not_null).
inline std::string DescribeJson(const std::string& table, const std::string& columns_json,
                                const std::string& primary_key_json = "[]") {
  return R"({"table": ")" + table + R"(", "columns": )" + columns_json + R"(, "primary_key": )" +
         primary_key_json +
         R"(, "partition_keys": [], "bucket_keys": [], "bucket_count": 1, "bucket_function": "native",
            "merge_engine": "default", "changelog_image": "full", "log_ttl_ms": 604800000,
            "partitions": [], "schema_id": 1})";
}

// shop.orders of the quick start.
inline client::TableDescription Orders() {
  auto d = client::ParseTableDescription(
      DescribeJson("shop.orders",
                   R"j([{"name": "id", "type": "BIGINT", "not_null": true},
          {"name": "region", "type": "STRING", "not_null": true},
          {"name": "amount", "type": "DECIMAL(10,2)", "not_null": false}])j",
                   R"(["id", "region"])"));
  return *d;
}

}  // namespace mink::cli::testing
