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

// Whether `type` is one of the users actions.
bool IsUserAction(const std::string& type);
// Carries out users action `type` with `body`; its answer.
Result<nlohmann::json> RunUserAction(metadata::MetadataLog* meta, const std::string& type, const nlohmann::json& body);

}  // namespace mink::flight
