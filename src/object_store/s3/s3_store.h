#pragma once
// s3:// — AWS S3 and S3-compatible servers over libcurl with Signature V4 (sigv4.h).
//
// Objects up to part-size go in one PUT; larger ones in a multipart upload that is aborted when
// it fails. Transient failures (5xx, throttling, timeouts, dropped connections) are retried with
// jittered exponential backoff up to max-attempts, then reported as Unavailable; the other S3
// errors map to NotFound, OutOfRange, PermissionDenied, InvalidArgument or FailedPrecondition with
// S3's error code and message in the text. Options: s3_config.h.
//
// Thread-safe: the configuration and signer are immutable, the HTTP client pools its handles.

#include <memory>
#include <string>

#include "base/result.h"
#include "object_store/object_store.h"
#include "object_store/s3/s3_config.h"
#include "http/http_client.h"
#include "object_store/s3/sigv4.h"
#include "object_store/storage_uri.h"

namespace mink::object_store {

class S3Store final : public ObjectStore {
 public:
  static Result<std::unique_ptr<S3Store>> Open(const StorageUri& uri);
  explicit S3Store(S3Config config);

  Status Put(std::string_view key, std::string_view data) override;
  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return config_.Describe(); }

  const S3Config& config() const { return config_; }

 private:
  // One S3 request: what to send and how to name it in errors.
  struct Call {
    std::string method;
    std::string full_key;  // prefix included; "" for a bucket-level request
    std::string name;      // how errors and logs name the target; the full key when empty
    QueryParams query;
    HttpHeaders headers;  // signed and sent, besides the ones the signer adds
    std::string_view body;
    std::string payload_sha256;
    bool error_in_ok_body = false;  // CompleteMultipartUpload can fail with a 200
  };

  std::string FullKey(std::string_view key) const { return config_.key_prefix + std::string(key); }
  http::HttpRequest BuildRequest(const Call& call) const;
  // Sends `call`, retrying transient failures; the response it returns may still be an error
  // (a 404, a 403), which the caller maps with ErrorFor.
  Result<http::HttpResponse> Send(const Call& call);
  Status ErrorFor(const Call& call, const http::HttpResponse& response) const;
  // "s3 GET <key> in <store>", the start of every error message about `call`.
  std::string What(const Call& call) const;

  Status PutMultipart(const std::string& full_key, std::string_view data);
  Status CompleteMultipart(const std::string& full_key, const std::string& upload_id,
                           const std::vector<std::string>& etags, uint64_t size);

  const S3Config config_;
  const SigV4Signer signer_;
  http::HttpClient http_;
};

Result<std::shared_ptr<ObjectStore>> OpenS3Store(const StorageUri& uri);

}  // namespace mink::object_store
