#pragma once
// A commit by another engine, through the REST catalog, to a table Mink tiers (docs/iceberg-rest.md,
// Commits to tiered tables). It is accepted when it cannot break what tiering relies on: it
// asserts the main branch's current snapshot, adds one snapshot on top of it at the next
// sequence number, moves main to it and changes nothing else; its summary keeps the current
// `mink-offsets` (so no bucket's tiered offset moves); its files are ones Mink reads
// (foreign_snapshot.h); and on a primary-key table it only rewrites files (operation
// `replace`), since the table's rows are its KV state's. Mink then writes the table metadata
// and records the snapshot as its own lake.commit, so tiering goes on from it. Refusals: a
// broken requirement or a lost race Aborted (409), a file it cannot read InvalidArgument (400),
// a commit that breaks one of the rules FailedPrecondition naming Mink (403).

#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "lake/rest_requests.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "table/table_store.h"

namespace mink::lake {

struct TieredCommit {
  std::string metadata_location;
  nlohmann::json metadata;
};

// Commits `change` ({requirements, updates}) to the tiered table `name` (database.table).
Result<TieredCommit> CommitToTieredTable(metadata::MetadataLog* meta, table::TableStore* tables,
                                         Warehouse* warehouse, const std::string& name,
                                         const rest::TableChange& change);

}  // namespace mink::lake
