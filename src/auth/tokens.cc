#include "auth/tokens.h"

#include <openssl/crypto.h>

#include <charconv>
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
  return body + "." + Url(scram::Hmac(kScramSha256, secret_, body));
}

Result<std::string> TokenSigner::Verify(std::string_view token, int64_t now_ms) const {
  const Status invalid = PermissionDeniedError("invalid or expired token");
  const auto parts = Split(token);
  if (parts.size() != 4 || parts[0] != kPrefix) return invalid;
  const std::string_view body = token.substr(0, token.size() - parts[3].size() - 1);
  const std::string expected = scram::Hmac(kScramSha256, secret_, body);
  std::string signature, user;
  if (!FromUrl(parts[3], &signature) || signature.size() != expected.size() ||
      CRYPTO_memcmp(signature.data(), expected.data(), expected.size()) != 0) {
    return invalid;
  }
  int64_t expires = 0;
  const auto [end, error] = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), expires);
  if (error != std::errc() || end != parts[2].data() + parts[2].size() || expires <= now_ms) return invalid;
  if (!FromUrl(parts[1], &user) || user.empty()) return invalid;
  return user;
}

}  // namespace mink::auth
