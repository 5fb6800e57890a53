#pragma once
// SCRAM credentials (RFC 5802, RFC 7677): what is stored of a password, and the primitives of
// the exchange. For a password, a random salt and an iteration count i:
//   SaltedPassword = PBKDF2-HMAC-H(password, salt, i)
//   StoredKey      = H(HMAC(SaltedPassword, "Client Key"))
//   ServerKey      = HMAC(SaltedPassword, "Server Key")
// with H SHA-256 or SHA-512. Only the salt, i, StoredKey and ServerKey are kept; the password
// cannot be recovered from them, and a check of a password derives them again.

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "metadata/user_commands.h"

namespace mink::auth {

inline constexpr char kPlain[] = "PLAIN";
inline constexpr char kScramSha256[] = "SCRAM-SHA-256";
inline constexpr char kScramSha512[] = "SCRAM-SHA-512";
inline constexpr int kDefaultIterations = 8192;  // Kafka's tools default to 4096; RFC 7677 asks >= 4096

// A credential of `password` for `mechanism` (SCRAM-SHA-256 or -512) with a fresh random salt.
Result<metadata::ScramCredential> MakeCredential(std::string_view mechanism, std::string_view password,
                                                 int iterations = kDefaultIterations);
// One credential per SCRAM mechanism.
Result<std::vector<metadata::ScramCredential>> MakeCredentials(std::string_view password,
                                                               int iterations = kDefaultIterations);
// Whether `password` is the one `credential` was made from (compared in constant time).
bool Matches(const metadata::ScramCredential& credential, std::string_view password);

namespace scram {

// The digest of a mechanism's hash function, HMAC with it, and base64 (RFC 4648, padded).
// `mechanism` must be SCRAM-SHA-256 or -512.
std::string Hash(std::string_view mechanism, std::string_view data);
std::string Hmac(std::string_view mechanism, std::string_view key, std::string_view data);
std::string Base64(std::string_view bytes);
// False for text that is not base64.
bool FromBase64(std::string_view text, std::string* out);
// `n` random bytes.
Result<std::string> RandomBytes(size_t n);

}  // namespace scram
}  // namespace mink::auth
