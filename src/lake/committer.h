#pragma once
// LakeCommitter: where a tiered table's snapshots are committed (the `lake.catalog` setting).
// Tiering and compaction build a snapshot (SnapshotWriter) on top of the table's lake state and
// hand the lake.commit command to the committer:
//   - builtin: the catalog is the metadata database. Publish writes the table metadata
//     (v<sequence number>.metadata.json, and version-hint.text after) and appends the command.
//   - rest: an external Iceberg REST catalog (RestCatalogClient). Prepare creates the catalog's
//     namespace and table on the first round (its location in Mink's warehouse) and reconciles
//     the lake state with the catalog's: a snapshot the catalog has on top of the state's (a
//     Mink commit whose command a crash cut off, or another engine's that kept mink-offsets)
//     is adopted, with its files and offsets, before anything new is tiered. Publish commits to
//     the catalog (requirements: the table's uuid and main at the state's snapshot; updates: the
//     table's current schema when it changed, add-snapshot, main moved to it), then appends
//     the command with the metadata file the catalog wrote. The catalog's snapshot is the
//     truth: its mink-offsets say what is tiered, so tiering stays exactly once across a crash
//     between the two.
// docs/lake.md, Catalogs.
//
// Thread-safe (the tiering lock keeps one round at a time).

#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "lake/iceberg.h"
#include "lake/rest_client.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "table/table_store.h"

namespace mink::lake {

class LakeCommitter {
 public:
  virtual ~LakeCommitter() = default;
  // The table's lake state to build the next snapshot on (`lake`, as the metadata log has it).
  virtual Result<metadata::LakeTableState> Prepare(const table::ResolvedTable& table, const std::string& name,
                                                   metadata::LakeTableState lake) = 0;
  // Makes `commit` (built on `before`) the table's current snapshot; its metadata file.
  virtual Result<std::string> Publish(const table::ResolvedTable& table, const std::string& name,
                                      const metadata::LakeTableState& before, metadata::CommitLakeSnapshot commit) = 0;
  // The lake_attach of a new tiered table `name` with descriptor `d` when the catalog has a table
  // of that name already (attach.h): builtin, one another engine created through the node's
  // REST API; rest, any table of the external catalog (loaded from it; Unavailable when it
  // cannot be asked).
  virtual Result<std::optional<metadata::LakeAttach>> PrepareAttach(const std::string& name,
                                                                    const table::TableDescriptor& d) = 0;
};

std::unique_ptr<LakeCommitter> BuiltinCommitter(metadata::MetadataLog* meta, Warehouse* warehouse);
std::unique_ptr<LakeCommitter> RestCommitter(metadata::MetadataLog* meta, table::TableStore* tables,
                                             Warehouse* warehouse, RestClientOptions options);

}  // namespace mink::lake
