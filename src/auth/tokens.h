#pragma once
// Bearer tokens for the Flight and HTTP APIs (docs/operations.md, Security): a token names a
// user and an expiry and is signed with a key every node derives from the secret it is given,
// so any node verifies what any node issued without asking the others:
//   mink1.<user, base64url>.<expiry, ms since the epoch>.<HMAC-SHA256 of the three fields before, base64url>
// Thread-safe (immutable).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace mink::auth {

class TokenSigner {
 public:
  // `key` signs and verifies; `previous` keys (a rotation's) only verify.
  explicit TokenSigner(std::string key, std::vector<std::string> previous = {})
      : key_(std::move(key)), previous_(std::move(previous)) {}

  std::string Issue(std::string_view user, int64_t expires_ms) const;
  // The user a token names; PermissionDenied "invalid or expired token" for one that is not
  // signed with one of the keys, is malformed, or expired at `now_ms`.
  Result<std::string> Verify(std::string_view token, int64_t now_ms) const;

 private:
  std::string key_;
  std::vector<std::string> previous_;
};

// Where the signing keys come from: a secret every node of a cluster is given, from a file (its
// first line) or the environment, never the metadata log. The key is HMAC-SHA256 of a fixed label
// under the secret, so the secret itself signs nothing. During a rotation the previous secret
// still verifies the tokens it signed, until they expire.
struct TokenSecrets {
  std::string current;        // the secret itself ("": none)
  std::string current_file;   // or a file holding it
  std::string previous;       // the secret before a rotation ("": none)
  std::string previous_file;
};
inline constexpr size_t kMinTokenSecretBytes = 32;
// The signer of the configured secrets. None configured: a random key of this process (tokens
// are good on this node until it stops), unless `cluster` (nodes sharing metadata verify each
// other's tokens): then InvalidArgument naming the setting. A secret shorter than
// kMinTokenSecretBytes, or a file that cannot be read, is InvalidArgument naming it.
Result<TokenSigner> SignerFromSecrets(const TokenSecrets& secrets, bool cluster);

}  // namespace mink::auth
