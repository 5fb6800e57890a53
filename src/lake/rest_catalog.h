#pragma once
// RestCatalog: the lake's built-in catalog over the Apache Iceberg REST catalog API
// (docs/iceberg-rest.md), so any Iceberg engine reads Mink's lake and keeps tables of its own
// beside it. Namespaces are Mink's databases and those created here; tables are Mink's tiered
// tables (read-only here: only tiering commits to them) and tables created or registered here,
// whose metadata files it writes into the warehouse and whose pointers it moves in the metadata
// log by compare-and-set (lake_catalog_commands.h). Requirements are checked against the
// metadata the pointer names when the commit is built; a pointer that moved meanwhile makes the
// commit start over from the newer metadata. Idempotency-Key: the outcome of a mutation is
// recorded with it, and a retry within the key's lifetime is answered the same. A table's
// location may not overlap another table's (TableLocations), and a purge deletes only the files
// the dropped table alone reaches.
//
// Thread-safe: each request reads the metadata state and appends one command.

#include <string>

#include "http/http_server.h"
#include "lake/rest_access.h"
#include "lake/table_locations.h"
#include "lake/tiering.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "table/table_store.h"

namespace mink::lake {

// Who may call the catalog and do what (RestAccess; authentication off without them).
using RestCatalogOptions = RestAccessOptions;

class RestCatalog {
 public:
  // `tiering`: this node's, so commits by other engines to tiered tables never run beside one
  // of its rounds (null: none).
  RestCatalog(metadata::MetadataLog* meta, table::TableStore* tables, Warehouse* warehouse, Tiering* tiering,
              RestCatalogOptions options)
      : meta_(meta), tables_(tables), warehouse_(warehouse), tiering_(tiering), access_(options),
        locations_(warehouse) {}

  http::ServerResponse Handle(const http::ServerRequest& request);

 private:
  class Call;
  metadata::MetadataLog* const meta_;
  table::TableStore* const tables_;
  Warehouse* const warehouse_;
  Tiering* const tiering_;
  const RestAccess access_;
  TableLocations locations_;
};

}  // namespace mink::lake
