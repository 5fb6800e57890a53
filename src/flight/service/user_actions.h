#pragma once
// The users actions (docs/flight-api.md, docs/operations.md Security): `create-user` {"name",
// "password", "replace"} stores the password's SCRAM credentials (never the password) in the
// metadata log; `delete-user` {"name"}; `list-users` {} answers each user's name, mechanisms
// and creation time. `mink user create|delete|list` call them. The access control actions:
// `grant-acl` and `revoke-acl` {"principal", "resource", "operation"} (metadata::AclEntry) and
// `list-acls` {"principal"} (optional: that principal's grants, "*" ones included); `mink acl
// grant|revoke|list` call them.

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "base/result.h"
#include "metadata/metadata_log.h"

namespace mink::flight {

// Their answers; Unimplemented when `meta` is null (a node that keeps no users).
Result<nlohmann::json> CreateUser(metadata::MetadataLog* meta, const std::string& name, const std::string& password,
                                  bool replace);
Result<nlohmann::json> DeleteUser(metadata::MetadataLog* meta, const std::string& name);
Result<nlohmann::json> ListUsers(metadata::MetadataLog* meta);
Result<nlohmann::json> GrantAcl(metadata::MetadataLog* meta, metadata::AclEntry entry);
// NotFound when the grant is not there.
Result<nlohmann::json> RevokeAcl(metadata::MetadataLog* meta, metadata::AclEntry entry);
Result<nlohmann::json> ListAcls(metadata::MetadataLog* meta, const std::string& principal);

}  // namespace mink::flight
