// The ApiServer's listener and HTTP connections (api_server.h; WebSockets: api_websocket.cc).
// A connection reads a request's head (at most kMaxHeadBytes), checks it, reads its body by
// Content-Length, hands it to a worker and writes the answer; kept alive, it reads the next.
// Every read waits kIdle at most. A refused request is answered, then the connection lingers
// (kLinger, reading what the client still sends) so that the client sees the answer instead of
// a reset.

#include <chrono>
#include <thread>
#include <utility>

#include "base/log.h"
#include "base/thread_priority.h"
#include "http/api_server_internal.h"
#include "http/server_internal.h"

namespace mink::http {
namespace {

constexpr size_t kMaxHeadBytes = 64 << 10;
constexpr auto kIdle = std::chrono::seconds(60);
constexpr auto kLinger = std::chrono::seconds(2);
constexpr size_t kLingerBytes = 64 << 20;

// Reason phrases of the statuses Mink answers; any other is "Status".
// clang-format off
constexpr std::pair<int, const char*> kReasons[] = {
    {100, "Continue"}, {101, "Switching Protocols"}, {200, "OK"}, {201, "Created"},
    {202, "Accepted"}, {204, "No Content"}, {304, "Not Modified"}, {400, "Bad Request"},
    {401, "Unauthorized"}, {403, "Forbidden"}, {404, "Not Found"}, {405, "Method Not Allowed"},
    {409, "Conflict"}, {411, "Length Required"}, {413, "Content Too Large"},
    {426, "Upgrade Required"}, {431, "Request Header Fields Too Large"},
    {500, "Internal Server Error"}, {501, "Not Implemented"}, {503, "Service Unavailable"},
};
// clang-format on

const char* Reason(int status) {
  for (const auto& [code, reason] : kReasons) {
    if (code == status) return reason;
  }
  return "Status";
}

// The status line and headers of an answer whose body has `body_size` bytes.
std::string ResponseHead(const ServerResponse& r, size_t body_size, bool close) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + Reason(r.status) + "\r\n";
  if (r.status != 204 && r.status != 304) {
    if (!r.content_type.empty()) out += "Content-Type: " + r.content_type + "\r\n";
    out += "Content-Length: " + std::to_string(body_size) + "\r\n";
  }
  for (const auto& [k, v] : r.headers) out += k + ": " + v + "\r\n";
  if (close) out += "Connection: close\r\n";
  return out + "\r\n";
}

}  // namespace

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(tls::Stream socket, ApiServer::Impl* server)
      : socket_(std::move(socket)), timer_(socket_.get_executor()), server_(server) {
    asio::error_code ec;
    auto remote = socket_.tcp().remote_endpoint(ec);
    remote_ = ec ? "" : remote.address().to_string();
    socket_.tcp().set_option(asio::ip::tcp::no_delay(true), ec);
  }

  // A TLS connection's handshake first (within kIdle).
  void Start() {
    Arm(kIdle);
    socket_.AsyncHandshake([self = shared_from_this()](const asio::error_code& ec) {
      self->Disarm();
      if (ec) return self->Shut();
      self->ReadHead();
    });
  }
  // From any thread: the connection ends (an answer in flight is dropped).
  void Close() {
    asio::post(timer_.get_executor(), [self = shared_from_this()] { self->Shut(); });
  }

 private:
  // The socket closes when `wait` passes before Disarm.
  void Arm(std::chrono::steady_clock::duration wait) {
    timer_.expires_after(wait);
    timer_.async_wait([weak = weak_from_this()](const asio::error_code& ec) {
      if (auto self = weak.lock(); self && !ec) self->Shut();
    });
  }
  void Disarm() { timer_.cancel(); }

  void ReadHead() {
    Arm(kIdle);
    asio::async_read_until(socket_, asio::dynamic_buffer(in_, kMaxHeadBytes), "\r\n\r\n",
                           [self = shared_from_this()](const asio::error_code& ec, size_t size) {
                             self->Disarm();
                             if (ec == asio::error::not_found) {
                               return self->Refuse(431, "a request's head is at most 64 KiB");
                             }
                             if (ec) return self->Shut();
                             self->OnHead(size);
                           });
  }

  void OnHead(size_t size) {
    auto head = internal::ParseRequestHead(std::string_view(in_).substr(0, size));
    in_.erase(0, size);
    if (!head.ok()) return Refuse(400, head.status().message());
    request_ = ServerRequest{};
    request_.method = std::move(head->method);
    if (Status s = internal::SplitTarget(head->target, &request_.path, &request_.query); !s.ok()) {
      return Refuse(400, s.message());
    }
    request_.headers = std::move(head->headers);
    request_.remote = remote_;
    const std::string connection = request_.Header("connection");
    keep_alive_ = head->minor_version >= 1 ? !internal::HasToken(connection, "close")
                                           : internal::HasToken(connection, "keep-alive");
    if (!request_.Header("transfer-encoding").empty()) {
      return Refuse(411, "a request body needs a Content-Length (chunked bodies are not accepted)");
    }
    body_size_ = 0;
    if (const std::string length = request_.Header("content-length"); !length.empty()) {
      if (length.size() > 18 || length.find_first_not_of("0123456789") != std::string::npos) {
        return Refuse(400, "Content-Length is not a number");
      }
      body_size_ = std::stoull(length);
      if (body_size_ > ApiServer::kMaxRequestBytes) {
        return Refuse(413, "a request body is at most " +
                               std::to_string(ApiServer::kMaxRequestBytes >> 20) + " MiB");
      }
    }
    if (server_->ws_handler && internal::HasToken(request_.Header("upgrade"), "websocket") &&
        internal::HasToken(connection, "upgrade")) {
      return Upgrade();
    }
    if (in_.size() < body_size_ && internal::HasToken(request_.Header("expect"), "100-continue")) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      asio::async_write(socket_, asio::buffer(kContinue),
                        [self = shared_from_this()](const asio::error_code& ec, size_t) {
                          if (ec) return self->Shut();
                          self->ReadBody();
                        });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    if (in_.size() >= body_size_) {
      request_.body = in_.substr(0, body_size_);
      in_.erase(0, body_size_);
      return Dispatch();
    }
    Arm(kIdle);
    asio::async_read(socket_, asio::dynamic_buffer(in_),
                     asio::transfer_exactly(body_size_ - in_.size()),
                     [self = shared_from_this()](const asio::error_code& ec, size_t) {
                       self->Disarm();
                       if (ec) return self->Shut();
                       self->ReadBody();
                     });
  }

  void Dispatch() {
    server_->pool->Submit([self = shared_from_this(), request = std::move(request_)] {
      ServerResponse response;
      try {
        response = self->server_->handler(request);
      } catch (const std::exception& e) {
        response =
            ServerResponse{500, "text/plain", std::string("internal error: ") + e.what(), {}};
      } catch (...) {
        response = ServerResponse{500, "text/plain", "internal error", {}};
      }
      const bool head = request.method == "HEAD";
      asio::post(self->socket_.get_executor(),
                 [self, response = std::move(response), head]() mutable {
                   self->Respond(std::move(response), head);
                 });
    });
  }

  void Respond(ServerResponse response, bool head) {
    const bool close = !keep_alive_ || server_->stopped;
    out_head_ = ResponseHead(response, response.body.size(), close);
    out_body_ = head ? std::string() : std::move(response.body);
    std::array<asio::const_buffer, 2> buffers{asio::buffer(out_head_), asio::buffer(out_body_)};
    asio::async_write(socket_, buffers,
                      [self = shared_from_this(), close](const asio::error_code& ec, size_t) {
                        if (ec || close) return self->Shut();
                        self->ReadHead();
                      });
  }

  void Upgrade() {
    const std::string key = request_.Header("sec-websocket-key");
    if (request_.method != "GET" || key.empty() || body_size_ != 0) {
      return Refuse(400, "a WebSocket upgrade is a GET with a Sec-WebSocket-Key and no body");
    }
    if (request_.Header("sec-websocket-version") != "13") {
      return Refuse(426, "this server speaks WebSocket version 13",
                    {{"Sec-WebSocket-Version", "13"}});
    }
    std::string handshake =
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Accept: " +
        WebSocketAccept(key) + "\r\n\r\n";
    if (!server_->StartWebSocket(socket_, std::move(handshake), std::move(in_),
                                 std::move(request_))) {
      return Refuse(503, "too many WebSocket connections, or the server stops");
    }
    // The socket is the WebSocket's now.
  }

  // Answers `status` with `message`, then lingers and closes.
  void Refuse(int status, const std::string& message,
              std::vector<std::pair<std::string, std::string>> headers = {}) {
    keep_alive_ = false;
    ServerResponse r{status, "text/plain", message + "\n", std::move(headers)};
    out_head_ = ResponseHead(r, r.body.size(), true);
    out_body_ = std::move(r.body);
    std::array<asio::const_buffer, 2> buffers{asio::buffer(out_head_), asio::buffer(out_body_)};
    asio::async_write(socket_, buffers,
                      [self = shared_from_this()](const asio::error_code& ec, size_t) {
                        if (ec) return self->Shut();
                        asio::error_code ignored;
                        self->socket_.tcp().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
                        self->Arm(kLinger);
                        self->Drain(0);
                      });
  }

  // Reads and drops what the client still sends, until it closes, kLinger passes or
  // kLingerBytes came.
  void Drain(size_t drained) {
    in_.resize(16 << 10);
    socket_.async_read_some(asio::buffer(in_), [self = shared_from_this(), drained](
                                                   const asio::error_code& ec, size_t n) {
      if (ec || drained + n > kLingerBytes) return self->Shut();
      self->Drain(drained + n);
    });
  }

  void Shut() {
    Disarm();
    socket_.Close();
  }

  tls::Stream socket_;
  asio::steady_timer timer_;
  ApiServer::Impl* const server_;
  std::string remote_;
  std::string in_;  // read, not taken yet
  ServerRequest request_;
  size_t body_size_ = 0;
  bool keep_alive_ = true;
  std::string out_head_, out_body_;
};

