#include "object_store/s3/s3_store.h"

#include <algorithm>
#include <optional>
#include <thread>

#include "base/backoff.h"
#include "base/log.h"
#include "base/strings.h"
#include "object_store/s3/s3_xml.h"

namespace mink::object_store {
namespace {

// SHA-256 of the empty payload, signed for requests without a body.
constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";


bool IsOk(long status) { return status >= 200 && status < 300; }

// Whether an HTTP answer is worth another attempt: server errors, throttling and the 4xx codes
// S3 documents as transient.
bool IsRetryable(const http::HttpResponse& response, bool error_in_ok_body) {
  long status = response.status;
  if (status >= 500 || status == 429 || status == 408) return true;
  if (IsOk(status) && !error_in_ok_body) return false;
  auto error = ParseS3Error(response.body);
  if (!error) return false;
  return error->code == "RequestTimeout" || error->code == "SlowDown" ||
         error->code == "InternalError" || error->code == "ServiceUnavailable" ||
         error->code == "OperationAborted";
}

// "HTTP 404 NoSuchKey: The specified key does not exist. (request id 4442587FB7D0A2F9)".
std::string ErrorDetail(const http::HttpResponse& response) {
  std::string text = "HTTP " + std::to_string(response.status);
  if (auto error = ParseS3Error(response.body)) {
    text += " " + error->code + ": " + error->message;
    if (!error->request_id.empty()) text += " (request id " + error->request_id + ")";
  }
  return text;
}

}  // namespace

Result<std::unique_ptr<S3Store>> S3Store::Open(const StorageUri& uri) {
  MINK_ASSIGN_OR_RETURN(S3Config config, S3Config::FromUri(uri));
  return std::make_unique<S3Store>(std::move(config));
}

S3Store::S3Store(S3Config config)
    : config_(std::move(config)), signer_(config_.credentials, config_.region, "s3") {}

http::HttpRequest S3Store::BuildRequest(const Call& call) const {
  std::string path = config_.Path(call.full_key);
  std::string query = CanonicalQueryString(call.query);
  HttpHeaders headers = call.headers;
  headers.emplace_back("host", config_.Host());
  // Signed afresh on every attempt: S3 refuses a signature more than 15 minutes old.
  std::string amz_date = FormatAmzDate(std::chrono::system_clock::now());
  SigV4Signature sig =
      signer_.Sign(call.method, path, query, call.payload_sha256, amz_date, &headers);
  headers.emplace_back("authorization", sig.authorization);
  http::HttpRequest request;
  request.method = call.method;
  request.url = config_.Url(path, query);
  request.headers = std::move(headers);
  request.body = call.body;
  request.timeout = config_.timeout;
  return request;
}

Result<http::HttpResponse> S3Store::Send(const Call& call) {
  std::optional<Backoff> backoff;  // made on the first retry: most calls never need one
  std::string last_error;
  for (int attempt = 1;; ++attempt) {
    Result<http::HttpResponse> response = http_.Perform(BuildRequest(call));
    if (response.ok() && !IsRetryable(*response, call.error_in_ok_body)) return response;
    if (!response.ok() && !IsUnavailable(response.status())) {
      return response.status().WithContext(What(call));
    }
    last_error = response.ok() ? ErrorDetail(*response) : response.status().message();
    if (attempt >= config_.max_attempts) break;
    if (!backoff) backoff.emplace(config_.retry_initial, config_.retry_max);
    auto delay = backoff->Next();
    MINK_LOG_WARN("s3", "retrying op={} key={} attempt={} delay_ms={}: {}", call.method,
                  call.name.empty() ? call.full_key : call.name, attempt, delay.count(),
                  last_error);
    std::this_thread::sleep_for(delay);
  }
  return UnavailableError(What(call) + ": gave up after " + std::to_string(config_.max_attempts) +
                          " attempts: " + last_error);
}

std::string S3Store::What(const Call& call) const {
  return "s3 " + call.method + " " + (call.name.empty() ? call.full_key : call.name) + " in " +
         Describe();
}

Status S3Store::ErrorFor(const Call& call, const http::HttpResponse& response) const {
  std::string text = What(call) + ": " + ErrorDetail(response);
  std::optional<S3ErrorBody> error = ParseS3Error(response.body);
  std::string code = error ? error->code : "";
  long status = response.status;
  if (IsRetryable(response, true)) return UnavailableError(text);
  if (IsOk(status)) return InternalError(text);  // an <Error> document sent with a 200
  if (status == 404) {
    if (code == "NoSuchBucket") return FailedPreconditionError(text);
    return NotFoundError(text);
  }
  if (status == 416) return OutOfRangeError(text);
  if (status == 401 || status == 403 || code == "ExpiredToken" || code == "InvalidToken") {
    return PermissionDeniedError(text);
  }
  if (status == 301 || status == 307) {
    std::string region = response.Header("x-amz-bucket-region");
    if (!region.empty()) text += " (the bucket is in region " + region + ")";
    return FailedPreconditionError(text);
  }
  if (status == 405 || status == 501) return UnimplementedError(text);
  if (status == 409 || status == 412) return FailedPreconditionError(text);
  if (status >= 400 && status < 500) return InvalidArgumentError(text);
  return UnknownError(text);
}

Status S3Store::Put(std::string_view key, std::string_view data) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  std::string full_key = FullKey(key);
  if (data.size() > config_.part_size) return PutMultipart(full_key, data);
  Call call;
  call.method = "PUT";
  call.full_key = full_key;
  call.headers = {{"content-type", "application/octet-stream"}};
  call.body = data;
  call.payload_sha256 = Sha256Hex(data);
  MINK_ASSIGN_OR_RETURN(http::HttpResponse response, Send(call));
  if (!IsOk(response.status)) return ErrorFor(call, response);
  return Status::Ok();
}

