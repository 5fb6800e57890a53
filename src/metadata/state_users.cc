// The users domain of the state machine: users and their SCRAM credentials, the cluster's
// secret that signs bearer tokens, and the access control lists.

#include <string>

#include "metadata/state.h"

namespace mink::metadata {

Status State::CheckCommand(const CreateUser& c) const {
  MINK_RETURN_IF_ERROR(CheckUserName(c.name));
  if (c.credentials.empty()) return InvalidArgumentError("user " + c.name + " has no credentials");
  for (const auto& k : c.credentials) {
    if ((k.mechanism != "SCRAM-SHA-256" && k.mechanism != "SCRAM-SHA-512") || k.iterations < 4096 ||
        k.salt.empty() || k.stored_key.empty() || k.server_key.empty()) {
      return InvalidArgumentError("user " + c.name + ": a credential needs SCRAM-SHA-256 or -512, a salt, keys "
                                  "and at least 4096 iterations");
    }
  }
  if (users_.count(c.name) && !c.replace) return AlreadyExistsError("user " + c.name + " exists");
  return Status::Ok();
}

void State::ApplyCommand(const CreateUser& c, int64_t time_ms) {
  UserState& u = users_[c.name];
  u.credentials = c.credentials;
  if (u.created_ms == 0) u.created_ms = time_ms;
}

Status State::CheckCommand(const DeleteUser& c) const {
  if (!users_.count(c.name)) return NotFoundError("user " + c.name + " does not exist");
  return Status::Ok();
}

void State::ApplyCommand(const DeleteUser& c, int64_t /*time_ms*/) { users_.erase(c.name); }

Status State::CheckCommand(const SetClusterSecret&) const {
  return FailedPreconditionError("the metadata log keeps no secret: nodes derive token keys from --auth-token-secret-file");
}

// Logs written before 2026-12 hold one; replaying them drops it (it signs nothing any more).
void State::ApplyCommand(const SetClusterSecret&, int64_t /*time_ms*/) {}

Status State::CheckCommand(const GrantAcls& c) const {
  if (c.entries.empty()) return InvalidArgumentError("a grant names at least one entry");
  for (const auto& e : c.entries) MINK_RETURN_IF_ERROR(CheckAclEntry(e));
  return Status::Ok();
}

void State::ApplyCommand(const GrantAcls& c, int64_t /*time_ms*/) { acls_.insert(c.entries.begin(), c.entries.end()); }

Status State::CheckCommand(const RevokeAcls& c) const {
  if (c.entries.empty()) return InvalidArgumentError("a revoke names at least one entry");
  return Status::Ok();
}

void State::ApplyCommand(const RevokeAcls& c, int64_t /*time_ms*/) {
  for (const auto& e : c.entries) acls_.erase(e);
}

}  // namespace mink::metadata
