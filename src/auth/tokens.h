#pragma once
// Bearer tokens for the Flight and HTTP APIs (docs/operations.md, Security): a token names a
// user and an expiry and is signed with the cluster's secret, so any node verifies what any
// node issued without asking the others:
//   mink1.<user, base64url>.<expiry, ms since the epoch>.<HMAC-SHA256 of the three fields before, base64url>
// Thread-safe (immutable).

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace mink::auth {

class TokenSigner {
 public:
  // `secret`: the cluster's, at least 32 bytes.
  explicit TokenSigner(std::string secret) : secret_(std::move(secret)) {}

  std::string Issue(std::string_view user, int64_t expires_ms) const;
  // The user a token names; PermissionDenied "invalid or expired token" for one that is not
  // signed with this secret, is malformed, or expired at `now_ms`.
  Result<std::string> Verify(std::string_view token, int64_t now_ms) const;

 private:
  std::string secret_;
};

}  // namespace mink::auth
