#include "auth/tokens.h"

#include <openssl/crypto.h>

#include <charconv>
#include <fstream>
#include <vector>

#include "auth/scram.h"

namespace mink::auth {
namespace {

constexpr std::string_view kPrefix = "mink1";

// RFC 4648 base64url without padding: tokens travel in headers.
std::string Url(std::string_view bytes) {
  std::string b = scram::Base64(bytes);
  while (!b.empty() && b.back() == '=') b.pop_back();
  for (char& c : b) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return b;
}

bool FromUrl(std::string_view text, std::string* out) {
  std::string b(text);
  for (char& c : b) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (b.size() % 4 != 0) b.push_back('=');
  return scram::FromBase64(b, out);
}

std::vector<std::string_view> Split(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t dot; (dot = text.find('.', start)) != std::string_view::npos; start = dot + 1) {
    parts.push_back(text.substr(start, dot - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

}  // namespace

std::string TokenSigner::Issue(std::string_view user, int64_t expires_ms) const {
  const std::string body = std::string(kPrefix) + "." + Url(user) + "." + std::to_string(expires_ms);
  return body + "." + Url(scram::Hmac(kScramSha256, key_, body));
}

Result<std::string> TokenSigner::Verify(std::string_view token, int64_t now_ms) const {
  const Status invalid = PermissionDeniedError("invalid or expired token");
  const auto parts = Split(token);
  if (parts.size() != 4 || parts[0] != kPrefix) return invalid;
  const std::string_view body = token.substr(0, token.size() - parts[3].size() - 1);
  std::string signature, user;
  if (!FromUrl(parts[3], &signature)) return invalid;
  auto signed_with = [&](const std::string& key) {
    const std::string expected = scram::Hmac(kScramSha256, key, body);
    return signature.size() == expected.size() &&
           CRYPTO_memcmp(signature.data(), expected.data(), expected.size()) == 0;
  };
  bool valid = signed_with(key_);
  for (const auto& key : previous_) valid = valid || signed_with(key);
  if (!valid) return invalid;
  int64_t expires = 0;
  const auto [end, error] = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), expires);
  if (error != std::errc() || end != parts[2].data() + parts[2].size() || expires <= now_ms) return invalid;
  if (!FromUrl(parts[1], &user) || user.empty()) return invalid;
  return user;
}

namespace {

constexpr std::string_view kKeyLabel = "mink token signing key v1";

Result<std::string> SecretOf(const std::string& given, const std::string& file, const char* setting) {
  std::string secret = given;
  if (!file.empty()) {
    std::ifstream in(file);
    if (!in || !std::getline(in, secret)) {
      return InvalidArgumentError(std::string(setting) + "-file: cannot read a line of " + file);
    }
  }
  if (!secret.empty() && secret.size() < kMinTokenSecretBytes) {
    return InvalidArgumentError(std::string(setting) + " is " + std::to_string(secret.size()) +
                                " bytes; it needs at least " + std::to_string(kMinTokenSecretBytes) +
                                " (e.g. openssl rand -base64 32)");
  }
  return secret;
}

}  // namespace

Result<TokenSigner> SignerFromSecrets(const TokenSecrets& secrets, bool cluster) {
  MINK_ASSIGN_OR_RETURN(std::string current, SecretOf(secrets.current, secrets.current_file, "--auth-token-secret"));
  MINK_ASSIGN_OR_RETURN(std::string previous,
                        SecretOf(secrets.previous, secrets.previous_file, "--auth-previous-token-secret"));
  if (current.empty()) {
    if (cluster) {
      return InvalidArgumentError(
          "authentication in a cluster needs the token secret every node shares: --auth-token-secret-file "
          "(or MINK_AUTH_TOKEN_SECRET), the same on every node");
    }
    if (!previous.empty()) return InvalidArgumentError("--auth-previous-token-secret needs --auth-token-secret");
    MINK_ASSIGN_OR_RETURN(current, scram::RandomBytes(32));
  }
  std::vector<std::string> old;
  if (!previous.empty()) old.push_back(scram::Hmac(kScramSha256, previous, kKeyLabel));
  return TokenSigner(scram::Hmac(kScramSha256, current, kKeyLabel), std::move(old));
}

}  // namespace mink::auth
