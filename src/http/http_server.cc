#include "http/http_server.h"

#include <httplib.h>

#include <algorithm>
#include <thread>

#include "base/log.h"
#include "tls/certificate_reloader.h"
#include "http/server_internal.h"

namespace mink::http {

using internal::FindOr;
using internal::Lower;
using internal::SplitListen;

std::string ServerRequest::Header(const std::string& name) const { return FindOr(headers, name); }
std::string ServerRequest::Query(const std::string& name) const { return FindOr(query, name); }

std::map<std::string, std::string> ParseForm(std::string_view body) { return internal::ParseQuery(body); }

struct HttpServer::Impl {
  std::shared_ptr<tls::CertificateReloader> certificates;  // with TLS: what handshakes serve
  std::unique_ptr<httplib::Server> server;  // an httplib::SSLServer with TLS
  std::thread thread;
};

HttpServer::HttpServer(std::unique_ptr<Impl> impl, int port) : impl_(std::move(impl)), port_(port) {}

HttpServer::~HttpServer() { Stop(); }

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const std::string& listen, Handler handler,
                                                      int threads, const tls::ServerFiles& tls) {
  MINK_ASSIGN_OR_RETURN(auto address, SplitListen(listen));
  auto impl = std::make_unique<Impl>();
  if (tls.enabled()) {
    MINK_ASSIGN_OR_RETURN(impl->certificates, tls::CertificateReloader::Open(tls));
    // With a client CA, httplib asks for and verifies client certificates (mutual TLS).
    auto server = std::make_unique<httplib::SSLServer>(
        tls.cert.c_str(), tls.key.c_str(), tls.client_ca.empty() ? nullptr : tls.client_ca.c_str());
    if (!server->is_valid()) return InvalidArgumentError("TLS files " + tls.cert + ", " + tls.key + " do not load");
    // Each handshake is given the certificate of the files as they are now.
    impl->certificates->InstallOn(server->ssl_context());
    impl->server = std::move(server);
  } else {
    impl->server = std::make_unique<httplib::Server>();
  }
  // An idle kept-alive connection holds a worker until it times out, and Stop waits for the
  // workers: one second keeps a stop short (httplib's default is five).
  impl->server->set_keep_alive_timeout(1);
  impl->server->new_task_queue = [threads] {
    return new httplib::ThreadPool(static_cast<size_t>(std::max(1, threads)));
  };
  auto serve = [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    ServerRequest request;
    request.method = req.method;
    request.path = req.path;
    for (const auto& [k, v] : req.params) request.query[k] = v;
    for (const auto& [k, v] : req.headers) request.headers[Lower(k)] = v;
    request.body = req.body;
    request.remote = req.remote_addr;
    ServerResponse response;
    try {
      response = handler(request);
    } catch (const std::exception& e) {
      response = ServerResponse{500, "text/plain", std::string("internal error: ") + e.what(), {}};
    }
    res.status = response.status;
    for (const auto& [k, v] : response.headers) res.set_header(k, v);
    res.set_content(response.body, response.content_type);
  };
  // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, which would let a second
  // process share the port silently instead of failing to start.
  impl->server->set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  const std::string pattern = ".*";
  impl->server->Get(pattern, serve);  // HEAD too
  impl->server->Post(pattern, serve);
  impl->server->Put(pattern, serve);
  impl->server->Delete(pattern, serve);
  impl->server->Patch(pattern, serve);
  int port = address.second;
  if (port == 0) {
    port = impl->server->bind_to_any_port(address.first);
    if (port < 0) return UnavailableError("cannot listen on " + listen);
  } else if (!impl->server->bind_to_port(address.first, port)) {
    return UnavailableError("cannot listen on " + listen + " (in use, or not an address of this host)");
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->server->listen_after_bind(); });
  // Stop before the accept loop runs would find nothing to stop (and the loop would then run
  // on): return once it runs.
  for (int i = 0; i < 5000 && !impl->server->is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl), port));
}

void HttpServer::Stop() {
  if (!impl_) return;
  impl_->server->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace mink::http
