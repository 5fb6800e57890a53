#include "auth/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cctype>

#include "base/strings.h"

namespace mink::auth {
namespace scram {
namespace {

const EVP_MD* Digest(std::string_view mechanism) { return mechanism == kScramSha512 ? EVP_sha512() : EVP_sha256(); }

}  // namespace

std::string Hash(std::string_view mechanism, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), out, &size, Digest(mechanism), nullptr);
  return std::string(reinterpret_cast<char*>(out), size);
}

std::string Hmac(std::string_view mechanism, std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(Digest(mechanism), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), out, &size);
  return std::string(reinterpret_cast<char*>(out), size);
}

std::string Base64(std::string_view bytes) { return Base64Encode(bytes); }

bool FromBase64(std::string_view text, std::string* out) {
  if (text.size() % 4 != 0) return false;
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && c != '=') return false;
  }
  std::string bytes(3 * text.size() / 4, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(bytes.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return false;
  size_t size = static_cast<size_t>(n);
  // EVP_DecodeBlock counts the padding's bytes as zeros.
  if (!text.empty() && text.back() == '=') --size;
  if (text.size() > 1 && text[text.size() - 2] == '=') --size;
  bytes.resize(size);
  *out = std::move(bytes);
  return true;
}

Result<std::string> RandomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    return InternalError("no random bytes from OpenSSL");
  }
  return out;
}

}  // namespace scram

namespace {

// SaltedPassword for `credential`'s mechanism, salt (raw bytes) and iterations.
std::string SaltedPassword(std::string_view mechanism, std::string_view password, std::string_view salt,
                           int iterations) {
  const EVP_MD* md = mechanism == kScramSha512 ? EVP_sha512() : EVP_sha256();
  std::string out(static_cast<size_t>(EVP_MD_get_size(md)), '\0');
  PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()), static_cast<int>(salt.size()), iterations, md,
                    static_cast<int>(out.size()), reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

}  // namespace

Result<metadata::ScramCredential> MakeCredential(std::string_view mechanism, std::string_view password,
                                                 int iterations) {
  if (mechanism != kScramSha256 && mechanism != kScramSha512) {
    return InvalidArgumentError("unknown SCRAM mechanism " + std::string(mechanism));
  }
  if (iterations < 4096) return InvalidArgumentError("SCRAM needs at least 4096 iterations");
  MINK_ASSIGN_OR_RETURN(std::string salt, scram::RandomBytes(16));
  const std::string salted = SaltedPassword(mechanism, password, salt, iterations);
  const std::string client_key = scram::Hmac(mechanism, salted, "Client Key");
  metadata::ScramCredential c;
  c.mechanism = std::string(mechanism);
  c.salt = scram::Base64(salt);
  c.iterations = iterations;
  c.stored_key = scram::Base64(scram::Hash(mechanism, client_key));
  c.server_key = scram::Base64(scram::Hmac(mechanism, salted, "Server Key"));
  return c;
}

Result<std::vector<metadata::ScramCredential>> MakeCredentials(std::string_view password, int iterations) {
  std::vector<metadata::ScramCredential> out;
  for (const char* mechanism : {kScramSha256, kScramSha512}) {
    MINK_ASSIGN_OR_RETURN(auto c, MakeCredential(mechanism, password, iterations));
    out.push_back(std::move(c));
  }
  return out;
}

bool Matches(const metadata::ScramCredential& credential, std::string_view password) {
  std::string salt, stored;
  if (!scram::FromBase64(credential.salt, &salt) || !scram::FromBase64(credential.stored_key, &stored)) return false;
  const std::string salted = SaltedPassword(credential.mechanism, password, salt, credential.iterations);
  const std::string derived = scram::Hash(credential.mechanism, scram::Hmac(credential.mechanism, salted, "Client Key"));
  return derived.size() == stored.size() && CRYPTO_memcmp(derived.data(), stored.data(), derived.size()) == 0;
}

}  // namespace mink::auth
