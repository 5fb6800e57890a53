#include "lake/committer.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "base/log.h"
#include "lake/attach.h"
#include "lake/foreign_snapshot.h"

namespace mink::lake {

using json = nlohmann::json;

namespace {

// The lake state after `c` (built on `before`) with its metadata file at `metadata_location`, as
// State::ApplyCommand makes it: what the metadata file describes.
metadata::LakeTableState StateAfter(const metadata::LakeTableState& before, const metadata::CommitLakeSnapshot& c,
                                    const std::string& metadata_location) {
  metadata::LakeTableState after = before;
  if (after.table_uuid.empty()) after.table_uuid = c.table_uuid;
  if (after.location.empty()) after.location = c.location;
  if (!before.metadata_location.empty()) after.metadata_log.emplace_back(before.metadata_location, before.last_updated_ms);
  after.metadata_location = metadata_location;
  after.snapshot_id = c.snapshot.snapshot_id;
  after.sequence_number = c.snapshot.sequence_number;
  after.last_updated_ms = std::max(before.last_updated_ms, c.snapshot.timestamp_ms);
  after.snapshots.push_back(c.snapshot);
  return after;
}

class Builtin final : public LakeCommitter {
 public:
  Builtin(metadata::MetadataLog* meta, Warehouse* warehouse) : meta_(meta), warehouse_(warehouse) {}

  Result<metadata::LakeTableState> Prepare(const table::ResolvedTable&, const std::string&,
                                           metadata::LakeTableState lake) override {
    return lake;
  }

  Result<std::string> Publish(const table::ResolvedTable& table, const std::string&,
                              const metadata::LakeTableState& before, metadata::CommitLakeSnapshot commit) override {
    MINK_ASSIGN_OR_RETURN(LakeLayout layout, LakeLayout::Of(table.d));
    MINK_ASSIGN_OR_RETURN(std::string key, warehouse_->KeyOf(commit.location));
    const std::string seq = std::to_string(commit.snapshot.sequence_number);
    commit.metadata_location = warehouse_->Uri(key + "/metadata/v" + seq + ".metadata.json");
    MINK_RETURN_IF_ERROR(warehouse_->Put(key + "/metadata/v" + seq + ".metadata.json",
                                         layout.TableMetadata(StateAfter(before, commit, commit.metadata_location))));
    const std::string location = commit.metadata_location;
    MINK_RETURN_IF_ERROR(meta_->Append(metadata::Command(std::move(commit))).status());
    // For readers that find the current metadata file by the file-system convention.
    (void)warehouse_->Put(key + "/metadata/version-hint.text", seq);
    return location;
  }

  Result<std::optional<metadata::LakeAttach>> PrepareAttach(const std::string& name,
                                                            const table::TableDescriptor& d) override {
    return lake::PrepareAttach(meta_, warehouse_, name, d);
  }

 private:
  metadata::MetadataLog* const meta_;
  Warehouse* const warehouse_;
};

// The snapshot object of `metadata` with id `id`, or null.
const json* SnapshotOf(const json& metadata, int64_t id) {
  auto list = metadata.find("snapshots");
  if (list == metadata.end() || !list->is_array()) return nullptr;
  for (const auto& s : *list) {
    if (s.value("snapshot-id", int64_t{-1}) == id) return &s;
  }
  return nullptr;
}

class Rest final : public LakeCommitter {
 public:
  Rest(metadata::MetadataLog* meta, table::TableStore* tables, Warehouse* warehouse, RestClientOptions options)
      : meta_(meta), tables_(tables), warehouse_(warehouse), options_(std::move(options)) {}

