#pragma once
// FlightServer: serves the Arrow Flight gRPC service (arrow.flight.protocol.FlightService) on one
// listen address and forwards every call to a FlightHandler. gRPC runs the calls on its own
// threads (sync API); see flight_handler.h for what that means for handlers.

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "base/result.h"
#include "base/status.h"
#include "flight/server/flight_handler.h"

namespace mink::flight {

struct FlightServerOptions {
  // Largest message the server accepts or sends; DoPut batches can be large.
  int max_message_bytes = 256 * 1024 * 1024;
  // Authentication on: every call's "authorization" header ("Basic ..." or "Bearer ...") is
  // given to `authenticate`, which answers the user or why not; a call it refuses ends
  // UNAUTHENTICATED before the handler sees it. A Handshake it accepts answers a bearer token
  // from `issue_token` in the "authorization" response header (Arrow Flight's basic-auth
  // handshake). Null: off.
  std::function<Result<std::string>(const std::string& authorization)> authenticate;
  std::function<std::string(const std::string& user)> issue_token;
  // TLS: the files of the certificate chain and its private key (PEM), checked beforehand
  // (tls::Check); empty: plain. gRPC reads them again when they change, every
  // kTlsRefreshSeconds, so a renewed certificate is served without a restart.
  std::string tls_cert_file;
  std::string tls_key_file;
  // Mutual TLS: PEM file of the certificate authorities a client's certificate must chain to;
  // a client without one is refused in the handshake. Empty: no client certificate asked.
  std::string tls_client_ca_file;
  static constexpr int kTlsRefreshSeconds = 5;
};

class FlightServer {
 public:
  // Starts serving `listen_address` ("host:port", or grpc://host:port; port 0 picks a free
  // port). The handler must outlive the server. Fails with a message naming the address when
  // it cannot listen there (port taken, not a local address).
  static Result<std::unique_ptr<FlightServer>> Start(const std::string& listen_address,
                                                     FlightHandler* handler,
                                                     FlightServerOptions options = {});

  ~FlightServer();  // Shutdown(0) if still running
  FlightServer(const FlightServer&) = delete;
  FlightServer& operator=(const FlightServer&) = delete;

  // The port actually bound (the chosen one when started with port 0).
  int port() const;
  // "host:port" with the bound port.
  const std::string& address() const;

  // Stops accepting calls, lets running calls finish for up to `grace`, then cancels the rest
  // (their writers start returning false) and waits for every handler call to return.
  // Idempotent.
  void Shutdown(std::chrono::milliseconds grace = std::chrono::milliseconds(0));

 private:
  struct Impl;
  explicit FlightServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mink::flight