void ApiServer::Impl::Accept() {
  acceptor.async_accept([this](const asio::error_code& ec, asio::ip::tcp::socket socket) {
    if (stopped || ec == asio::error::operation_aborted) return;
    if (ec) {
      MINK_LOG_WARN("http", "accept failed: {}", ec.message());
    } else {
      auto c = std::make_shared<HttpConnection>(tls::Stream(std::move(socket), tls.get()), this);
      {
        std::lock_guard<std::mutex> lock(mutex);
        std::erase_if(connections, [](const auto& w) { return w.expired(); });
        connections.push_back(c);
      }
      c->Start();
    }
    Accept();
  });
}

bool ApiServer::Impl::StartWebSocket(tls::Stream& socket, std::string handshake,
                                     std::string read_ahead, ServerRequest request) {
  std::lock_guard<std::mutex> lock(mutex);
  // The threads whose handler returned are joined here (the others by Stop).
  for (auto it = ws_threads.begin(); it != ws_threads.end();) {
    if (!*it->done) {
      ++it;
      continue;
    }
    it->thread.join();
    it = ws_threads.erase(it);
  }
  if (stopped || ws_threads.size() >= static_cast<size_t>(kMaxWebSockets)) return false;
  auto ws = std::make_shared<WsConnection>(std::move(socket), &open_websockets);
  std::erase_if(websockets, [](const auto& w) { return w.expired(); });
  websockets.push_back(ws);
  ws->Start(std::move(handshake), std::move(read_ahead));
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread thread([this, ws, done, request = std::move(request)] {
    NameThisThread("http-ws");
    try {
      ws_handler(request, *ws);
    } catch (const std::exception& e) {
      MINK_LOG_WARN("http", "WebSocket handler of {} failed: {}", request.path, e.what());
      ws->Close(kWsInternalError, "internal error");
    }
    ws->Close(kWsNormalClosure, "");
    *done = true;
  });
  ws_threads.push_back({std::move(thread), std::move(done)});
  return true;
}

