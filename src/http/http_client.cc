#include "http/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>

namespace mink::http {
namespace {

constexpr size_t kMaxIdleHandles = 32;
constexpr long kMaxConnectTimeoutMs = 10000;

void GlobalInitOnce() {
  // curl_global_init is not thread-safe in itself; once per process is what it wants.
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Upload {
  std::string_view data;
  size_t pos = 0;
};

size_t ReadBody(char* buffer, size_t size, size_t count, void* user) {
  auto* upload = static_cast<Upload*>(user);
  size_t n = std::min(size * count, upload->data.size() - upload->pos);
  std::memcpy(buffer, upload->data.data() + upload->pos, n);
  upload->pos += n;
  return n;
}

// curl rewinds the body when it must send it again on the same request (e.g. after a 100 or
// an auth round); without this it would fail the transfer.
int SeekBody(void* user, curl_off_t offset, int origin) {
  auto* upload = static_cast<Upload*>(user);
  if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > upload->data.size()) {
    return CURL_SEEKFUNC_FAIL;
  }
  upload->pos = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

size_t WriteBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t WriteHeader(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string_view line(data, size * count);
  // A new status line (after a "100 Continue" or a redirect) starts a new header set.
  if (line.substr(0, 5) == "HTTP/") headers->clear();
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
      value.remove_prefix(1);
    }
    while (!value.empty() &&
           (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
      value.remove_suffix(1);
    }
    (*headers)[name] = std::string(value);
  }
  return size * count;
}

Status TransportStatus(CURLcode code, const char* detail, const HttpRequest& request) {
  std::string what = request.method + " " + request.url.substr(0, request.url.find('?')) + ": " +
                     curl_easy_strerror(code);
  if (detail[0] != '\0') what += std::string(" (") + detail + ")";
  switch (code) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      return InvalidArgumentError(what);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
      return FailedPreconditionError(what);
    case CURLE_OUT_OF_MEMORY:
      return ResourceExhaustedError(what);
    default:
      return UnavailableError(what);  // refused, reset, timed out, short body: worth a retry
  }
}

struct HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() { curl_slist_free_all(list); }
  bool Add(const std::string& line) {
    curl_slist* next = curl_slist_append(list, line.c_str());
    if (next == nullptr) return false;
    list = next;
    return true;
  }
};

}  // namespace

Result<int64_t> ParseHttpDateMillis(const std::string& text) {
  time_t seconds = curl_getdate(text.c_str(), nullptr);
  if (seconds < 0) return DataLossError("bad HTTP date '" + text + "'");
  return static_cast<int64_t>(seconds) * 1000;
}

HttpClient::HttpClient() { GlobalInitOnce(); }

HttpClient::~HttpClient() {
  for (void* handle : idle_) curl_easy_cleanup(static_cast<CURL*>(handle));
}

void* HttpClient::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      void* handle = idle_.back();
      idle_.pop_back();
      return handle;
    }
  }
  return curl_easy_init();
}

void HttpClient::Release(void* handle) {
  // reset clears the options but keeps the handle's live connections and DNS cache.
  curl_easy_reset(static_cast<CURL*>(handle));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_.size() < kMaxIdleHandles) {
      idle_.push_back(handle);
      return;
    }
  }
  curl_easy_cleanup(static_cast<CURL*>(handle));
}

Result<HttpResponse> HttpClient::Perform(const HttpRequest& request) {
  CURL* curl = static_cast<CURL*>(Acquire());
  if (curl == nullptr) return ResourceExhaustedError("curl_easy_init failed");

  HttpResponse response;
  Upload upload{request.body, 0};
  HeaderList headers;
  bool headers_ok = true;
  for (const auto& [name, value] : request.headers) headers_ok &= headers.Add(name + ": " + value);
  // No "Expect: 100-continue" round trip, and no Content-Type that curl would invent for POST.
  headers_ok &= headers.Add("Expect:");
  if (!headers_ok) {
    Release(curl);
    return ResourceExhaustedError("curl_slist_append failed");
  }

  char error[CURL_ERROR_SIZE] = {0};
  long timeout_ms = static_cast<long>(request.timeout.count());
  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // signals and threads do not mix
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, kMaxConnectTimeoutMs));
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, WriteHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
  curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
  curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, SeekBody);
  curl_easy_setopt(curl, CURLOPT_SEEKDATA, &upload);

  const auto body_size = static_cast<curl_off_t>(request.body.size());
  if (request.method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, body_size);
  } else if (request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, body_size);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }

  CURLcode code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  Release(curl);
  if (code != CURLE_OK) return TransportStatus(code, error, request);
  return response;
}

}  // namespace mink::http