  Result<metadata::LakeTableState> Prepare(const table::ResolvedTable& table, const std::string& name,
                                           metadata::LakeTableState lake) override {
    MINK_ASSIGN_OR_RETURN(RestCatalogClient * client, Client());
    MINK_ASSIGN_OR_RETURN(auto split, Split(name));
    const auto& [space, table_name] = split;
    MINK_ASSIGN_OR_RETURN(LakeLayout layout, LakeLayout::Of(table.d));
    MINK_ASSIGN_OR_RETURN(auto loaded, client->LoadTable(space, table_name));
    if (!loaded) {
      if (lake.snapshot_id != 0) {
        return FailedPreconditionError("the Iceberg REST catalog has no table " + name +
                                       " any more, though Mink committed snapshots to it; not tiering it");
      }
      MINK_RETURN_IF_ERROR(client->EnsureNamespace(space));
      MINK_ASSIGN_OR_RETURN(auto created,
                            client->CreateTable(space, table_name, json::parse(layout.SchemaJson()),
                                                json{{"spec-id", 0}, {"fields", json::parse(layout.PartitionFieldsJson())}},
                                                warehouse_->Uri(space[0] + "/" + table_name),
                                                json{{"mink.table", name}}));
      loaded = std::move(created);
      MINK_LOG_INFO("lake", "created {} in the Iceberg REST catalog at {}", name, options_.uri);
    }
    const json& metadata = loaded->metadata;
    if (lake.table_uuid.empty()) {
      // A table the catalog had before Mink tiered into it (another engine's) is taken over only
      // when it is the table Mink would make; a primary-key table only while it has no rows,
      // which its KV state would not have.
      MINK_RETURN_IF_ERROR(CheckAttachable(metadata, layout, "tiering " + name + " into the Iceberg REST catalog"));
      const int64_t current = metadata.value("current-snapshot-id", int64_t{-1});
      if (table.d.has_primary_key() && current > 0) {
        return FailedPreconditionError("the Iceberg REST catalog's table " + name +
                                       " has snapshots already: a primary-key table takes over a table of an "
                                       "external catalog only while it is empty");
      }
    }
    const std::string uuid = metadata.value("table-uuid", "");
    std::string location = metadata.value("location", "");
    while (!location.empty() && location.back() == '/') location.pop_back();
    if (!lake.table_uuid.empty() && lake.table_uuid != uuid) {
      return FailedPreconditionError("the Iceberg REST catalog's table " + name + " is another table (uuid " + uuid +
                                     ", Mink tiered into " + lake.table_uuid + "); not tiering it");
    }
    if (!warehouse_->KeyOf(location).ok()) {
      return FailedPreconditionError("the Iceberg REST catalog puts " + name + " at " + location +
                                     ", outside the lake warehouse " + warehouse_->base_uri());
    }
    lake.table_uuid = uuid;
    lake.location = location;
    const int64_t current = metadata.value("current-snapshot-id", int64_t{-1});
    if (current <= 0 || current == lake.snapshot_id) return lake;
    // The catalog is ahead (Mink's round committed there before a crash, or other engines'
    // commits): adopt its snapshots since Mink's, oldest first, before tiering on.
    const std::string not_on_top = "the Iceberg REST catalog's table " + name + " is at snapshot " +
                                   std::to_string(current) + ", which is not on top of Mink's " +
                                   std::to_string(lake.snapshot_id) + "; not tiering it";
    std::vector<const json*> ahead;
    for (int64_t id = current; id > 0 && id != lake.snapshot_id;) {
      const json* snapshot = SnapshotOf(metadata, id);
      if (snapshot == nullptr || ahead.size() > metadata.value("snapshots", json::array()).size()) {
        return FailedPreconditionError(not_on_top);
      }
      ahead.push_back(snapshot);
      id = snapshot->value("parent-snapshot-id", int64_t{0});
    }
    if (ahead.back()->value("parent-snapshot-id", int64_t{0}) != lake.snapshot_id) {
      return FailedPreconditionError(not_on_top);
    }
    for (auto it = ahead.rbegin(); it != ahead.rend(); ++it) {
      MINK_ASSIGN_OR_RETURN(lake, Adopt(table, name, layout, metadata, **it, loaded->metadata_location,
                                        std::move(lake)));
    }
    return lake;
  }

  Result<std::string> Publish(const table::ResolvedTable& table, const std::string& name,
                              const metadata::LakeTableState& before, metadata::CommitLakeSnapshot commit) override {
    MINK_ASSIGN_OR_RETURN(RestCatalogClient * client, Client());
    MINK_ASSIGN_OR_RETURN(auto split, Split(name));
    const auto& [space, table_name] = split;
    MINK_ASSIGN_OR_RETURN(LakeLayout layout, LakeLayout::Of(table.d));
    json requirements = json::array({{{"type", "assert-table-uuid"}, {"uuid", commit.table_uuid}},
                                     {{"type", "assert-ref-snapshot-id"},
                                      {"ref", "main"},
                                      {"snapshot-id", before.snapshot_id == 0 ? json(nullptr) : json(before.snapshot_id)}}});
    json updates = json::array();
    if (before.snapshots.empty() || before.snapshots.back().schema_id != layout.schema_id()) {
      // The table's current schema (the same field ids as before), made current: schema changes
      // reach the lake table.
      updates.push_back({{"action", "add-schema"}, {"schema", json::parse(layout.SchemaJson())}});
      updates.push_back({{"action", "set-current-schema"}, {"schema-id", -1}});
    }
    const metadata::LakeSnapshot& s = commit.snapshot;
    const json snapshot = json::parse(SnapshotJson(s));
    updates.push_back({{"action", "add-snapshot"}, {"snapshot", snapshot}});
    updates.push_back({{"action", "set-snapshot-ref"}, {"ref-name", "main"}, {"type", "branch"},
                       {"snapshot-id", s.snapshot_id}});
    MINK_ASSIGN_OR_RETURN(auto committed, client->CommitTable(space, table_name, requirements, updates));
    // The catalog has the snapshot: a crash before the command below is mended by Prepare.
    commit.metadata_location = committed.metadata_location;
    MINK_RETURN_IF_ERROR(meta_->Append(metadata::Command(std::move(commit))).status());
    return committed.metadata_location;
  }

