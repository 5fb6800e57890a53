#pragma once
// TableDescription: the answer of the `describe-table` action (docs/flight-api.md), parsed, with
// every column's type as a table::LogicalType.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "table/types.h"

namespace mink::client {

struct ColumnSpec {
  std::string name;
  table::LogicalType type;
  std::string type_text;  // as the node wrote it, e.g. "DECIMAL(10,2)"
  bool not_null = false;
};

struct TableDescription {
  std::string table;  // database.table
  std::vector<ColumnSpec> columns;
  std::vector<std::string> primary_key;
  std::vector<std::string> partition_keys;
  std::vector<std::string> bucket_keys;
  int64_t bucket_count = 0;
  std::string bucket_function;
  std::string merge_engine;
  std::string changelog_image;
  std::optional<int64_t> log_ttl_ms;
  std::string auto_increment;  // the column the table fills for each new key ("" = none)
  // Tiering into the lake: its format ("" when not tiered), freshness, last snapshot and lag
  // (0: the lake has every row; -1: nothing tiered yet though rows wait).
  std::string lake_format;
  int64_t lake_freshness_ms = 0;
  int64_t lake_snapshot_id = 0;
  int64_t lake_lag_ms = 0;
  std::vector<std::pair<std::string, std::string>> options;
  std::vector<std::pair<std::string, int64_t>> partitions;  // name, id
  std::vector<std::pair<std::string, int64_t>> owners;  // bucket label, node (0: moving)
  int64_t schema_id = 0;

  // Index of the column or -1.
  int Find(const std::string& name) const;
  bool IsPrimaryKey(const std::string& name) const;
  bool has_primary_key() const { return !primary_key.empty(); }
};

// Parses the describe-table result body (a JSON object). Unknown keys are ignored; a missing
// "columns" or a column type that does not parse is an error.
Result<TableDescription> ParseTableDescription(const std::string& json_text);
// The same, of the answer already parsed (what RunAction returns).
Result<TableDescription> ParseTableDescription(const nlohmann::json& answer);

// Human-readable form for `mink table describe`.
std::string FormatTableDescription(const TableDescription& d);

}  // namespace mink::client
