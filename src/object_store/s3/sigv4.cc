#include "object_store/s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <ctime>

#include "base/strings.h"

namespace mink::object_store {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Header values are trimmed and inner runs of spaces collapse to one, as the canonical form
// requires.
std::string CanonicalHeaderValue(std::string_view value) {
  std::string out;
  bool in_space = false;
  for (char c : Trim(value)) {
    if (c == ' ' || c == '\t') {
      in_space = true;
      continue;
    }
    if (in_space) out.push_back(' ');
    in_space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  return HexEncode(std::string_view(reinterpret_cast<const char*>(digest), length));
}

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return std::string(reinterpret_cast<const char*>(digest), length);
}

std::string UriEncode(std::string_view text, bool keep_slash) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string CanonicalQueryString(const QueryParams& params) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(params.size());
  for (const auto& [name, value] : params) {
    encoded.emplace_back(UriEncode(name, false), UriEncode(value, false));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += name + "=" + value;
  }
  return out;
}

std::string FormatAmzDate(std::chrono::system_clock::time_point time) {
  std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

std::string DeriveSigningKey(std::string_view secret, std::string_view date,
                             std::string_view region, std::string_view service) {
  std::string key = HmacSha256("AWS4" + std::string(secret), date);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  return HmacSha256(key, "aws4_request");
}

SigV4Signature SigV4Signer::Sign(std::string_view method, std::string_view canonical_uri,
                                 std::string_view canonical_query, std::string_view payload_sha256,
                                 std::string_view amz_date, HttpHeaders* headers) const {
  headers->emplace_back("x-amz-date", std::string(amz_date));
  headers->emplace_back("x-amz-content-sha256", std::string(payload_sha256));
  if (!credentials_.session_token.empty()) {
    headers->emplace_back("x-amz-security-token", credentials_.session_token);
  }

  // Lowercase names, sorted; repeated names join their values with ',' in the order given.
  std::vector<std::pair<std::string, std::string>> canonical;
  for (const auto& [name, value] : *headers) {
    canonical.emplace_back(Lower(name), CanonicalHeaderValue(value));
  }
  std::stable_sort(canonical.begin(), canonical.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string header_block;
  SigV4Signature sig;
  for (size_t i = 0; i < canonical.size(); ++i) {
    if (i > 0 && canonical[i].first == canonical[i - 1].first) {
      header_block.back() = ',';  // replace the previous line's '\n'
      header_block += canonical[i].second + "\n";
      continue;
    }
    header_block += canonical[i].first + ":" + canonical[i].second + "\n";
    if (!sig.signed_headers.empty()) sig.signed_headers.push_back(';');
    sig.signed_headers += canonical[i].first;
  }

  sig.canonical_request = std::string(method) + "\n" + std::string(canonical_uri) + "\n" +
                          std::string(canonical_query) + "\n" + header_block + "\n" +
                          sig.signed_headers + "\n" + std::string(payload_sha256);

  std::string date(amz_date.substr(0, 8));
  std::string scope = date + "/" + region_ + "/" + service_ + "/aws4_request";
  sig.string_to_sign = std::string(kAlgorithm) + "\n" + std::string(amz_date) + "\n" + scope +
                       "\n" + Sha256Hex(sig.canonical_request);

  std::string key = DeriveSigningKey(credentials_.secret_key, date, region_, service_);
  sig.signature = HexEncode(HmacSha256(key, sig.string_to_sign));
  sig.authorization = std::string(kAlgorithm) + " Credential=" + credentials_.access_key + "/" +
                      scope + ",SignedHeaders=" + sig.signed_headers +
                      ",Signature=" + sig.signature;
  return sig;
}

}  // namespace mink::object_store
