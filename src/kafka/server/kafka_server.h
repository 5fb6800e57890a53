#pragma once
// KafkaServer: the Kafka listener (`--kafka-listen`). Connections on asio; each request frame is
// size-checked before anything is allocated, decoded, and handed to the Broker in order (group
// coordination on threads of its own, data requests on the dispatch threads); the
// responses go back in request order even when they complete out of order (a long-poll Fetch
// only holds its own connection). A malformed frame, an unknown API or an unsupported version
// closes that connection with a log line (ApiVersions of an unknown version gets Kafka's
// UNSUPPORTED_VERSION answer instead, so clients can negotiate).

#include <memory>
#include <string>

#include "base/result.h"
#include "auth/user_directory.h"
#include "kafka/server/broker.h"
#include "tls/tls_files.h"

namespace mink::kafka {

struct KafkaServerOptions {
  std::string listen = "127.0.0.1:9092";
  size_t max_frame_bytes = 100 << 20;
  int io_threads = 2;
  int dispatch_threads = 4;
  // Group coordination (heartbeats, joins, offset commits) on threads of its own, so that data
  // requests waiting for the object store cannot hold it up.
  int group_threads = 2;
  size_t max_inflight_per_connection = 64;  // reading pauses beyond this many open requests
  // Authentication on: every connection authenticates with SASL (sasl_session.h) against these
  // users before any request but ApiVersions. Null: off.
  const auth::UserDirectory* users = nullptr;
  // With a certificate, every connection is TLS (clients' security.protocol SSL or SASL_SSL).
  tls::ServerFiles tls;
};

class KafkaServer {
 public:
  static Result<std::unique_ptr<KafkaServer>> Start(const KafkaServerOptions& options,
                                                    Broker* broker);
  ~KafkaServer();
  int port() const;
  // Stops accepting, closes connections, joins the threads.
  void Stop();

 private:
  struct Impl;
  explicit KafkaServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mink::kafka
