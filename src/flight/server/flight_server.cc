#include "flight/server/flight_server.h"

#include <google/protobuf/descriptor.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <grpcpp/support/method_handler.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "arrow/Flight.grpc.pb.h"
#include "base/log.h"
#include "flight/protocol/wire.h"
#include "flight/server/call_metrics.h"

namespace mink::flight {
namespace {

namespace pb = wire::pb;

// The caller of the call this gRPC thread serves (CurrentCaller()).
thread_local std::string current_caller;
using DoGetStreamer = grpc::ServerSplitStreamer<pb::Ticket, grpc::ByteBuffer>;

constexpr char kLog[] = "flight";

// The one mapping from Mink's Status to the gRPC status a Flight client sees. The message is
// kept as is; the codes are the same canonical set, so most map one to one.
grpc::Status ToGrpcStatus(const Status& status) {
  grpc::StatusCode code = grpc::StatusCode::INTERNAL;
  // clang-format off
  switch (status.code()) {
    case StatusCode::kOk: return grpc::Status::OK;
    case StatusCode::kInvalidArgument: code = grpc::StatusCode::INVALID_ARGUMENT; break;
    case StatusCode::kNotFound: code = grpc::StatusCode::NOT_FOUND; break;
    case StatusCode::kAlreadyExists: code = grpc::StatusCode::ALREADY_EXISTS; break;
    case StatusCode::kFailedPrecondition: code = grpc::StatusCode::FAILED_PRECONDITION; break;
    case StatusCode::kAborted: code = grpc::StatusCode::ABORTED; break;
    case StatusCode::kOutOfRange: code = grpc::StatusCode::OUT_OF_RANGE; break;
    case StatusCode::kUnavailable: code = grpc::StatusCode::UNAVAILABLE; break;
    case StatusCode::kDataLoss: code = grpc::StatusCode::DATA_LOSS; break;
    case StatusCode::kUnimplemented: code = grpc::StatusCode::UNIMPLEMENTED; break;
    case StatusCode::kDeadlineExceeded: code = grpc::StatusCode::DEADLINE_EXCEEDED; break;
    case StatusCode::kResourceExhausted: code = grpc::StatusCode::RESOURCE_EXHAUSTED; break;
    case StatusCode::kCancelled: code = grpc::StatusCode::CANCELLED; break;
    case StatusCode::kPermissionDenied: code = grpc::StatusCode::PERMISSION_DENIED; break;
    case StatusCode::kUnknown:
    case StatusCode::kInternal:
      code = grpc::StatusCode::INTERNAL;
      break;
  }
  // clang-format on
  return grpc::Status(code, status.message());
}

// Ends a call with the handler's status. Errors also carry a trailer telling our client that the
// status came from the handler, not from the transport (see wire::kHandlerStatusTrailer).
grpc::Status Reply(grpc::ServerContext* context, const Status& status) {
  if (!status.ok()) {
    context->AddTrailingMetadata(wire::kHandlerStatusTrailer,
                                 std::string(StatusCodeName(status.code())));
  }
  return ToGrpcStatus(status);
}

class DoGetWriter final : public FlightDataWriter {
 public:
  DoGetWriter(grpc::ServerContext* context, DoGetStreamer* stream)
      : context_(context), stream_(stream) {}

  bool Write(FlightData data) override {
    if (context_->IsCancelled()) return false;
    // Zero-copy for large bodies: see wire::EncodeFlightData.
    grpc::ByteBuffer buffer = wire::EncodeFlightData(std::move(data));
    return stream_->Write(buffer);
  }
  bool IsCancelled() const override { return context_->IsCancelled(); }

 private:
  grpc::ServerContext* context_;
  DoGetStreamer* stream_;
};

using DoPutStream = grpc::ServerReaderWriter<pb::PutResult, pb::FlightData>;
using DoExchangeStream = grpc::ServerReaderWriter<pb::FlightData, pb::FlightData>;

// The client's FlightData of a DoPut or a DoExchange.
template <class Stream>
class FlightDataStreamReader final : public FlightDataReader {
 public:
  FlightDataStreamReader(grpc::ServerContext* context, Stream* stream, const char* call)
      : context_(context), stream_(stream), call_(call) {}

