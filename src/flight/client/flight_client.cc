#include "flight/client/flight_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>

#include <deque>
#include <mutex>

#include "arrow/Flight.grpc.pb.h"
#include "flight/protocol/wire.h"

namespace mink::flight {
namespace {

namespace pb = wire::pb;
using std::chrono::milliseconds;

// The one mapping from a finished call's gRPC status back to a Mink Status. Errors a handler
// returned (marked by our server's trailer) keep their code and message exactly; transport
// failures name the node, so "cannot reach node at 127.0.0.1:9123" is what a user reads.
Status FromGrpcStatus(const grpc::Status& status, const grpc::ClientContext& context,
                      const std::string& address) {
  if (status.ok()) return Status::Ok();
  const auto& trailers = context.GetServerTrailingMetadata();
  const bool from_handler = trailers.find(wire::kHandlerStatusTrailer) != trailers.end();
  const std::string& message = status.error_message();
  // clang-format off
  switch (status.error_code()) {
    case grpc::StatusCode::OK: return Status::Ok();
    case grpc::StatusCode::CANCELLED:
      return CancelledError(from_handler ? message : "call to node at " + address +
                                                         " cancelled: " + message);
    case grpc::StatusCode::INVALID_ARGUMENT: return InvalidArgumentError(message);
    case grpc::StatusCode::NOT_FOUND: return NotFoundError(message);
    case grpc::StatusCode::ALREADY_EXISTS: return AlreadyExistsError(message);
    case grpc::StatusCode::PERMISSION_DENIED: return Status(StatusCode::kPermissionDenied, message);
    case grpc::StatusCode::UNAUTHENTICATED:
      return Status(StatusCode::kPermissionDenied, "unauthenticated: " + message);
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return ResourceExhaustedError(message);
    case grpc::StatusCode::FAILED_PRECONDITION: return FailedPreconditionError(message);
    case grpc::StatusCode::ABORTED: return AbortedError(message);
    case grpc::StatusCode::OUT_OF_RANGE: return OutOfRangeError(message);
    case grpc::StatusCode::UNIMPLEMENTED: return UnimplementedError(message);
    case grpc::StatusCode::DATA_LOSS: return DataLossError(message);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return DeadlineExceededError(from_handler ? message : "no answer from node at " + address +
                                                                " before the deadline: " + message);
    case grpc::StatusCode::UNAVAILABLE:
      return UnavailableError(from_handler ? message
                                           : "cannot reach node at " + address + ": " + message);
    case grpc::StatusCode::UNKNOWN: return UnknownError(message);
    default: return InternalError(message);
  }
  // clang-format on
}

void PrepareContext(grpc::ClientContext* context, const CallOptions& options,
                    std::optional<milliseconds> default_timeout, const FlightClientOptions& client) {
  std::optional<milliseconds> timeout = options.timeout ? options.timeout : default_timeout;
  if (timeout && timeout->count() > 0) {
    context->set_deadline(std::chrono::system_clock::now() + *timeout);
  }
  for (const auto& [key, value] : client.headers) context->AddMetadata(key, value);
  for (const auto& [key, value] : options.headers) context->AddMetadata(key, value);
}

class DoGetReader final : public FlightStreamReader {
 public:
  DoGetReader(std::string address, std::unique_ptr<grpc::ClientContext> context,
              std::unique_ptr<grpc::ClientReader<pb::FlightData>> reader)
      : address_(std::move(address)), context_(std::move(context)), reader_(std::move(reader)) {}

  ~DoGetReader() override {
    if (done_) return;
    context_->TryCancel();
    pb::FlightData discarded;
    while (reader_->Read(&discarded)) {
    }
    (void)reader_->Finish();
  }

  Result<bool> Next(FlightData* out) override {
    if (done_) {
      if (!final_status_.ok()) return final_status_;
      return false;
    }
    pb::FlightData message;
    // One copy: gRPC's received slices into the message (protobuf parse); the strings are then
    // moved into *out.
    if (reader_->Read(&message)) {
      *out = wire::FromProto(std::move(message));
      return true;
    }
    done_ = true;
    final_status_ = FromGrpcStatus(reader_->Finish(), *context_, address_);
    if (!final_status_.ok()) return final_status_;
    return false;
  }

  void Cancel() override { context_->TryCancel(); }

