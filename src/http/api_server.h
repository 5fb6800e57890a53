#pragma once
// ApiServer: the node's HTTP API (`--http-listen`): HTTP/1.1 and WebSocket (RFC 6455) on one
// listener, over asio, written here (decision 0015: cpp-httplib has no WebSocket and cannot
// hand a handler its socket; Debian's websocketpp does not compile as C++20).
//
// Plain requests: kept-alive HTTP/1.1 (HTTP/1.0 with `Connection: keep-alive`) with
// Content-Length bodies of at most kMaxRequestBytes (beyond: 413; a chunked or otherwise
// encoded body: 411; `Expect: 100-continue` is answered), each handed to `handler` on a pool of
// `threads` workers as a ServerRequest (method, percent-decoded path, decoded query, lowercase
// headers, body, peer address), as HttpServer does: SqlEndpoint::Handle serves either. HEAD
// reaches the handler as HEAD and is answered without the body.
//
// WebSocket: a GET with `Upgrade: websocket`, `Connection: Upgrade`, `Sec-WebSocket-Key` and
// `Sec-WebSocket-Version: 13` is answered 101 and handed to `ws` on a thread of its own, with a
// WebSocket to send text frames on until it is closed; the server reads the client's frames
// (answers Ping with Pong and Close with Close, ignores data). At most kMaxWebSockets at once
// (beyond: 503). Without a `ws` handler upgrades are plain requests.
//
// Stop() sends every WebSocket Close 1001, waits for the handlers (they must return once
// Closed() says so) and the requests in flight, and joins the threads.

#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "http/http_server.h"
#include "tls/tls_files.h"

namespace mink::http {

// One WebSocket connection as its handler sees it. Thread-safe.
class WebSocket {
 public:
  virtual ~WebSocket() = default;
  // Queues one text frame. False, and nothing sent, once the connection is closed. Waits while
  // a few MiB are unsent; a peer that reads nothing for 30 s has its connection dropped.
  virtual bool SendText(std::string text) = 0;
  // Whether the connection is closed: Close was called, the peer sent Close, the connection
  // broke, or the server stops.
  virtual bool Closed() const = 0;
  // Sends Close with `code` (RFC 6455 section 7.4) and `reason` unless a Close was sent already;
  // the connection ends when the peer answers, or a second later.
  virtual void Close(int code, const std::string& reason) = 0;
};

class ApiServer {
 public:
  using Handler = HttpServer::Handler;
  using WebSocketHandler = std::function<void(const ServerRequest&, WebSocket&)>;

  static constexpr size_t kMaxRequestBytes = 16 << 20;  // a request's body
  static constexpr int kMaxWebSockets = 64;

  // Listens on `host:port` (port 0: one the kernel picks) and serves until Stop; HTTPS and wss
  // when `tls` has a certificate. InvalidArgument for an address that is not host:port or TLS
  // files that do not load, Unavailable when it cannot be bound.
  static Result<std::unique_ptr<ApiServer>> Start(const std::string& listen, Handler handler,
                                                  WebSocketHandler ws, int threads = 4,
                                                  const tls::ServerFiles& tls = {});
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  int port() const { return port_; }
  // Closes the WebSockets and connections, finishes the requests in flight, joins the threads.
  // Idempotent.
  void Stop();

  struct Impl;

 private:
  ApiServer(std::unique_ptr<Impl> impl, int port);
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace mink::http
