#pragma once
// AWS Signature Version 4 for the Authorization header, written from the AWS documentation
// ("Create a signed AWS API request", "Signature Calculations for the Authorization Header:
// Transferring Payload in a Single Chunk"). Only what S3 needs: the payload hash is always sent
// as x-amz-content-sha256, paths are encoded once (S3 does not normalize them).

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/http_client.h"

namespace mink::object_store {

using HttpHeaders = http::HttpHeaders;
using QueryParams = std::vector<std::pair<std::string, std::string>>;

struct Credentials {
  std::string access_key;
  std::string secret_key;
  std::string session_token;  // empty unless the credentials are temporary (STS)
};

// SHA-256 of `data` as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view data);
// Raw 32-byte HMAC-SHA256.
std::string HmacSha256(std::string_view key, std::string_view data);

// SigV4 URI encoding: every byte outside A-Za-z0-9-._~ becomes %XX (uppercase hex); '/' is kept
// when `keep_slash` (object paths) and encoded otherwise (query names and values).
std::string UriEncode(std::string_view text, bool keep_slash);

// The canonical query string of raw (not yet encoded) parameters: each name and value encoded,
// sorted by name then value, joined with '&'. The same text is sent on the wire, so the server
// sees exactly what was signed.
std::string CanonicalQueryString(const QueryParams& params);

// "20130524T000000Z" for a point in time (UTC).
std::string FormatAmzDate(std::chrono::system_clock::time_point time);

// HMAC chain "AWS4"+secret -> date -> region -> service -> "aws4_request"; `date` is YYYYMMDD.
std::string DeriveSigningKey(std::string_view secret, std::string_view date,
                             std::string_view region, std::string_view service);

// The pieces of one signature, kept apart so tests can compare each with the documentation.
struct SigV4Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "host;range;x-amz-content-sha256;x-amz-date"
  std::string signature;       // 64 hex digits
  std::string authorization;   // the Authorization header value
};

class SigV4Signer {
 public:
  SigV4Signer(Credentials credentials, std::string region, std::string service = "s3")
      : credentials_(std::move(credentials)),
        region_(std::move(region)),
        service_(std::move(service)) {}

  // Signs a request. `headers` holds every header to sign (Host among them); this adds
  // x-amz-date, x-amz-content-sha256 and, with temporary credentials, x-amz-security-token, all
  // of which must be sent. `canonical_uri` is the already encoded path; `canonical_query` comes
  // from CanonicalQueryString. `amz_date` is FormatAmzDate(now).
  SigV4Signature Sign(std::string_view method, std::string_view canonical_uri,
                      std::string_view canonical_query, std::string_view payload_sha256,
                      std::string_view amz_date, HttpHeaders* headers) const;

  const std::string& access_key() const { return credentials_.access_key; }

 private:
  Credentials credentials_;
  std::string region_;
  std::string service_;
};

}  // namespace mink::object_store
