#pragma once
// Authenticator: who a Flight or HTTP request is, from its "authorization" header
// (docs/operations.md, Security):
//   Basic <base64 of user:password>  checked against the user's SCRAM credentials; a header
//                                    checked once is remembered (its SHA-256) for a minute, so
//                                    a client sending it with every call pays the key
//                                    derivation once;
//   Bearer <token>                   a token any node issued under the cluster's secret
//                                    (tokens.h), until it expires or its user is deleted.
// Anything else, or no header, is PermissionDenied naming what is wrong, whether or not the
// cluster has a user yet (its first user comes from the node's configuration:
// UserDirectory::EnsureBootstrapUser). Thread-safe.

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "auth/tokens.h"
#include "auth/user_directory.h"
#include "base/clock.h"
#include "metadata/metadata_log.h"

namespace mink::auth {

class Authenticator {
 public:
  Authenticator(const UserDirectory* users, TokenSigner signer, const Clock* clock = SystemClock::Get(),
                std::chrono::milliseconds token_lifetime = std::chrono::hours(1))
      : users_(users), signer_(std::move(signer)), clock_(clock), token_lifetime_(token_lifetime) {}

  // The user the header names and proves.
  Result<std::string> Check(std::string_view authorization) const;
  // A token for `user`, valid for the token lifetime (or `lifetime`).
  std::string IssueToken(const std::string& user) const;
  std::string IssueToken(const std::string& user, std::chrono::milliseconds lifetime) const;
  std::chrono::milliseconds token_lifetime() const { return token_lifetime_; }

 private:
  const UserDirectory* const users_;
  const TokenSigner signer_;
  const Clock* const clock_;
  const std::chrono::milliseconds token_lifetime_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::pair<std::string, int64_t>> checked_;  // SHA-256 of a Basic header -> user, until
};


}  // namespace mink::auth
