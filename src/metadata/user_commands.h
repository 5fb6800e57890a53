#pragma once
// Metadata commands of the users domain (docs/operations.md, Security): who may connect when
// authentication is on. A user is kept with the SCRAM credentials of its password (RFC 5802,
// RFC 7677), one per mechanism: a random salt, the iteration count, StoredKey and ServerKey.
// The password itself is never stored or logged; SASL/PLAIN and bearer-token checks derive the
// same keys from the password they are given and compare.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mink::metadata {

struct ScramCredential {
  std::string mechanism;   // "SCRAM-SHA-256" or "SCRAM-SHA-512"
  std::string salt;        // base64
  int32_t iterations = 0;
  std::string stored_key;  // base64 of H(HMAC(SaltedPassword, "Client Key"))
  std::string server_key;  // base64 of HMAC(SaltedPassword, "Server Key")

  bool operator==(const ScramCredential&) const = default;
};

struct CreateUser {
  static constexpr std::string_view kKind = "user.create";
  std::string name;
  std::vector<ScramCredential> credentials;
  bool replace = false;  // a new password for an existing user

  bool operator==(const CreateUser&) const = default;
};

struct DeleteUser {
  static constexpr std::string_view kKind = "user.delete";
  std::string name;

  bool operator==(const DeleteUser&) const = default;
};

// The cluster's secret, set once (by the first node that starts with authentication on): it
// signs the bearer tokens any node issues and verifies (auth/tokens.h). Base64 of at least 32
// random bytes. Whoever reads the metadata database can read it, as everything else there.
struct SetClusterSecret {
  static constexpr std::string_view kKind = "cluster.secret";
  std::string secret;

  bool operator==(const SetClusterSecret&) const = default;
};

}  // namespace mink::metadata
