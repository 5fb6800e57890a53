#pragma once
// Attaching an existing Iceberg table: a tiered Mink table created under the name of a table of
// the lake catalog (of the built-in one, a table another engine created through the node's
// Iceberg REST API; of an external one, any) takes it over instead of starting an empty lake. Its current schema and partition spec must be the ones
// Mink would give the table (same field ids, names, types and required-ness, the primary key as
// identifier fields, the same bucket transform), else the create fails naming the first
// difference. Its current snapshot becomes the Mink table's first lake snapshot, with the files
// of its manifests (read with avro-c) in the buckets their partition values name, so union
// reads and SQL return its rows; the log's rows follow from offset 0 (docs/lake.md, Attaching
// an existing table).

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"
#include "lake/iceberg.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "table/descriptor.h"

namespace mink::lake {

// Whether the Iceberg table metadata `metadata` (JSON) has the current schema and partition spec
// Mink gives a table of `layout`; InvalidArgument naming the first difference, after `what`.
Status CheckAttachable(const nlohmann::json& metadata, const LakeLayout& layout, const std::string& what);

// The table.create lake_attach that takes over the Iceberg table whose metadata (JSON) is
// `metadata`, in file `metadata_location`, for the table `name` (database.table) with descriptor
// `d`: InvalidArgument naming the first difference when it does not match.
Result<metadata::LakeAttach> AttachOf(Warehouse* warehouse, const std::string& name, const table::TableDescriptor& d,
                                      const nlohmann::json& metadata, const std::string& metadata_location);

// The lake_attach of the built-in catalog's table `name`, if it has one (AttachOf).
Result<std::optional<metadata::LakeAttach>> PrepareAttach(metadata::MetadataLog* meta, Warehouse* warehouse,
                                                          const std::string& name,
                                                          const table::TableDescriptor& d);

}  // namespace mink::lake
