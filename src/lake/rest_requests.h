#pragma once
// The bodies of the Iceberg REST catalog's requests (docs/iceberg-rest.md), read into what its
// handlers act on. Each reader checks the shape of every member it reads and refuses a body
// without it (InvalidArgument naming the member, a 400 BadRequestException), so a handler never
// meets a value of the wrong type: nlohmann's accessors throw on one. Pure (no catalog state, no
// files): the rest_request fuzz target runs these with table_metadata.h's.

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "lake/table_metadata.h"
#include "metadata/lake_catalog_commands.h"

namespace mink::lake::rest {

using TableIdentifier = std::pair<metadata::NamespaceName, std::string>;

// A JSON object body ("" is {}); InvalidArgument otherwise.
Result<Json> ParseBody(std::string_view body);
Result<metadata::NamespaceName> NamespaceOf(const Json& j, const char* what);
Result<TableIdentifier> IdentifierOf(const Json& j, const char* what);

struct CreateNamespaceRequest {
  metadata::NamespaceName space;
  std::map<std::string, std::string> properties;
};
Result<CreateNamespaceRequest> ReadCreateNamespace(const Json& body);

struct UpdateNamespaceRequest {
  std::vector<std::string> removals;
  std::map<std::string, std::string> updates;
};
Result<UpdateNamespaceRequest> ReadUpdateNamespace(const Json& body);

// The members the catalog itself reads; the schema, spec, order and properties are
// NewTableMetadata's to read.
struct CreateTableRequest {
  std::string name;
  std::string location;  // "" for the default one
  bool stage_create = false;
};
Result<CreateTableRequest> ReadCreateTable(const Json& body);

struct RegisterTableRequest {
  std::string name;
  std::string metadata_location;
  bool overwrite = false;
};
Result<RegisterTableRequest> ReadRegisterTable(const Json& body);

// A commit's change to one table: its requirements (objects with a string "type") and updates
// (objects with a string "action"), in order.
struct TableChange {
  Json requirements = Json::array();
  Json updates = Json::array();
  // Whether it asserts that the table does not exist yet (assert-create).
  bool Creates() const;
  // Whether it only adds, removes or points at snapshots and statistics (what an engine's
  // writes do: write access), rather than creating the table or changing its schema, spec,
  // location, properties or the like (admin).
  bool OnlyWrites() const;
};
Result<TableChange> ReadTableChange(const Json& change);

struct IdentifiedChange {
  TableIdentifier id;
  TableChange change;
};
// A transaction's table-changes: at least one, each with its table's identifier.
Result<std::vector<IdentifiedChange>> ReadTransaction(const Json& body);

struct RenameRequest {
  TableIdentifier from;
  TableIdentifier to;
};
Result<RenameRequest> ReadRename(const Json& body);

}  // namespace mink::lake::rest
