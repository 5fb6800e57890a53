#include "client/table_description.h"

#include <algorithm>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>

namespace mink::client {
namespace {

using nlohmann::json;

std::vector<std::string> Strings(const json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string String(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<int64_t> Int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

std::string Join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += items[i];
  }
  return out;
}

std::string FormatDurationMs(int64_t ms) {
  if (ms <= 0) return "forever";
  static constexpr std::pair<int64_t, const char*> kUnits[] = {
      {86'400'000, "d"}, {3'600'000, "h"}, {60'000, "m"}, {1'000, "s"}};
  for (const auto& [size, suffix] : kUnits) {
    if (ms % size == 0) return std::to_string(ms / size) + suffix;
  }
  return std::to_string(ms) + "ms";
}

// "node 1: b0 b3; node 2: b1 b4; moving: b2", nodes in id order.
std::string FormatOwners(const std::vector<std::pair<std::string, int64_t>>& owners) {
  std::map<int64_t, std::vector<std::string>> by_node;
  for (const auto& [bucket, node] : owners) by_node[node].push_back(bucket);
  std::vector<std::string> parts;
  for (const auto& [node, buckets] : by_node) {
    if (node == 0) continue;
    parts.push_back("node " + std::to_string(node) + ": " + Join(buckets, " "));
  }
  if (auto it = by_node.find(0); it != by_node.end()) {
    parts.push_back("moving: " + Join(it->second, " "));
  }
  return Join(parts, "; ");
}

Result<TableDescription> FromJson(const json& j) {
  if (!j.is_object()) return InvalidArgumentError("describe-table answered with a non-object");
  TableDescription d;
  d.table = String(j, "table");
  auto columns = j.find("columns");
  if (columns == j.end() || !columns->is_array()) {
    return InvalidArgumentError("describe-table answered without \"columns\"");
  }
  for (const auto& c : *columns) {
    if (!c.is_object()) return InvalidArgumentError("describe-table: a column is not an object");
    ColumnSpec spec;
    spec.name = String(c, "name");
    spec.type_text = String(c, "type");
    auto nn = c.find("not_null");
    spec.not_null = nn != c.end() && nn->is_boolean() && nn->get<bool>();
    auto type = table::ParseType(spec.type_text);
    if (!type.ok()) {
      return InvalidArgumentError("describe-table: column '" + spec.name +
                                  "': " + type.status().message());
    }
    spec.type = std::move(*type);
    d.columns.push_back(std::move(spec));
  }
  d.primary_key = Strings(j, "primary_key");
  d.partition_keys = Strings(j, "partition_keys");
  d.bucket_keys = Strings(j, "bucket_keys");
  d.bucket_count = Int(j, "bucket_count").value_or(0);
  d.bucket_function = String(j, "bucket_function");
  d.merge_engine = String(j, "merge_engine");
  d.changelog_image = String(j, "changelog_image");
  d.log_ttl_ms = Int(j, "log_ttl_ms");
  d.auto_increment = String(j, "auto_increment");
  if (auto lake = j.find("lake"); lake != j.end() && lake->is_object()) {
    d.lake_format = String(*lake, "format");
    d.lake_freshness_ms = Int(*lake, "freshness_ms").value_or(0);
    d.lake_snapshot_id = Int(*lake, "snapshot_id").value_or(0);
    d.lake_lag_ms = Int(*lake, "lag_ms").value_or(0);
  }
  if (auto it = j.find("options"); it != j.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) {
      d.options.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
  if (auto it = j.find("partitions"); it != j.end() && it->is_array()) {
    for (const auto& p : *it) {
      if (!p.is_object()) continue;
      d.partitions.emplace_back(String(p, "name"), Int(p, "id").value_or(0));
    }
  }
  if (auto it = j.find("owners"); it != j.end() && it->is_array()) {
    for (const auto& o : *it) {
      if (!o.is_object()) continue;
      d.owners.emplace_back(String(o, "bucket"), Int(o, "owner").value_or(0));
    }
  }
  d.schema_id = Int(j, "schema_id").value_or(0);
  return d;
}

}  // namespace

int TableDescription::Find(const std::string& name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

bool TableDescription::IsPrimaryKey(const std::string& name) const {
  return std::find(primary_key.begin(), primary_key.end(), name) != primary_key.end();
}

Result<TableDescription> ParseTableDescription(const std::string& json_text) {
  try {
    return FromJson(json::parse(json_text));
  } catch (const std::exception& e) {
    return InvalidArgumentError(std::string("describe-table answered with bad JSON: ") + e.what());
  }
}

Result<TableDescription> ParseTableDescription(const nlohmann::json& answer) {
  try {
    return FromJson(answer);
  } catch (const std::exception& e) {
    return InvalidArgumentError(std::string("describe-table answered with bad JSON: ") + e.what());
  }
}

std::string FormatTableDescription(const TableDescription& d) {
  std::vector<std::pair<std::string, std::string>> lines;
  lines.emplace_back("table", d.table);
  lines.emplace_back("kind", d.has_primary_key() ? "primary-key table" : "log table");
  if (d.has_primary_key()) lines.emplace_back("primary key", Join(d.primary_key));
  if (!d.partition_keys.empty()) lines.emplace_back("partitioned by", Join(d.partition_keys));
  std::string buckets = std::to_string(d.bucket_count);
  if (!d.bucket_keys.empty()) buckets += ", by " + Join(d.bucket_keys);
  if (!d.bucket_function.empty()) buckets += " (" + d.bucket_function + " hash)";
  lines.emplace_back("buckets", buckets);
  if (d.has_primary_key()) {
    if (!d.merge_engine.empty()) lines.emplace_back("merge engine", d.merge_engine);
    if (!d.changelog_image.empty()) lines.emplace_back("changelog image", d.changelog_image);
  }
  if (d.log_ttl_ms) lines.emplace_back("log ttl", FormatDurationMs(*d.log_ttl_ms));
  if (!d.auto_increment.empty()) lines.emplace_back("auto increment", d.auto_increment);
  if (!d.lake_format.empty()) {
    std::string lake = d.lake_format + ", freshness " + FormatDurationMs(d.lake_freshness_ms);
    lake += d.lake_snapshot_id == 0 ? ", nothing tiered yet"
                                    : ", snapshot " + std::to_string(d.lake_snapshot_id);
    lake += d.lake_lag_ms == 0 ? ", up to date"
            : d.lake_lag_ms < 0 ? ""
                                : ", " + FormatDurationMs(d.lake_lag_ms) + " behind";
    lines.emplace_back("lake", lake);
  }
  for (const auto& [k, v] : d.options) lines.emplace_back("option " + k, v);
  std::vector<std::string> partitions;
  for (const auto& [name, id] : d.partitions) {
    partitions.push_back(name + " (p" + std::to_string(id) + ")");
  }
  if (!d.partition_keys.empty()) {
    lines.emplace_back("partitions", partitions.empty() ? "none yet" : Join(partitions));
  }
  if (!d.owners.empty()) lines.emplace_back("owners", FormatOwners(d.owners));
  lines.emplace_back("schema id", std::to_string(d.schema_id));

  size_t label_width = std::string("columns").size();
  for (const auto& [label, value] : lines) label_width = std::max(label_width, label.size());
  size_t name_width = 0;
  for (const auto& c : d.columns) name_width = std::max(name_width, c.name.size());

  auto line = [&](const std::string& label, const std::string& value) {
    return label + std::string(label_width - label.size() + 2, ' ') + value + "\n";
  };
  std::string out = line(lines[0].first, lines[0].second);
  out += "columns\n";
  for (const auto& c : d.columns) {
    out += "  " + c.name + std::string(name_width - c.name.size() + 2, ' ') + c.type_text;
    if (c.not_null) out += " NOT NULL";
    if (d.IsPrimaryKey(c.name)) out += "  (primary key)";
    if (c.name == d.auto_increment) out += "  (auto increment)";
    out += "\n";
  }
  for (size_t i = 1; i < lines.size(); ++i) out += line(lines[i].first, lines[i].second);
  return out;
}

}  // namespace mink::client
