#pragma once
// A snapshot another engine wrote into a table Mink tiers or takes over (attach.h, commits
// through the REST catalog): its files, read from its manifest list and manifests with avro-c,
// as the catalog state keeps them. Every live file (not DELETED) must be one Mink reads:
// Parquet, equality deletes by the primary key only (no position deletes), in the warehouse,
// in a bucket and partition the table can have (its partition values); a manifest must be of
// the current partition spec. The first file that is not is named in an InvalidArgument.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"
#include "lake/iceberg.h"
#include "lake/warehouse.h"
#include "metadata/lake_commands.h"
#include "metadata/state.h"
#include "table/catalog.h"

namespace mink::lake {

struct ForeignSnapshot {
  metadata::LakeSnapshot snapshot;  // schema_id left to the caller
  std::vector<metadata::LakeManifest> manifests;
  // Live files; stream_id holds the file's bucket number.
  std::vector<metadata::LakeFile> files;
  std::vector<std::string> partitions;  // per file: its Mink partition name ("" unpartitioned)
};

// A table's bucket streams by (partition name, bucket number).
using BucketStreams = std::map<std::pair<std::string, int32_t>, uint64_t>;
BucketStreams StreamsOf(const std::vector<table::TableBucket>& buckets);

// The string properties of a snapshot's summary (JSON snapshot object).
std::map<std::string, std::string> SummaryOf(const nlohmann::json& snapshot);

// Fills `commit` with what makes `foreign` the table's lake after `lake`: its snapshot, the files
// and manifests that come and go, each new file's partition and bucket mapped to its stream by
// `streams`. A new file in a partition the table does not have is InvalidArgument (`what`).
Status TakeOver(const metadata::LakeTableState& lake, ForeignSnapshot foreign, const BucketStreams& streams,
                const std::string& what, metadata::CommitLakeSnapshot* commit);

// The snapshot object `snapshot` (of table metadata JSON) of a table of `layout` with current
// partition spec `spec_id`; `what` prefixes errors.
Result<ForeignSnapshot> ReadForeignSnapshot(Warehouse* warehouse, const LakeLayout& layout, int64_t spec_id, const nlohmann::json& snapshot,
                                            const std::string& what);

}  // namespace mink::lake
