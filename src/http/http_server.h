#pragma once
// A small threaded HTTP/1.1 server over cpp-httplib (kept private: httplib.h stays out of this
// header), for what Mink serves over HTTP: the Iceberg REST catalog today. Every request goes
// to one handler, which does its own routing; the handler runs on the server's worker threads
// and must be thread-safe. HEAD is answered as GET without the body.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "tls/tls_files.h"

namespace mink::http {

struct ServerRequest {
  std::string method;  // GET, HEAD, POST, PUT, DELETE
  std::string path;    // percent-decoded, without the query
  std::map<std::string, std::string> query;    // decoded; the last value of a repeated key
  std::map<std::string, std::string> headers;  // names in lowercase
  std::string body;
  std::string remote;  // the peer's address

  // The value of a header (name in lowercase) or query parameter, "" when absent.
  std::string Header(const std::string& name) const;
  std::string Query(const std::string& name) const;
};

// An application/x-www-form-urlencoded body (a=1&b=x%20y): decoded names and values, the last
// value of a repeated name.
std::map<std::string, std::string> ParseForm(std::string_view body);

struct ServerResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

class HttpServer {
 public:
  using Handler = std::function<ServerResponse(const ServerRequest&)>;

  // Listens on `host:port` (port 0: one the kernel picks) with `threads` workers and serves
  // until Stop; HTTPS when `tls` has a certificate. Unavailable when the address cannot be
  // bound, InvalidArgument when the TLS files do not load.
  static Result<std::unique_ptr<HttpServer>> Start(const std::string& listen, Handler handler,
                                                   int threads = 4, const tls::ServerFiles& tls = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  // Stops accepting, finishes the requests in flight and joins the workers. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl, int port);
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace mink::http
