#pragma once
// FlightClient: a synchronous Arrow Flight client over one gRPC channel, for the `mink` CLI and
// mink-query. Every call blocks the calling thread; a FlightClient may be shared by threads (the
// channel is thread-safe), but each stream object belongs to one caller at a time.
//
// Errors: gRPC statuses come back as Mink Status with the same code and the server's message
// (a handler's NotFound("table x") arrives as NotFound "table x"). A node that cannot be reached
// is Unavailable "cannot reach node at host:port: ...".

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "flight/protocol/types.h"

namespace mink::flight {

struct FlightClientOptions {
  // Deadline of unary calls, ListFlights, ListActions and DoAction unless a call says otherwise.
  // DoGet and DoPut have no default deadline: a follow read or a long upload may run for ever.
  std::chrono::milliseconds default_timeout{30'000};
  // Connect waits this long for the node to accept the connection; 0: connect lazily on the
  // first call instead (Connect then never fails for an unreachable node).
  std::chrono::milliseconds connect_timeout{5'000};
  int max_message_bytes = 256 * 1024 * 1024;
  // The longest wait between attempts to reconnect a lost connection; 0: gRPC's (120 s). A
  // client that must find a restarted peer quickly (a node forwarding to another) sets it low.
  // A client with its own bound also has its own connections (not shared with other clients of
  // the process), so a new client never inherits an old one's backoff.
  std::chrono::milliseconds max_reconnect_backoff{0};
  // Headers sent with every call, e.g. {"authorization", "Basic ..."} for a node that asks
  // clients to authenticate. Keys are lower case.
  std::vector<std::pair<std::string, std::string>> headers;
  // For a grpc+tls:// address: the PEM certificates to trust ("": the system's roots).
  std::string tls_roots_pem;
  // The client's own certificate chain and key (PEM), shown to a server that asks for one
  // (mutual TLS); "": none.
  std::string tls_cert_pem;
  std::string tls_key_pem;
};

struct CallOptions {
  // Deadline of the whole call, from its start. Unset: the client's default (see above).
  // kNoDeadline: none.
  std::optional<std::chrono::milliseconds> timeout;
  // Request headers, e.g. {"authorization", "Bearer <token>"}. Keys are lower case.
  std::vector<std::pair<std::string, std::string>> headers;

  static constexpr std::chrono::milliseconds kNoDeadline{0};
};

// The messages of one DoGet. Destroying it before the end cancels the call.
class FlightStreamReader {
 public:
  virtual ~FlightStreamReader() = default;
  // Reads the next message: true with *out filled, false after the last one (the call ended
  // OK), or the call's error.
  virtual Result<bool> Next(FlightData* out) = 0;
  // Asks the server to stop (its writer starts returning false); the next Next returns
  // Cancelled. Safe to call from another thread while Next blocks.
  virtual void Cancel() = 0;
};

// One DoPut: write messages, half-close, read the server's PutResults, finish.
class FlightPutStream {
 public:
  virtual ~FlightPutStream() = default;
  // Sends one message (the first should carry the descriptor). The body is moved, not copied.
  // When the server has already ended the call, returns its status (or Aborted if it ended
  // with OK before reading everything).
  virtual Status Write(FlightData data) = 0;
  // Tells the server that no more messages follow.
  virtual Status DoneWriting() = 0;
  // Reads the next PutResult: true with *out filled, false when the server sent its last one.
  // May be called from another thread while Write blocks.
  virtual Result<bool> ReadResult(PutResult* out) = 0;
  // Ends the call (half-closing first if needed; PutResults not read yet are dropped) and
  // returns the server's status.
  virtual Status Finish() = 0;
  virtual void Cancel() = 0;
};

// One DoExchange: messages both ways, from one thread at a time (a request-answer session:
// write, read, write, read). Destroying it before Finish cancels the call.
class FlightExchangeStream {
 public:
  virtual ~FlightExchangeStream() = default;
  // Sends one message (the first should carry the descriptor). When the server has already
  // ended the call, returns its status.
  virtual Status Write(FlightData data) = 0;
  // Tells the server that no more messages follow.
  virtual Status DoneWriting() = 0;
  // Reads the server's next message: true with *out filled, false after the last one (the call
  // ended OK), or the call's error.
  virtual Result<bool> Read(FlightData* out) = 0;
  // Half-closes, drops what the server still sends, and returns the server's status.
  virtual Status Finish() = 0;
};

class FlightClient {
 public:
  // `address`: grpc://host:port, grpc+tcp://host:port or host:port; grpc+tls://host:port for
  // TLS, verifying the node's certificate against options.tls_roots_pem and its host name.
  static Result<std::unique_ptr<FlightClient>> Connect(const std::string& address,
                                                       FlightClientOptions options = {});
  ~FlightClient();
  FlightClient(const FlightClient&) = delete;
  FlightClient& operator=(const FlightClient&) = delete;

  // "host:port" of the node.
  const std::string& address() const;

  Result<std::vector<FlightInfo>> ListFlights(const std::string& criteria = "",
                                              const CallOptions& options = {});
  Result<FlightInfo> GetFlightInfo(const FlightDescriptor& descriptor,
                                   const CallOptions& options = {});
  // The encapsulated IPC Schema message.
  Result<std::string> GetSchema(const FlightDescriptor& descriptor,
                                const CallOptions& options = {});
  Result<std::unique_ptr<FlightStreamReader>> DoGet(const std::string& ticket,
                                                    const CallOptions& options = {});
  Result<std::unique_ptr<FlightPutStream>> DoPut(const CallOptions& options = {});
  // Unset timeout: none (an exchange may be a long session).
  Result<std::unique_ptr<FlightExchangeStream>> DoExchange(const CallOptions& options = {});
  Result<std::vector<ActionResult>> DoAction(const Action& action, const CallOptions& options = {});
  Result<std::vector<ActionType>> ListActions(const CallOptions& options = {});

 private:
  struct Impl;
  explicit FlightClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mink::flight