  Result<bool> Next(FlightData* out) override {
    pb::FlightData message;
    // One copy: gRPC's received slices into the message's strings (protobuf parse). The strings
    // are then moved, not copied, into *out.
    if (!stream_->Read(&message)) {
      if (context_->IsCancelled()) {
        return CancelledError(std::string(call_) + " was cancelled by the client");
      }
      return false;
    }
    *out = wire::FromProto(std::move(message));
    return true;
  }
  bool IsCancelled() const override { return context_->IsCancelled(); }

 private:
  grpc::ServerContext* context_;
  Stream* stream_;
  const char* call_;
};

class DoExchangeWriter final : public FlightDataWriter {
 public:
  DoExchangeWriter(grpc::ServerContext* context, DoExchangeStream* stream)
      : context_(context), stream_(stream) {}

  bool Write(FlightData data) override {
    if (context_->IsCancelled()) return false;
    pb::FlightData message;
    wire::ToProto(std::move(data), &message);
    return stream_->Write(message);
  }
  bool IsCancelled() const override { return context_->IsCancelled(); }

 private:
  grpc::ServerContext* context_;
  DoExchangeStream* stream_;
};

class DoPutResultWriter final : public PutResultWriter {
 public:
  explicit DoPutResultWriter(DoPutStream* stream) : stream_(stream) {}

  bool Write(PutResult result) override {
    pb::PutResult message;
    message.set_app_metadata(std::move(result.app_metadata));
    std::lock_guard<std::mutex> lock(mutex_);  // gRPC allows one writer at a time
    return stream_->Write(message);
  }

 private:
  std::mutex mutex_;
  DoPutStream* stream_;
};

class DoActionWriter final : public ActionResultWriter {
 public:
  explicit DoActionWriter(grpc::ServerWriter<pb::Result>* stream) : stream_(stream) {}

  bool Write(ActionResult result) override {
    pb::Result message;
    message.set_body(std::move(result.body));
    return stream_->Write(message);
  }

 private:
  grpc::ServerWriter<pb::Result>* stream_;
};

// The gRPC service. Every method but DoGet uses the generated sync signatures; DoGet is swapped
// for a handler that writes ByteBuffers, so large bodies are sent without a serialization copy.
class FlightService final : public pb::FlightService::Service {
 public:
  FlightService(FlightHandler* handler, FlightServerOptions options) : handler_(handler), options_(std::move(options)) {
    const google::protobuf::MethodDescriptor* do_get = pb::Ticket::descriptor()
                                                           ->file()
                                                           ->FindServiceByName("FlightService")
                                                           ->FindMethodByName("DoGet");
    // The generated service registers its methods in .proto order, which is the descriptor's
    // index. The handler is owned by the method from here on.
    MarkMethodStreamed(
        do_get->index(),
        new grpc::internal::SplitServerStreamingHandler<pb::Ticket, grpc::ByteBuffer>(
            [this](grpc::ServerContext* context, DoGetStreamer* stream) {
              return StreamedDoGet(context, stream);
            }));
  }

  grpc::Status Handshake(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<pb::HandshakeResponse, pb::HandshakeRequest>* stream) override {
    // Authentication is by header; a Handshake that passes answers a bearer token for later
    // calls, and echoes whatever the client sends.
    std::string user;
    grpc::Status denied;
    if (!Authenticated(context, &denied, &user)) return denied;
    if (options_.issue_token && !user.empty()) {
      context->AddInitialMetadata("authorization", "Bearer " + options_.issue_token(user));
    }
    pb::HandshakeRequest request;
    while (stream->Read(&request)) {
      pb::HandshakeResponse response;
      response.set_protocol_version(request.protocol_version());
      response.set_payload(std::move(*request.mutable_payload()));
      if (!stream->Write(response)) break;
    }
    return grpc::Status::OK;
  }

  grpc::Status ListFlights(grpc::ServerContext* context, const pb::Criteria* request,
                           grpc::ServerWriter<pb::FlightInfo>* writer) override {
    if (grpc::Status denied; !Authenticated(context, &denied)) return denied;
    Result<std::vector<FlightInfo>> flights = handler_->ListFlights(request->expression());
    if (!flights.ok()) return Reply(context, flights.status());
    for (const FlightInfo& info : *flights) {
      pb::FlightInfo message;
      wire::ToProto(info, &message);
      if (!writer->Write(message)) break;
    }
    return grpc::Status::OK;
  }