ApiServer::ApiServer(std::unique_ptr<Impl> impl, int port) : impl_(std::move(impl)), port_(port) {}

ApiServer::~ApiServer() { Stop(); }

Result<std::unique_ptr<ApiServer>> ApiServer::Start(const std::string& listen, Handler handler,
                                                    WebSocketHandler ws, int threads, const tls::ServerFiles& tls) {
  MINK_ASSIGN_OR_RETURN(auto address, internal::SplitListen(listen));
  auto impl = std::make_unique<Impl>();
  if (tls.enabled()) {
    MINK_ASSIGN_OR_RETURN(impl->tls, tls::MakeServerContext(tls));
  }
  impl->handler = std::move(handler);
  impl->ws_handler = std::move(ws);
  asio::error_code ec;
  asio::ip::tcp::resolver resolver(impl->io);
  auto endpoints = resolver.resolve(address.first, std::to_string(address.second), ec);
  if (ec || endpoints.empty())
    return UnavailableError("cannot listen on " + listen + ": " + ec.message());
  const asio::ip::tcp::endpoint endpoint = *endpoints.begin();
  // SO_REUSEADDR only (not SO_REUSEPORT): a second process cannot share the port.
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return UnavailableError("cannot listen on " + listen + ": " + ec.message());
  const int port = impl->acceptor.local_endpoint().port();
  impl->pool = std::make_unique<ThreadPool>(std::max(1, threads), "http-api");
  impl->Accept();
  impl->io_thread = std::thread([raw = impl.get()] {
    NameThisThread("http-io");
    raw->io.run();
  });
  return std::unique_ptr<ApiServer>(new ApiServer(std::move(impl), port));
}

void ApiServer::Stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  asio::post(impl_->io, [impl = impl_.get()] {
    asio::error_code ignored;
    impl->acceptor.close(ignored);
  });
  std::vector<Impl::WsThread> threads;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    for (auto& w : impl_->connections) {
      if (auto c = w.lock()) c->Close();
    }
    for (auto& w : impl_->websockets) {
      if (auto ws = w.lock()) ws->Close(kWsGoingAway, "server stopping");
    }
    threads = std::move(impl_->ws_threads);
    impl_->ws_threads.clear();
  }
  // The handlers return once their WebSocket says Closed(); the requests in flight finish.
  for (auto& t : threads) t.thread.join();
  impl_->pool->Stop();
  // The Close frames go out and are answered: each WebSocket's socket closes within
  // WsConnection::kCloseWait of its Close.
  for (int i = 0; i < 300 && impl_->open_websockets > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  impl_->work.reset();
  impl_->io.stop();
  impl_->io_thread.join();
}

}  // namespace mink::http
