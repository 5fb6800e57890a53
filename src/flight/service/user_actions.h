#pragma once
// The users actions (docs/flight-api.md, docs/operations.md Security): `create-user` {"name",
// "password", "replace"} stores the password's SCRAM credentials (never the password) in the
// metadata log; `delete-user` {"name"}; `list-users` {} answers each user's name, mechanisms
// and creation time. `mink user create|delete|list` call them.

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

}  // namespace mink::flight
