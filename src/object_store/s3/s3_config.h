#pragma once
// The settings of one s3:// store, read from the storage URI's options with the AWS environment
// variables as fallback, and the URL layout (path-style or virtual-hosted) they imply.
//
//   <id>@s3://<bucket>?region=..&endpoint=..&path-style=true&prefix=..
//   options: region (else $AWS_REGION, else us-east-1), endpoint (else $AWS_ENDPOINT_URL_S3, else
//   $AWS_ENDPOINT_URL, else https://s3.<region>.amazonaws.com), path-style (true for an endpoint
//   on an IP address or localhost, else false), prefix (""), access-key, secret-key,
//   session-token (else $AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY, $AWS_SESSION_TOKEN),
//   max-keys (list page size, 1000), part-size (8MiB, at least 5MiB), max-attempts (6),
//   timeout-ms (per attempt, 30000), retry-initial-ms (first backoff, 100).

#include <chrono>
#include <cstdint>
#include <string>

#include "base/result.h"
#include "object_store/s3/sigv4.h"
#include "object_store/storage_uri.h"

namespace mink::object_store {

struct S3Config {
  std::string bucket;
  std::string region = "us-east-1";
  std::string scheme = "https";  // of the endpoint
  std::string endpoint_host;     // host[:port] of the endpoint, without the bucket
  bool path_style = false;
  std::string key_prefix;  // "" or ends with '/'
  Credentials credentials;
  uint32_t max_keys = 1000;
  uint64_t part_size = 8ull << 20;
  int max_attempts = 6;
  std::chrono::milliseconds timeout{30000};
  std::chrono::milliseconds retry_initial{100};
  std::chrono::milliseconds retry_max{5000};

  static constexpr uint64_t kMinPartSize = 5ull << 20;  // S3's floor for all parts but the last
  static constexpr uint64_t kMaxParts = 10000;          // S3's ceiling on parts per upload

  static Result<S3Config> FromUri(const StorageUri& uri);

  // The Host header: "<bucket>.<endpoint host>" virtual-hosted, the endpoint host path-style.
  std::string Host() const;
  // The encoded path of an object (its full key, prefix included) or, for an empty key, of the
  // bucket. It is both the URL path and the SigV4 canonical URI.
  std::string Path(std::string_view full_key) const;
  std::string Url(std::string_view path, std::string_view query) const;
  // "s3://bucket/prefix (endpoint=..., region=...)", never with credentials.
  std::string Describe() const;
};

}  // namespace mink::object_store