 private:
  const std::string address_;
  std::unique_ptr<grpc::ClientContext> context_;  // outlives reader_ (declared first)
  std::unique_ptr<grpc::ClientReader<pb::FlightData>> reader_;
  bool done_ = false;
  Status final_status_;
};

// DoPut sends ByteBuffers (wire::EncodeFlightData: large bodies are not copied) and reads
// generated PutResult messages.
using DoPutCall = grpc::ClientReaderWriter<grpc::ByteBuffer, pb::PutResult>;

class DoPutStream final : public FlightPutStream {
 public:
  DoPutStream(std::string address, std::unique_ptr<grpc::ClientContext> context,
              std::unique_ptr<DoPutCall> call)
      : address_(std::move(address)), context_(std::move(context)), call_(std::move(call)) {}

  ~DoPutStream() override {
    bool finished;
    {
      std::lock_guard<std::mutex> lock(finish_mutex_);
      finished = finished_;
    }
    if (finished) return;
    context_->TryCancel();
    (void)Finish();
  }

  Status Write(FlightData data) override {
    {
      std::lock_guard<std::mutex> lock(finish_mutex_);
      if (finished_) {
        if (!final_status_.ok()) return final_status_;
        return FailedPreconditionError("DoPut write after the call finished");
      }
    }
    if (writes_done_) return FailedPreconditionError("DoPut write after DoneWriting");
    grpc::ByteBuffer buffer = wire::EncodeFlightData(std::move(data));
    if (call_->Write(buffer)) return Status::Ok();
    // The call is over: the server returned (perhaps refusing the write) or the link broke.
    Status status = Finish();
    if (!status.ok()) return status;
    return AbortedError("node at " + address_ + " ended DoPut before reading every message");
  }

  Status DoneWriting() override {
    if (!writes_done_) {
      writes_done_ = true;
      (void)call_->WritesDone();  // false only when the call is over; Finish tells why
    }
    return Status::Ok();
  }

  Result<bool> ReadResult(PutResult* out) override {
    std::lock_guard<std::mutex> lock(read_mutex_);
    if (!buffered_.empty()) {
      *out = std::move(buffered_.front());
      buffered_.pop_front();
      return true;
    }
    if (reads_done_) return false;
    pb::PutResult message;
    if (!call_->Read(&message)) {
      reads_done_ = true;
      return false;
    }
    out->app_metadata = std::move(*message.mutable_app_metadata());
    return true;
  }

  Status Finish() override {
    std::lock_guard<std::mutex> finish_lock(finish_mutex_);
    if (finished_) return final_status_;
    (void)DoneWriting();
    {
      // gRPC wants every incoming message read before Finish; keep unread results for
      // ReadResult.
      std::lock_guard<std::mutex> read_lock(read_mutex_);
      pb::PutResult message;
      while (!reads_done_ && call_->Read(&message)) {
        buffered_.push_back(PutResult{std::move(*message.mutable_app_metadata())});
      }
      reads_done_ = true;
    }
    final_status_ = FromGrpcStatus(call_->Finish(), *context_, address_);
    finished_ = true;
    return final_status_;
  }

  void Cancel() override { context_->TryCancel(); }

 private:
  const std::string address_;
  std::unique_ptr<grpc::ClientContext> context_;  // outlives call_ (declared first)
  std::unique_ptr<DoPutCall> call_;
  bool writes_done_ = false;  // touched by the writing thread only

  std::mutex read_mutex_;
  std::deque<PutResult> buffered_;
  bool reads_done_ = false;

  std::mutex finish_mutex_;
  bool finished_ = false;
  Status final_status_;
};

using DoExchangeCall = grpc::ClientReaderWriter<pb::FlightData, pb::FlightData>;

class DoExchangeStream final : public FlightExchangeStream {
 public:
  DoExchangeStream(std::string address, std::unique_ptr<grpc::ClientContext> context,
                   std::unique_ptr<DoExchangeCall> call)
      : address_(std::move(address)), context_(std::move(context)), call_(std::move(call)) {}

  ~DoExchangeStream() override {
    if (finished_) return;
    context_->TryCancel();
    (void)Finish();
  }

  Status Write(FlightData data) override {
    if (finished_) return FailedPreconditionError("DoExchange write after the call finished");
    if (writes_done_) return FailedPreconditionError("DoExchange write after DoneWriting");
    pb::FlightData message;
    wire::ToProto(std::move(data), &message);
    if (call_->Write(message)) return Status::Ok();
    // The call is over: the server returned (perhaps refusing the input) or the link broke.
    Status status = Finish();
    if (!status.ok()) return status;
    return AbortedError("node at " + address_ + " ended DoExchange before reading every message");
  }