  grpc::Status GetFlightInfo(grpc::ServerContext* context, const pb::FlightDescriptor* request,
                             pb::FlightInfo* response) override {
    if (grpc::Status denied; !Authenticated(context, &denied)) return denied;
    Result<FlightInfo> info = handler_->GetFlightInfo(wire::FromProto(*request));
    if (!info.ok()) return Reply(context, info.status());
    wire::ToProto(*info, response);
    return grpc::Status::OK;
  }

  grpc::Status PollFlightInfo(grpc::ServerContext* context, const pb::FlightDescriptor* request,
                              pb::PollInfo* response) override {
    if (grpc::Status denied; !Authenticated(context, &denied)) return denied;
    // Mink's flights are ready at once: the answer is complete (no retry descriptor, no
    // progress), exactly what GetFlightInfo returns.
    Result<FlightInfo> info = handler_->GetFlightInfo(wire::FromProto(*request));
    if (!info.ok()) return Reply(context, info.status());
    wire::ToProto(*info, response->mutable_info());
    return grpc::Status::OK;
  }

  grpc::Status GetSchema(grpc::ServerContext* context, const pb::FlightDescriptor* request,
                         pb::SchemaResult* response) override {
    if (grpc::Status denied; !Authenticated(context, &denied)) return denied;
    Result<std::string> schema = handler_->GetSchema(wire::FromProto(*request));
    if (!schema.ok()) return Reply(context, schema.status());
    response->set_schema(std::move(*schema));
    return grpc::Status::OK;
  }

  grpc::Status StreamedDoGet(grpc::ServerContext* context, DoGetStreamer* stream) {
    if (grpc::Status denied; !Authenticated(context, &denied)) return denied;
    pb::Ticket ticket;
    if (!stream->Read(&ticket)) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "DoGet without a ticket");
    }
    DoGetWriter writer(context, stream);
    Status status = handler_->DoGet(ticket.ticket(), writer);
    if (status.ok() && context->IsCancelled()) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "DoGet was cancelled");
    }
    return Reply(context, status);
  }

  grpc::Status DoPut(grpc::ServerContext* context, DoPutStream* stream) override {
    if (grpc::Status denied; !Authenticated(context, &denied)) return denied;
    FlightDataStreamReader<DoPutStream> reader(context, stream, "DoPut");
    DoPutResultWriter writer(stream);
    return Reply(context, handler_->DoPut(reader, writer));
  }

  grpc::Status DoExchange(grpc::ServerContext* context, DoExchangeStream* stream) override {
    if (grpc::Status denied; !Authenticated(context, &denied)) return denied;
    FlightDataStreamReader<DoExchangeStream> reader(context, stream, "DoExchange");
    DoExchangeWriter writer(context, stream);
    return Reply(context, handler_->DoExchange(reader, writer));
  }

  grpc::Status DoAction(grpc::ServerContext* context, const pb::Action* request,
                        grpc::ServerWriter<pb::Result>* writer) override {
    if (grpc::Status denied; !Authenticated(context, &denied)) return denied;
    DoActionWriter results(writer);
    return Reply(context, handler_->DoAction(wire::FromProto(*request), results));
  }

  grpc::Status ListActions(grpc::ServerContext* context, const pb::Empty* /*request*/,
                           grpc::ServerWriter<pb::ActionType>* writer) override {
    if (grpc::Status denied; !Authenticated(context, &denied)) return denied;
    Result<std::vector<ActionType>> actions = handler_->ListActions();
    if (!actions.ok()) return Reply(context, actions.status());
    for (const ActionType& action : *actions) {
      pb::ActionType message;
      message.set_type(action.type);
      message.set_description(action.description);
      if (!writer->Write(message)) break;
    }
    return grpc::Status::OK;
  }

 private:
  // Whether the call may go on (authentication off, or its authorization accepted); `denied`
  // is UNAUTHENTICATED otherwise. `user`: who the call is.
  bool Authenticated(grpc::ServerContext* context, grpc::Status* denied, std::string* user = nullptr) const {
    current_caller.clear();  // this thread's previous call is over
    if (!options_.authenticate) return true;
    const auto& headers = context->client_metadata();
    auto it = headers.find("authorization");
    const std::string header = it == headers.end() ? "" : std::string(it->second.data(), it->second.size());
    auto who = options_.authenticate(header);
    if (!who.ok()) {
      *denied = grpc::Status(grpc::StatusCode::UNAUTHENTICATED, who.status().message());
      return false;
    }
    if (user != nullptr) *user = *who;
    current_caller = *who;
    return true;
  }

  FlightHandler* handler_;
  const FlightServerOptions options_;
};

