#include "lake/attach.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "lake/iceberg.h"
#include "lake/foreign_snapshot.h"
#include "table/catalog.h"

namespace mink::lake {
namespace {

using json = nlohmann::json;

std::string Canonical(std::string type) {
  std::erase_if(type, [](unsigned char c) { return std::isspace(c) != 0; });
  std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
  return type;
}

std::string TypeText(const json& type) { return type.is_string() ? type.get<std::string>() : type.dump(); }

// The object of the array `parent[list]` whose `key` is `id`, or null.
const json* ById(const json& parent, const char* list, const char* key, int64_t id) {
  auto items = parent.find(list);
  if (items == parent.end() || !items->is_array()) return nullptr;
  for (const auto& item : *items) {
    if (item.is_object() && item.value(key, int64_t{-1}) == id) return &item;
  }
  return nullptr;
}

}  // namespace

Status CheckAttachable(const json& metadata, const LakeLayout& layout, const std::string& what) {
  const json* schema = ById(metadata, "schemas", "schema-id",
                            metadata.value("current-schema-id", int64_t{0}));
  if (schema == nullptr || !schema->contains("fields") || !(*schema)["fields"].is_array()) {
    return DataLossError(what + ": its metadata has no current schema");
  }
  const json& fields = (*schema)["fields"];
  const auto& mine = layout.fields();
  for (size_t i = 0; i < std::max(fields.size(), mine.size()); ++i) {
    const std::string at = what + ": column " + std::to_string(i + 1) + ": ";
    if (i >= fields.size()) return InvalidArgumentError(at + "the lake table has no column " + mine[i].name);
    const json& f = fields[i];
    const std::string name = f.value("name", "");
    if (i >= mine.size()) return InvalidArgumentError(at + "the Mink table has no column " + name);
    const IcebergField& m = mine[i];
    if (name != m.name) {
      return InvalidArgumentError(at + "the lake table names it " + name + ", the Mink table " + m.name);
    }
    if (f.value("id", int64_t{-1}) != m.id) {
      return InvalidArgumentError(at + name + " has field id " + std::to_string(f.value("id", int64_t{-1})) +
                                  " in the lake table, " + std::to_string(m.id) + " in the Mink table");
    }
    const std::string type = f.contains("type") ? TypeText(f["type"]) : "";
    if (Canonical(type) != Canonical(m.type)) {
      return InvalidArgumentError(at + name + " is " + type + " in the lake table, " + m.type + " in the Mink table");
    }
    if (f.value("required", false) != m.required) {
      return InvalidArgumentError(at + name + " is " + (f.value("required", false) ? "required" : "optional") +
                                  " in the lake table, " + (m.required ? "NOT NULL" : "nullable") +
                                  " in the Mink table");
    }
  }
  std::vector<int32_t> identifiers = schema->value("identifier-field-ids", std::vector<int32_t>{});
  if (identifiers != layout.identifier_ids()) {
    return InvalidArgumentError(what + ": its identifier fields " + json(identifiers).dump() +
                                " are not the Mink table's primary key " + json(layout.identifier_ids()).dump());
  }
  const json* spec = ById(metadata, "partition-specs", "spec-id",
                          metadata.value("default-spec-id", int64_t{0}));
  if (spec == nullptr) return DataLossError(what + ": its metadata has no default partition spec");
  const json parts = spec->value("fields", json::array());
  const auto& my_parts = layout.partition();
  for (size_t i = 0; i < std::max(parts.size(), my_parts.size()); ++i) {
    const std::string at = what + ": partition field " + std::to_string(i + 1) + ": ";
    if (i >= parts.size()) {
      return InvalidArgumentError(at + "the lake table has none, the Mink table " + my_parts[i].transform + " of field " +
                                  std::to_string(my_parts[i].source_id));
    }
    const json& p = parts[i];
    const std::string transform = p.value("transform", "");
    if (i >= my_parts.size()) return InvalidArgumentError(at + "the Mink table has none, the lake table " + transform);
    if (p.value("source-id", int64_t{-1}) != my_parts[i].source_id || Canonical(transform) != my_parts[i].transform) {
      return InvalidArgumentError(at + "the lake table has " + transform + " of field " +
                                  std::to_string(p.value("source-id", int64_t{-1})) + ", the Mink table " +
                                  my_parts[i].transform + " of field " + std::to_string(my_parts[i].source_id));
    }
  }
  return Status::Ok();
}

Result<metadata::LakeAttach> AttachOf(Warehouse* warehouse, const std::string& name, const table::TableDescriptor& d,
                                      const json& metadata, const std::string& metadata_location) {
  std::string database, table_name;
  MINK_RETURN_IF_ERROR(table::SplitTableName(name, &database, &table_name));
  metadata::LakeAttach attach;
  attach.space = {database};
  attach.name = table_name;
  attach.metadata_location = metadata_location;
  const std::string what = "attaching the lake table " + name;
  MINK_ASSIGN_OR_RETURN(LakeLayout layout, LakeLayout::Of(d));
  if (metadata.value("format-version", 0) != 2) {
    return InvalidArgumentError(what + ": it is an Iceberg v" + std::to_string(metadata.value("format-version", 0)) +
                                " table; Mink tiers into v2 tables");
  }
  MINK_RETURN_IF_ERROR(CheckAttachable(metadata, layout, what));

  metadata::CommitLakeSnapshot& commit = attach.commit;
  commit.table_uuid = metadata.value("table-uuid", "");
  commit.location = metadata.value("location", "");
  commit.metadata_location = metadata_location;
  attach.last_sequence_number = metadata.value("last-sequence-number", int64_t{0});
  while (!commit.location.empty() && commit.location.back() == '/') commit.location.pop_back();
  if (!warehouse->KeyOf(commit.location).ok()) {
    return InvalidArgumentError(what + ": its location " + commit.location + " is not in the warehouse " +
                                warehouse->base_uri());
  }
  const int64_t current = metadata.value("current-snapshot-id", int64_t{-1});
  const json* snapshot = ById(metadata, "snapshots", "snapshot-id", current);
  if (current <= 0 || snapshot == nullptr) return attach;

  MINK_ASSIGN_OR_RETURN(ForeignSnapshot foreign,
                        ReadForeignSnapshot(warehouse, layout, metadata.value("default-spec-id", int64_t{0}),
                                            *snapshot, what));
  // The partitions the files are in are created with the table, in the order of their names;
  // each file's bucket becomes its index among the table's buckets.
  std::set<std::string> partitions(foreign.partitions.begin(), foreign.partitions.end());
  if (d.partitioned()) attach.partitions.assign(partitions.begin(), partitions.end());
  for (size_t i = 0; i < foreign.files.size(); ++i) {
    const auto at = std::lower_bound(attach.partitions.begin(), attach.partitions.end(), foreign.partitions[i]);
    foreign.files[i].stream_id += static_cast<uint64_t>(at - attach.partitions.begin()) * d.bucket_count;
  }
  commit.snapshot = std::move(foreign.snapshot);
  commit.snapshot.schema_id = layout.schema_id();  // the same columns (Compare), under Mink's schema id
  commit.added_manifests = std::move(foreign.manifests);
  commit.added_files = std::move(foreign.files);
  return attach;
}

Result<std::optional<metadata::LakeAttach>> PrepareAttach(metadata::MetadataLog* meta, Warehouse* warehouse,
                                                          const std::string& name,
                                                          const table::TableDescriptor& d) {
  std::string database, table_name;
  MINK_RETURN_IF_ERROR(table::SplitTableName(name, &database, &table_name));
  const std::string metadata_location = meta->Read([&](const metadata::State& s) {
    auto it = s.lake_catalog_tables().find({{database}, table_name});
    return it == s.lake_catalog_tables().end() ? std::string() : it->second.metadata_location;
  });
  if (metadata_location.empty()) return std::optional<metadata::LakeAttach>();
  MINK_ASSIGN_OR_RETURN(std::string text, warehouse->Read(metadata_location));
  json metadata = json::parse(text, nullptr, false);
  if (!metadata.is_object()) {
    return DataLossError("attaching the lake table " + name + ": " + metadata_location + " is not JSON");
  }
  MINK_ASSIGN_OR_RETURN(metadata::LakeAttach attach, AttachOf(warehouse, name, d, metadata, metadata_location));
  return std::optional<metadata::LakeAttach>(std::move(attach));
}

}  // namespace mink::lake
