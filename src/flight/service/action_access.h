#pragma once
// What each Flight action needs (docs/operations.md, Access control):
//   create-database, drop-database          admin on the database
//   create-table, alter-table, drop-table   admin on the table (a grant on its database holds it)
//   describe-table, offsets, lake-snapshot,
//   column-stats                            describe on the table
//   list-nodes                              describe on the cluster
//   continuous-sql                          CheckContinuousSqlAccess
//   create-user, delete-user, list-users,
//   grant-acl, revoke-acl, list-acls        admin on the cluster (a user may set their own password)
//   list-databases, list-tables, init-writer   any user (the lists show only what the caller may describe)
//   any other action                        admin on the cluster (default-deny)
// Reads and writes of a table are checked where they happen (DoGet, DoPut, DoExchange).

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "auth/access_control.h"
#include "base/status.h"

namespace mink::flight {

// OK, or PermissionDenied naming what `caller` may not do. An unknown action passes (it fails
// as unknown).
Status CheckActionAccess(const auth::AccessControl& access, const std::string& caller, const std::string& type,
                         const nlohmann::json& body);

// Continuous SQL (the continuous-sql action and the HTTP API): statements that make or drop need
// admin on the cluster (a pipeline reads and writes as the node does); SHOW, DESCRIBE and
// EXPLAIN describe on database continuous; a query or subscription read on it (they read the
// streams' and views' output tables).
Status CheckContinuousSqlAccess(const auth::AccessControl& access, const std::string& caller, const std::string& sql);

}  // namespace mink::flight