Status S3Store::PutMultipart(const std::string& full_key, std::string_view data) {
  // Parts grow past part-size only when 10000 of them would not hold the object.
  uint64_t part_size =
      std::max(config_.part_size, (data.size() + S3Config::kMaxParts - 1) / S3Config::kMaxParts);

  Call init;
  init.method = "POST";
  init.full_key = full_key;
  init.query = {{"uploads", ""}};
  init.headers = {{"content-type", "application/octet-stream"}};
  init.payload_sha256 = kEmptySha256;
  MINK_ASSIGN_OR_RETURN(http::HttpResponse response, Send(init));
  if (!IsOk(response.status)) return ErrorFor(init, response);
  MINK_ASSIGN_OR_RETURN(std::string upload_id, ParseUploadId(response.body));

  Status status;
  std::vector<std::string> etags;
  for (uint64_t offset = 0; offset < data.size() && status.ok(); offset += part_size) {
    Call part;
    part.method = "PUT";
    part.full_key = full_key;
    part.query = {{"partNumber", std::to_string(etags.size() + 1)}, {"uploadId", upload_id}};
    part.body = data.substr(offset, part_size);
    part.payload_sha256 = Sha256Hex(part.body);
    Result<http::HttpResponse> sent = Send(part);
    if (!sent.ok()) {
      status = sent.status();
    } else if (!IsOk(sent->status)) {
      status = ErrorFor(part, *sent);
    } else if (sent->Header("etag").empty()) {
      status = DataLossError("s3 upload part " + std::to_string(etags.size() + 1) + " of " +
                             full_key + ": the response has no ETag");
    } else {
      etags.push_back(sent->Header("etag"));
    }
  }
  if (status.ok()) status = CompleteMultipart(full_key, upload_id, etags, data.size());
  if (!status.ok()) {
    // Best effort: parts of an upload that is neither completed nor aborted are billed forever.
    Call abort;
    abort.method = "DELETE";
    abort.full_key = full_key;
    abort.query = {{"uploadId", upload_id}};
    abort.payload_sha256 = kEmptySha256;
    Result<http::HttpResponse> aborted = Send(abort);
    if (!aborted.ok() || !IsOk(aborted->status)) {
      MINK_LOG_WARN(
          "s3", "abort of multipart upload key={} failed: {}", full_key,
          aborted.ok() ? ErrorFor(abort, *aborted).message() : aborted.status().message());
    }
  }
  return status;
}

Status S3Store::CompleteMultipart(const std::string& full_key, const std::string& upload_id,
                                  const std::vector<std::string>& etags, uint64_t size) {
  std::string body = CompleteMultipartUploadXml(etags);
  Call call;
  call.method = "POST";
  call.full_key = full_key;
  call.query = {{"uploadId", upload_id}};
  call.headers = {{"content-type", "application/xml"}};
  call.body = body;
  call.payload_sha256 = Sha256Hex(body);
  call.error_in_ok_body = true;
  MINK_ASSIGN_OR_RETURN(http::HttpResponse response, Send(call));
  if (IsOk(response.status) && !ParseS3Error(response.body)) return Status::Ok();
  Status error = ErrorFor(call, response);
  // A retried Complete whose first attempt did succeed finds the upload gone. Keys are never
  // reused, so an object of the right size under the key is this upload's.
  auto parsed = ParseS3Error(response.body);
  if (parsed && parsed->code == "NoSuchUpload") {
    auto head = Head(std::string_view(full_key).substr(config_.key_prefix.size()));
    if (head.ok() && head->size == size) return Status::Ok();
  }
  return error;
}

