#pragma once
// Metadata commands of the users domain (docs/operations.md, Security): who may connect when
// authentication is on, and what each user may do (access control lists). A user is kept with the SCRAM credentials of its password (RFC 5802,
// RFC 7677), one per mechanism: a random salt, the iteration count, StoredKey and ServerKey.
// The password itself is never stored or logged; SASL/PLAIN and bearer-token checks derive the
// same keys from the password they are given and compare.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

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

// OK for a name a user may have: 1 to 128 letters, digits, _ - . @ (so never a node's
// principal, "node:<id>", nor "*").
Status CheckUserName(const std::string& name);

struct DeleteUser {
  static constexpr std::string_view kKind = "user.delete";
  std::string name;

  bool operator==(const DeleteUser&) const = default;
};

// Legacy: the cluster's token secret, which nodes before 2026-12 kept here in clear. Replaying
// one does nothing and a new one is refused: token keys come from a secret given to each node
// (auth/tokens.h, SignerFromSecrets).
struct SetClusterSecret {
  static constexpr std::string_view kKind = "cluster.secret";
  std::string secret;

  bool operator==(const SetClusterSecret&) const = default;
};

// One grant of an access control list (docs/operations.md, Access control): `principal` may do
// `operation` on `resource`.
//   principal  a user's name, or "*" for every authenticated user (the user need not exist yet)
//   resource   "cluster"; "database:<db>"; "table:<db>.<table>"; "group:<id>" (a Kafka consumer
//              group); a name of "*" is every one: "database:*", "table:*", "table:<db>.*",
//              "group:*"
//   operation  "describe", "read", "write" or "admin" (admin includes the others; read and write
//              include describe)
struct AclEntry {
  std::string principal;
  std::string resource;
  std::string operation;

  auto operator<=>(const AclEntry&) const = default;
  bool operator==(const AclEntry&) const = default;
};

// Whether an entry is well formed; InvalidArgument naming what is not.
Status CheckAclEntry(const AclEntry& entry);

struct GrantAcls {
  static constexpr std::string_view kKind = "acl.grant";
  std::vector<AclEntry> entries;  // one already granted is left as it is

  bool operator==(const GrantAcls&) const = default;
};

struct RevokeAcls {
  static constexpr std::string_view kKind = "acl.revoke";
  std::vector<AclEntry> entries;  // one not granted is skipped

  bool operator==(const RevokeAcls&) const = default;
};

}  // namespace mink::metadata