  Result<std::optional<metadata::LakeAttach>> PrepareAttach(const std::string& name,
                                                            const table::TableDescriptor& d) override {
    MINK_ASSIGN_OR_RETURN(RestCatalogClient * client, Client());
    MINK_ASSIGN_OR_RETURN(auto split, Split(name));
    const auto& [space, table_name] = split;
    auto loaded = client->LoadTable(space, table_name);
    if (!loaded.ok()) {
      return UnavailableError("creating " + name + ": the Iceberg REST catalog at " + options_.uri +
                              " cannot say whether it has the table: " + loaded.status().message());
    }
    if (!loaded->has_value()) return std::optional<metadata::LakeAttach>();
    MINK_ASSIGN_OR_RETURN(metadata::LakeAttach attach,
                          AttachOf(warehouse_, name, d, (*loaded)->metadata, (*loaded)->metadata_location));
    attach.external = true;
    return std::optional<metadata::LakeAttach>(std::move(attach));
  }

 private:
  // Records `snapshot` (of the catalog's `metadata`, on top of `lake`'s) as the table's lake:
  // the files and manifests that came and went, and its mink-offsets as what is tiered now.
  // `metadata_location`: the catalog's metadata file (it has every snapshot adopted).
  Result<metadata::LakeTableState> Adopt(const table::ResolvedTable& table, const std::string& name,
                                         const LakeLayout& layout, const json& metadata, const json& snapshot,
                                         std::string metadata_location, metadata::LakeTableState lake) {
    const int64_t id = snapshot.value("snapshot-id", int64_t{0});
    const std::string adopting = "adopting " + name + "'s snapshot " + std::to_string(id);
    MINK_ASSIGN_OR_RETURN(ForeignSnapshot foreign,
                          ReadForeignSnapshot(warehouse_, layout, metadata.value("default-spec-id", int64_t{0}),
                                              snapshot, adopting));
    foreign.snapshot.schema_id = layout.schema_id();
    metadata::CommitLakeSnapshot commit;
    commit.table_id = table.id;
    commit.table_uuid = lake.table_uuid;
    commit.location = lake.location;
    commit.metadata_location = std::move(metadata_location);
    const std::vector<table::TableBucket> buckets = tables_->AllBuckets(table);
    std::map<std::string, uint64_t> streams;  // bucket label -> stream
    for (const auto& b : buckets) streams[b.label] = b.stream_id;
    const int64_t adopted_seq = foreign.snapshot.sequence_number;
    MINK_RETURN_IF_ERROR(TakeOver(lake, std::move(foreign), StreamsOf(buckets), adopting, &commit));
    // Its mink-offsets are what is tiered now.
    if (auto it = commit.snapshot.summary.find("mink-offsets"); it != commit.snapshot.summary.end()) {
      const json offsets = json::parse(it->second, nullptr, false);
      if (offsets.is_object()) {
        for (auto o = offsets.begin(); o != offsets.end(); ++o) {
          auto stream = streams.find(o.key());
          if (stream == streams.end() || !o->is_number_integer()) continue;
          const int64_t end = o->get<int64_t>();
          auto known = lake.offsets.find(stream->second);
          if (known == lake.offsets.end() || known->second < end) commit.offsets.emplace_back(stream->second, end);
        }
      }
    }
    MINK_RETURN_IF_ERROR(meta_->Append(metadata::Command(std::move(commit))).status());
    MINK_LOG_INFO("lake", "{}: adopted the Iceberg REST catalog's snapshot {} (sequence {})", name, id, adopted_seq);
    // The lake as the state now has it.
    meta_->Read([&](const metadata::State& s) {
      if (auto it = s.lake_tables().find(table.id); it != s.lake_tables().end()) lake = it->second;
    });
    return lake;
  }

  static Result<std::pair<RestCatalogClient::Namespace, std::string>> Split(const std::string& name) {
    std::string database, table;
    MINK_RETURN_IF_ERROR(table::SplitTableName(name, &database, &table));
    return std::make_pair(RestCatalogClient::Namespace{database}, table);
  }

  // Connects on first use, so a node starts while the catalog is away.
  Result<RestCatalogClient*> Client() {
    std::lock_guard lock(mutex_);
    if (client_ == nullptr) {
      MINK_ASSIGN_OR_RETURN(client_, RestCatalogClient::Connect(options_));
    }
    return client_.get();
  }

  metadata::MetadataLog* const meta_;
  table::TableStore* const tables_;
  Warehouse* const warehouse_;
  const RestClientOptions options_;
  std::mutex mutex_;
  std::unique_ptr<RestCatalogClient> client_;
};

}  // namespace

std::unique_ptr<LakeCommitter> BuiltinCommitter(metadata::MetadataLog* meta, Warehouse* warehouse) {
  return std::make_unique<Builtin>(meta, warehouse);
}

std::unique_ptr<LakeCommitter> RestCommitter(metadata::MetadataLog* meta, table::TableStore* tables,
                                             Warehouse* warehouse, RestClientOptions options) {
  return std::make_unique<Rest>(meta, tables, warehouse, std::move(options));
}

}  // namespace mink::lake
