// The users domain of the state machine: users and their SCRAM credentials, and the cluster's
// secret that signs bearer tokens.

#include <cctype>
#include <string>

#include "metadata/state.h"

namespace mink::metadata {

Status State::CheckCommand(const CreateUser& c) const {
  if (c.name.empty() || c.name.size() > 128) return InvalidArgumentError("a user name has 1 to 128 characters");
  for (unsigned char ch : c.name) {
    if (!std::isalnum(ch) && ch != '_' && ch != '-' && ch != '.' && ch != '@') {
      return InvalidArgumentError("user name '" + c.name + "' may hold letters, digits and _ - . @ only");
    }
  }
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

Status State::CheckCommand(const SetClusterSecret& c) const {
  if (!cluster_secret_.empty()) return AlreadyExistsError("the cluster's secret is set");
  if (c.secret.size() < 43) return InvalidArgumentError("the cluster's secret is base64 of at least 32 bytes");
  return Status::Ok();
}

void State::ApplyCommand(const SetClusterSecret& c, int64_t /*time_ms*/) { cluster_secret_ = c.secret; }

}  // namespace mink::metadata
