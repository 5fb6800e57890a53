#include "lake/table_locations.h"

#include <algorithm>
#include <vector>
#include <nlohmann/json.hpp>

#include "base/log.h"
#include "lake/manifest_reader.h"

namespace mink::lake {
namespace {

using Json = nlohmann::json;

std::string NameOf(const metadata::LakeTableName& name) {
  std::string out;
  for (const auto& level : name.first) out += level + ".";
  return out + name.second;
}

void AddString(const Json& object, const char* field, std::set<std::string>* out) {
  if (object.is_object() && object.contains(field) && object.at(field).is_string()) {
    out->insert(object.at(field).get<std::string>());
  }
}

}  // namespace

bool LocationsOverlap(const std::string& a, const std::string& b) {
  auto under = [](const std::string& inner, const std::string& outer) {
    return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/';
  };
  return a == b || under(a, b) || under(b, a);
}

std::string TableLocations::EngineLocation(const std::string& metadata_location) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = engine_locations_.find(metadata_location); it != engine_locations_.end()) return it->second;
  }
  std::string key;
  auto text = warehouse_->Read(metadata_location);
  if (text.ok()) {
    Json metadata = Json::parse(*text, nullptr, false);
    if (metadata.is_object() && metadata.contains("location") && metadata.at("location").is_string()) {
      std::string location = metadata.at("location").get<std::string>();
      while (!location.empty() && location.back() == '/') location.pop_back();
      if (auto k = warehouse_->KeyOf(location); k.ok()) key = *k;
    }
  }
  if (!text.ok() && text.status().code() != StatusCode::kNotFound) return key;  // not cached: ask again
  std::lock_guard<std::mutex> lock(mu_);
  engine_locations_[metadata_location] = key;
  return key;
}

std::map<std::string, std::string> TableLocations::Locations(const metadata::State& s,
                                                            const metadata::LakeTableName* self) {
  std::map<std::string, std::string> out;
  for (const auto& [id, t] : s.tables()) {
    std::string key = t.database + "/" + t.name;
    std::replace(key.begin() + static_cast<std::ptrdiff_t>(t.database.size()) + 1, key.end(), '.', '/');
    if (auto lake = s.lake_tables().find(id); lake != s.lake_tables().end() && !lake->second.location.empty()) {
      if (auto k = warehouse_->KeyOf(lake->second.location); k.ok()) key = *k;
    }
    out[t.full_name()] = key;
  }
  for (const auto& [name, table] : s.lake_catalog_tables()) {
    if (self != nullptr && name == *self) continue;
    if (std::string key = EngineLocation(table.metadata_location); !key.empty()) out[NameOf(name)] = key;
  }
  return out;
}

Status TableLocations::CheckFree(const metadata::State& s, const std::string& location,
                                 const metadata::LakeTableName& self) {
  std::string trimmed = location;
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.pop_back();
  MINK_ASSIGN_OR_RETURN(std::string key, warehouse_->KeyOf(trimmed));
  for (const auto& [table, other] : Locations(s, &self)) {
    if (LocationsOverlap(key, other)) {
      return InvalidArgumentError("location " + trimmed + " overlaps the location of table " + table + " (" +
                                  warehouse_->Uri(other) + "): tables may not share files");
    }
  }
  return Status::Ok();
}

Status TableLocations::CheckFreeNow(const metadata::MetadataLog& meta, const std::string& location,
                                    const metadata::LakeTableName& self) {
  std::vector<std::string> files = meta.Read([](const metadata::State& s) {
    std::vector<std::string> out;
    for (const auto& [name, table] : s.lake_catalog_tables()) out.push_back(table.metadata_location);
    return out;
  });
  for (const auto& file : files) EngineLocation(file);  // cached: the check below reads nothing
  return meta.Read([&](const metadata::State& s) { return CheckFree(s, location, self); });
}

Result<std::set<std::string>> TableLocations::Reachable(const std::string& metadata_location) {
  std::set<std::string> files = {metadata_location};
  auto text = warehouse_->Read(metadata_location);
  if (!text.ok()) return text.status().code() == StatusCode::kNotFound ? files : Result<std::set<std::string>>(text.status());
  Json metadata = Json::parse(*text, nullptr, false);
  if (!metadata.is_object()) return DataLossError("the table metadata file " + metadata_location + " is not JSON");
  for (const auto& entry : metadata.value("metadata-log", Json::array())) AddString(entry, "metadata-file", &files);
  for (const char* list : {"statistics", "partition-statistics"}) {
    for (const auto& entry : metadata.value(list, Json::array())) AddString(entry, "statistics-path", &files);
  }
  std::set<std::string> manifest_lists;
  for (const auto& snapshot : metadata.value("snapshots", Json::array())) AddString(snapshot, "manifest-list", &manifest_lists);
  std::set<std::string> manifests;
  for (const auto& list : manifest_lists) {
    files.insert(list);
    auto bytes = warehouse_->Read(list);
    if (!bytes.ok()) {
      if (bytes.status().code() == StatusCode::kNotFound) continue;
      return bytes.status();
    }
    MINK_ASSIGN_OR_RETURN(auto records, ReadManifestList(*bytes, list));
    for (const auto& r : records) manifests.insert(r.manifest_path);
  }
  for (const auto& manifest : manifests) {
    files.insert(manifest);
    auto bytes = warehouse_->Read(manifest);
    if (!bytes.ok()) {
      if (bytes.status().code() == StatusCode::kNotFound) continue;
      return bytes.status();
    }
    MINK_ASSIGN_OR_RETURN(auto records, ReadManifest(*bytes, manifest));
    for (const auto& r : records) files.insert(r.file_path);
  }
  return files;
}

Result<size_t> TableLocations::Purge(const metadata::State& s, const std::string& metadata_location) {
  MINK_ASSIGN_OR_RETURN(std::set<std::string> files, Reachable(metadata_location));
  // What other tables reach, and where they keep files (both as warehouse keys).
  std::set<std::string> kept;
  auto keep = [&](const std::set<std::string>& uris) {
    for (const auto& uri : uris) {
      if (auto k = warehouse_->KeyOf(uri); k.ok()) kept.insert(*k);
    }
  };
  for (const auto& [name, table] : s.lake_catalog_tables()) {
    MINK_ASSIGN_OR_RETURN(auto reached, Reachable(table.metadata_location));
    keep(reached);
  }
  for (const auto& [id, lake] : s.lake_tables()) {
    if (lake.metadata_location.empty()) continue;
    MINK_ASSIGN_OR_RETURN(auto reached, Reachable(lake.metadata_location));
    keep(reached);
  }
  const auto locations = Locations(s, nullptr);
  size_t deleted = 0;
  for (const auto& uri : files) {
    auto key = warehouse_->KeyOf(uri);
    if (!key.ok() || kept.count(*key) > 0) continue;  // outside the warehouse, or another table's
    bool under_other = std::any_of(locations.begin(), locations.end(),
                                   [&](const auto& l) { return LocationsOverlap(*key, l.second); });
    if (under_other) continue;
    if (Status st = warehouse_->Delete(uri); !st.ok()) {
      MINK_LOG_WARN("lake", "purging {}: {}", uri, st.ToString());
      continue;
    }
    ++deleted;
  }
  return deleted;
}

}  // namespace mink::lake