  Status DoneWriting() override {
    if (!writes_done_) {
      writes_done_ = true;
      (void)call_->WritesDone();  // false only when the call is over; Finish tells why
    }
    return Status::Ok();
  }

  Result<bool> Read(FlightData* out) override {
    if (reads_done_) {
      if (finished_ && !final_status_.ok()) return final_status_;
      return false;
    }
    pb::FlightData message;
    if (call_->Read(&message)) {
      *out = wire::FromProto(std::move(message));
      return true;
    }
    reads_done_ = true;
    MINK_RETURN_IF_ERROR(Finish());
    return false;
  }

  Status Finish() override {
    if (finished_) return final_status_;
    (void)DoneWriting();
    pb::FlightData discarded;
    while (!reads_done_ && call_->Read(&discarded)) {
    }
    reads_done_ = true;
    final_status_ = FromGrpcStatus(call_->Finish(), *context_, address_);
    finished_ = true;
    return final_status_;
  }

 private:
  const std::string address_;
  std::unique_ptr<grpc::ClientContext> context_;  // outlives call_ (declared first)
  std::unique_ptr<DoExchangeCall> call_;
  std::atomic<bool> writes_done_{false};
  std::atomic<bool> reads_done_{false};
  std::atomic<bool> finished_{false};
  Status final_status_;
};

}  // namespace

struct FlightClient::Impl {
  std::string address;  // host:port
  FlightClientOptions options;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::FlightService::Stub> stub;
  std::unique_ptr<grpc::internal::RpcMethod> do_put_method;

  // Reads a server stream of `Message` to the end, converting each with `convert`.
  template <typename Message, typename T, typename Start, typename Convert>
  Result<std::vector<T>> ReadAll(const CallOptions& call_options, Start start, Convert convert) {
    grpc::ClientContext context;
    PrepareContext(&context, call_options, options.default_timeout, options);
    std::unique_ptr<grpc::ClientReader<Message>> reader = start(&context);
    std::vector<T> out;
    Message message;
    while (reader->Read(&message)) out.push_back(convert(message));
    grpc::Status status = reader->Finish();
    if (!status.ok()) return FromGrpcStatus(status, context, address);
    return out;
  }
};

FlightClient::FlightClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FlightClient::~FlightClient() = default;

Result<std::unique_ptr<FlightClient>> FlightClient::Connect(const std::string& address,
                                                            FlightClientOptions options) {
  MINK_ASSIGN_OR_RETURN(std::string host_port, ParseFlightAddress(address));
  auto impl = std::make_unique<Impl>();
  impl->address = host_port;
  impl->options = options;

  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_message_bytes);
  args.SetMaxSendMessageSize(options.max_message_bytes);
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);  // nodes are reached directly, never via $http_proxy
  if (options.max_reconnect_backoff.count() > 0) {
    const int ms = static_cast<int>(options.max_reconnect_backoff.count());
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, ms);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, std::min(ms, 100));
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, std::min(ms, 100));
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (IsTlsFlightAddress(address)) {
    grpc::SslCredentialsOptions tls;
    tls.pem_root_certs = options.tls_roots_pem;
    tls.pem_cert_chain = options.tls_cert_pem;
    tls.pem_private_key = options.tls_key_pem;
    credentials = grpc::SslCredentials(tls);
  }
  impl->channel = grpc::CreateCustomChannel(host_port, credentials, args);
  impl->stub = pb::FlightService::NewStub(impl->channel);
  impl->do_put_method = std::make_unique<grpc::internal::RpcMethod>(
      wire::kDoPutMethod, grpc::internal::RpcMethod::BIDI_STREAMING, impl->channel);

  if (options.connect_timeout.count() > 0) {
    auto deadline = std::chrono::system_clock::now() + options.connect_timeout;
    grpc_connectivity_state state = impl->channel->GetState(/*try_to_connect=*/true);
    while (state != GRPC_CHANNEL_READY) {
      if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) {
        return UnavailableError("cannot reach node at " + host_port + ": connection failed");
      }
      if (!impl->channel->WaitForStateChange(state, deadline)) {
        return UnavailableError("cannot reach node at " + host_port + ": no connection within " +
                                std::to_string(options.connect_timeout.count()) + " ms");
      }
      state = impl->channel->GetState(/*try_to_connect=*/true);
    }
  }
  return std::unique_ptr<FlightClient>(new FlightClient(std::move(impl)));
}