Result<std::string> S3Store::Get(std::string_view key) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  Call call;
  call.method = "GET";
  call.full_key = FullKey(key);
  call.payload_sha256 = kEmptySha256;
  MINK_ASSIGN_OR_RETURN(http::HttpResponse response, Send(call));
  if (response.status != 200) return ErrorFor(call, response);
  return std::move(response.body);
}

Result<std::string> S3Store::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  if (length == 0) {
    // HTTP ranges cannot be empty; the contract still wants NotFound for a missing object.
    MINK_RETURN_IF_ERROR(Head(key).status());
    return std::string();
  }
  Call call;
  call.method = "GET";
  call.full_key = FullKey(key);
  std::string range = "bytes=" + std::to_string(offset) + "-";
  if (length <= UINT64_MAX - offset) range += std::to_string(offset + length - 1);
  call.headers = {{"range", range}};
  call.payload_sha256 = kEmptySha256;
  MINK_ASSIGN_OR_RETURN(http::HttpResponse response, Send(call));
  if (response.status == 206) {
    if (response.body.size() > length) response.body.resize(length);
    return std::move(response.body);
  }
  if (response.status == 200) {
    // A server that ignores Range sends the whole object.
    if (offset >= response.body.size()) {
      return OutOfRangeError(What(call) + ": range at " + std::to_string(offset) +
                             " is beyond the end (" + std::to_string(response.body.size()) +
                             " bytes)");
    }
    return response.body.substr(offset, length);
  }
  return ErrorFor(call, response);
}

Result<ObjectInfo> S3Store::Head(std::string_view key) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  Call call;
  call.method = "HEAD";
  call.full_key = FullKey(key);
  call.payload_sha256 = kEmptySha256;
  MINK_ASSIGN_OR_RETURN(http::HttpResponse response, Send(call));
  if (response.status != 200) return ErrorFor(call, response);
  ObjectInfo info;
  info.key = std::string(key);
  auto size = ParseUint64(response.Header("content-length"));
  if (!size.ok()) {
    return DataLossError("s3 HEAD " + call.full_key + ": bad Content-Length '" +
                         response.Header("content-length") + "'");
  }
  info.size = *size;
  MINK_ASSIGN_OR_RETURN(info.last_modified_ms,
                        http::ParseHttpDateMillis(response.Header("last-modified")));
  return info;
}

Result<std::vector<ObjectInfo>> S3Store::List(std::string_view prefix) {
  std::string full_prefix = config_.key_prefix + std::string(prefix);
  std::vector<ObjectInfo> out;
  std::string token;
  do {
    Call call;
    call.method = "GET";
    call.name = "list prefix=" + full_prefix;
    call.query = {{"list-type", "2"}, {"max-keys", std::to_string(config_.max_keys)}};
    if (!full_prefix.empty()) call.query.emplace_back("prefix", full_prefix);
    if (!token.empty()) call.query.emplace_back("continuation-token", token);
    call.payload_sha256 = kEmptySha256;
    MINK_ASSIGN_OR_RETURN(http::HttpResponse response, Send(call));
    if (response.status != 200) return ErrorFor(call, response);
    auto page = ParseListObjectsV2(response.body);
    if (!page.ok()) return page.status().WithContext("s3 list " + full_prefix);
    for (ObjectInfo& info : page->objects) {
      if (info.key.compare(0, full_prefix.size(), full_prefix) != 0) {
        return DataLossError("s3 list " + full_prefix + " returned key '" + info.key +
                             "' outside the prefix");
      }
      info.key.erase(0, config_.key_prefix.size());
      out.push_back(std::move(info));
    }
    if (page->truncated && page->next_token == token) {
      return DataLossError("s3 list " + full_prefix + " returned the same continuation token");
    }
    token = page->truncated ? page->next_token : "";
  } while (!token.empty());
  // S3 lists in byte order already; sorting keeps the contract with servers that do not.
  std::sort(out.begin(), out.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  return out;
}

Status S3Store::Delete(std::string_view key) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  Call call;
  call.method = "DELETE";
  call.full_key = FullKey(key);
  call.payload_sha256 = kEmptySha256;
  MINK_ASSIGN_OR_RETURN(http::HttpResponse response, Send(call));
  if (IsOk(response.status)) return Status::Ok();
  Status error = ErrorFor(call, response);
  return IsNotFound(error) ? Status::Ok() : error;  // NoSuchBucket is FailedPrecondition
}

Result<std::shared_ptr<ObjectStore>> OpenS3Store(const StorageUri& uri) {
  MINK_ASSIGN_OR_RETURN(auto store, S3Store::Open(uri));
  return std::shared_ptr<ObjectStore>(std::move(store));
}

}  // namespace mink::object_store
