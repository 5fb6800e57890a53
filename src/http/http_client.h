#pragma once
// A blocking HTTP client over libcurl, for every part of Mink that speaks HTTP (the S3 object
// store today). Thread-safe: each call takes an easy handle from a small pool (a mutex guards
// only the pool), so concurrent calls run in parallel and a handle's kept-alive connections are
// reused by later calls. curl.h stays out of this header.

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace mink::http {

// Request headers, in the order they are sent; names as the caller writes them.
using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // GET, HEAD, PUT, POST or DELETE
  std::string url;
  HttpHeaders headers;    // sent as given (Host among them)
  std::string_view body;  // for PUT and POST; must outlive the call
  std::chrono::milliseconds timeout{30000};
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // names in lowercase

  // The value of a response header (name in lowercase), "" when absent.
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// An HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT", as in Last-Modified) in epoch milliseconds.
Result<int64_t> ParseHttpDateMillis(const std::string& text);

class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Any HTTP status is a response. Transport failures (refused, reset, timed out, a body cut
  // short) are Unavailable, so callers retry them; a malformed URL is InvalidArgument and a TLS
  // verification failure FailedPrecondition.
  Result<HttpResponse> Perform(const HttpRequest& request);

 private:
  void* Acquire();  // a CURL*, kept opaque so curl.h stays out of this header
  void Release(void* handle);

  std::mutex mutex_;
  std::vector<void*> idle_;
};

}  // namespace mink::http