const std::string& FlightClient::address() const { return impl_->address; }

Result<std::vector<FlightInfo>> FlightClient::ListFlights(const std::string& criteria,
                                                          const CallOptions& options) {
  pb::Criteria request;
  request.set_expression(criteria);
  return impl_->ReadAll<pb::FlightInfo, FlightInfo>(
      options,
      [&](grpc::ClientContext* context) { return impl_->stub->ListFlights(context, request); },
      [](const pb::FlightInfo& message) { return wire::FromProto(message); });
}

Result<FlightInfo> FlightClient::GetFlightInfo(const FlightDescriptor& descriptor,
                                               const CallOptions& options) {
  grpc::ClientContext context;
  PrepareContext(&context, options, impl_->options.default_timeout, impl_->options);
  pb::FlightDescriptor request;
  wire::ToProto(descriptor, &request);
  pb::FlightInfo response;
  grpc::Status status = impl_->stub->GetFlightInfo(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status, context, impl_->address);
  return wire::FromProto(response);
}

Result<std::string> FlightClient::GetSchema(const FlightDescriptor& descriptor,
                                            const CallOptions& options) {
  grpc::ClientContext context;
  PrepareContext(&context, options, impl_->options.default_timeout, impl_->options);
  pb::FlightDescriptor request;
  wire::ToProto(descriptor, &request);
  pb::SchemaResult response;
  grpc::Status status = impl_->stub->GetSchema(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status, context, impl_->address);
  return std::move(*response.mutable_schema());
}

Result<std::unique_ptr<FlightStreamReader>> FlightClient::DoGet(const std::string& ticket,
                                                                const CallOptions& options) {
  auto context = std::make_unique<grpc::ClientContext>();
  PrepareContext(context.get(), options, std::nullopt, impl_->options);
  pb::Ticket request;
  request.set_ticket(ticket);
  std::unique_ptr<grpc::ClientReader<pb::FlightData>> reader =
      impl_->stub->DoGet(context.get(), request);
  // Failures to start the call surface on the first Next.
  return std::unique_ptr<FlightStreamReader>(
      new DoGetReader(impl_->address, std::move(context), std::move(reader)));
}

Result<std::unique_ptr<FlightPutStream>> FlightClient::DoPut(const CallOptions& options) {
  auto context = std::make_unique<grpc::ClientContext>();
  PrepareContext(context.get(), options, std::nullopt, impl_->options);
  std::unique_ptr<DoPutCall> call(
      grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer, pb::PutResult>::Create(
          impl_->channel.get(), *impl_->do_put_method, context.get()));
  // Failures to start the call surface on the first Write or on Finish.
  return std::unique_ptr<FlightPutStream>(
      new DoPutStream(impl_->address, std::move(context), std::move(call)));
}

Result<std::unique_ptr<FlightExchangeStream>> FlightClient::DoExchange(
    const CallOptions& options) {
  auto context = std::make_unique<grpc::ClientContext>();
  PrepareContext(context.get(), options, std::nullopt, impl_->options);
  std::unique_ptr<DoExchangeCall> call = impl_->stub->DoExchange(context.get());
  // Failures to start the call surface on the first Write or Read.
  return std::unique_ptr<FlightExchangeStream>(
      new DoExchangeStream(impl_->address, std::move(context), std::move(call)));
}

Result<std::vector<ActionResult>> FlightClient::DoAction(const Action& action,
                                                         const CallOptions& options) {
  pb::Action request;
  wire::ToProto(action, &request);
  return impl_->ReadAll<pb::Result, ActionResult>(
      options,
      [&](grpc::ClientContext* context) { return impl_->stub->DoAction(context, request); },
      [](const pb::Result& message) { return ActionResult{message.body()}; });
}

Result<std::vector<ActionType>> FlightClient::ListActions(const CallOptions& options) {
  pb::Empty request;
  return impl_->ReadAll<pb::ActionType, ActionType>(
      options,
      [&](grpc::ClientContext* context) { return impl_->stub->ListActions(context, request); },
      [](const pb::ActionType& message) { return wire::FromProto(message); });
}

}  // namespace mink::flight
