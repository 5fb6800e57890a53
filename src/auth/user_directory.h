#pragma once
// UserDirectory: the cluster's users as the metadata log holds them (user_commands.h), for
// checking who connects. Thread-safe (it reads the metadata state).

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "metadata/metadata_log.h"

namespace mink::auth {

class UserDirectory {
 public:
  explicit UserDirectory(metadata::MetadataLog* meta) : meta_(meta) {}

  // The user's credential for a SCRAM mechanism; none for an unknown user.
  std::optional<metadata::ScramCredential> Credential(std::string_view user, std::string_view mechanism) const;
  // OK when `password` is `user`'s; PermissionDenied "invalid user name or password" otherwise
  // (the same answer for an unknown user, so names cannot be probed).
  Status CheckPassword(std::string_view user, std::string_view password) const;
  bool Exists(std::string_view user) const {
    return meta_->Read([&](const metadata::State& st) { return st.users().count(std::string(user)) > 0; });
  }
  // Whether the cluster has no user yet.
  bool empty() const {
    return meta_->Read([](const metadata::State& st) { return st.users().empty(); });
  }
  // The node configuration's first user (docs/operations.md, Security): creates `user` with
  // `password` unless the user exists (then its password stays; another node may have made it
  // at the same moment). With auth on and no user at all, nobody can connect, so the first user
  // comes from here and never from an anonymous call.
  Status EnsureBootstrapUser(const std::string& user, const std::string& password) const;

 private:
  metadata::MetadataLog* const meta_;
};

}  // namespace mink::auth
