#include "lake/tiered_commit.h"

#include <map>

#include "lake/committer.h"
#include "lake/foreign_snapshot.h"
#include "lake/iceberg.h"
#include "lake/table_metadata.h"

namespace mink::lake {

using json = nlohmann::json;

namespace {

// The mink-offsets of a snapshot summary as JSON ({} when it has none).
json OffsetsOf(const std::map<std::string, std::string>& summary) {
  auto it = summary.find("mink-offsets");
  if (it == summary.end()) return json::object();
  json j = json::parse(it->second, nullptr, false);
  return j.is_discarded() ? json(it->second) : j;
}

}  // namespace

Result<TieredCommit> CommitToTieredTable(metadata::MetadataLog* meta, table::TableStore* tables,
                                         Warehouse* warehouse, const std::string& name, const rest::TableChange& change) {
  const std::string what = "commit to " + name;
  MINK_ASSIGN_OR_RETURN(auto table, tables->Resolve(name));
  MINK_ASSIGN_OR_RETURN(LakeLayout layout, LakeLayout::Of(table->d));
  metadata::LakeTableState lake;
  meta->Read([&](const metadata::State& s) {
    if (auto it = s.lake_tables().find(table->id); it != s.lake_tables().end()) lake = it->second;
  });
  if (lake.metadata_location.empty()) return NotFoundError("table " + name + " has no lake snapshot yet");
  MINK_ASSIGN_OR_RETURN(std::string text, warehouse->Read(lake.metadata_location));
  const json base = json::parse(text, nullptr, false);
  if (!base.is_object()) return DataLossError(lake.metadata_location + " is not JSON");

  bool asserts_main = false;
  for (const auto& r : change.requirements) {
    MINK_RETURN_IF_ERROR(CheckRequirement(&base, r));
    asserts_main |= StringOr(r, "type") == "assert-ref-snapshot-id" && StringOr(r, "ref") == "main";
  }
  if (!asserts_main) {
    return FailedPreconditionError(what + ": a commit to a table Mink tiers asserts the main branch's snapshot "
                                   "(assert-ref-snapshot-id of main)");
  }
  const json* added = nullptr;
  const json* moved = nullptr;
  for (const auto& u : change.updates) {
    const std::string action = StringOr(u, "action");
    if (action == "add-snapshot" && added == nullptr && u.contains("snapshot") && u["snapshot"].is_object()) {
      added = &u["snapshot"];
    } else if (action == "set-snapshot-ref" && moved == nullptr && StringOr(u, "ref-name") == "main") {
      moved = &u;
    } else {
      return FailedPreconditionError(what + ": update " + (action.empty() ? u.dump() : action) +
                                     " is not accepted on a table Mink tiers (one add-snapshot and set-snapshot-ref "
                                     "of main only)");
    }
  }
  if (added == nullptr || moved == nullptr ||
      IntOr(*moved, "snapshot-id", 0) != IntOr(*added, "snapshot-id", -1)) {
    return FailedPreconditionError(what + ": a commit to a table Mink tiers adds one snapshot and moves main to it");
  }
  if (IntOr(*added, "parent-snapshot-id", 0) != lake.snapshot_id ||
      IntOr(*added, "sequence-number", 0) != lake.sequence_number + 1) {
    return AbortedError(what + ": the snapshot is not on top of the current one (snapshot " +
                        std::to_string(lake.snapshot_id) + ", sequence number " + std::to_string(lake.sequence_number) +
                        ")");
  }
  if (added->contains("schema-id") && IntOr(*added, "schema-id", -1) != layout.schema_id()) {
    return InvalidArgumentError(what + ": the snapshot's schema-id is not the current schema " +
                                std::to_string(layout.schema_id()));
  }
  std::map<std::string, std::string> summary = SummaryOf(*added), current_summary;
  for (const auto& s : lake.snapshots) {
    if (s.snapshot_id == lake.snapshot_id) current_summary = s.summary;
  }
  if (OffsetsOf(summary) != OffsetsOf(current_summary)) {
    return FailedPreconditionError(what + ": table " + name + " is tiered by Mink, and the snapshot's mink-offsets " +
                                   OffsetsOf(summary).dump() + " are not the current " +
                                   OffsetsOf(current_summary).dump() + " (they say how far each bucket's log is in "
                                   "the lake; only Mink's tiering moves them)");
  }
  const std::string operation = summary.count("operation") ? summary["operation"] : "";
  if (table->d.has_primary_key() && operation != "replace") {
    return FailedPreconditionError(what + ": table " + name + " is a Mink primary-key table: its rows are its KV "
                                   "state's, so another engine may only rewrite its files (operation replace), not " +
                                   (operation.empty() ? std::string("an unnamed operation") : operation));
  }
  MINK_ASSIGN_OR_RETURN(ForeignSnapshot foreign,
                        ReadForeignSnapshot(warehouse, layout, 0, *added, what));
  foreign.snapshot.schema_id = layout.schema_id();

  // The files and manifests that come and go; buckets become the table's bucket streams.
  metadata::CommitLakeSnapshot commit;
  commit.table_id = table->id;
  commit.table_uuid = lake.table_uuid;
  commit.location = lake.location;
  MINK_RETURN_IF_ERROR(TakeOver(lake, std::move(foreign), StreamsOf(tables->AllBuckets(*table)), what, &commit));
  // Written and recorded as the built-in catalog records tiering's snapshots.
  MINK_ASSIGN_OR_RETURN(std::string location,
                        BuiltinCommitter(meta, warehouse)->Publish(*table, name, lake, std::move(commit)));
  MINK_ASSIGN_OR_RETURN(std::string written, warehouse->Read(location));
  return TieredCommit{location, json::parse(written)};
}

}  // namespace mink::lake