// gRPC only says that it could not listen; binding the address ourselves tells why.
std::string WhyCannotListen(const std::string& host_port) {
  size_t colon = host_port.rfind(':');
  std::string host = host_port.substr(0, colon);
  std::string port = host_port.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return std::string("cannot resolve the host: ") + ::gai_strerror(rc);
  }
  std::string why = "gRPC refused the address";
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd < 0) continue;
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0) why = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return why;
}

}  // namespace

const std::string& CurrentCaller() { return current_caller; }

struct FlightServer::Impl {
  Impl(FlightHandler* handler, FlightServerOptions options) : service(handler, std::move(options)) {}

  FlightService service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::string address;
  std::mutex shutdown_mutex;
  bool shut_down = false;
};

FlightServer::FlightServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FlightServer::~FlightServer() { Shutdown(); }

Result<std::unique_ptr<FlightServer>> FlightServer::Start(const std::string& listen_address,
                                                          FlightHandler* handler,
                                                          FlightServerOptions options) {
  if (handler == nullptr) return InvalidArgumentError("FlightServer needs a handler");
  MINK_ASSIGN_OR_RETURN(std::string host_port, ParseFlightAddress(listen_address));

  auto impl = std::make_unique<Impl>(handler, options);
  grpc::ServerBuilder builder;
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!options.tls_cert_file.empty()) {
    const bool mutual = !options.tls_client_ca_file.empty();
    auto files = mutual ? std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
                              options.tls_key_file, options.tls_cert_file, options.tls_client_ca_file,
                              FlightServerOptions::kTlsRefreshSeconds)
                        : std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
                              options.tls_key_file, options.tls_cert_file,
                              FlightServerOptions::kTlsRefreshSeconds);
    grpc::experimental::TlsServerCredentialsOptions tls(files);
    tls.watch_identity_key_cert_pairs();
    if (mutual) tls.watch_root_certs();
    tls.set_cert_request_type(mutual ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                     : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
    credentials = grpc::experimental::TlsServerCredentials(tls);
  }
  builder.AddListeningPort(host_port, credentials, &impl->port);
  builder.RegisterService(&impl->service);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(MakeCallMetrics());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  builder.SetMaxReceiveMessageSize(options.max_message_bytes);
  builder.SetMaxSendMessageSize(options.max_message_bytes);
  // gRPC sets SO_REUSEPORT by default, which would let a second server share a taken port.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr || impl->port == 0) {
    if (impl->server != nullptr) impl->server->Shutdown();
    return UnavailableError("Flight server cannot listen on " + host_port + ": " +
                            WhyCannotListen(host_port));
  }
  impl->address = host_port.substr(0, host_port.rfind(':') + 1) + std::to_string(impl->port);
  MINK_LOG_INFO(kLog, "listening address={}", impl->address);
  return std::unique_ptr<FlightServer>(new FlightServer(std::move(impl)));
}

int FlightServer::port() const { return impl_->port; }

const std::string& FlightServer::address() const { return impl_->address; }

void FlightServer::Shutdown(std::chrono::milliseconds grace) {
  std::lock_guard<std::mutex> lock(impl_->shutdown_mutex);
  if (impl_->shut_down) return;
  impl_->shut_down = true;
  // Returns once every sync handler has returned; calls still running at the deadline are
  // cancelled first (their writers then return false).
  impl_->server->Shutdown(std::chrono::system_clock::now() + grace);
  impl_->server->Wait();
  MINK_LOG_INFO(kLog, "stopped address={}", impl_->address);
}

}  // namespace mink::flight
