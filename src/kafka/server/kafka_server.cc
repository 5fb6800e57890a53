#include "kafka/server/kafka_server.h"

#include <asio.hpp>
#include <atomic>
#include <deque>
#include <mutex>
#include <thread>

#include "base/clock.h"
#include "base/log.h"
#include "base/thread_priority.h"
#include "base/thread_pool.h"
#include "kafka/protocol/frame.h"
#include "kafka/server/sasl_session.h"
#include "kafka/server/serial_queue.h"
#include "tls/tls_stream.h"

namespace mink::kafka {
namespace {

// The pools that handle requests. Group coordination has its own, so that heartbeats are not
// queued behind other connections' data requests, which may wait for the object store.
struct DispatchPools {
  ThreadPool* data;
  ThreadPool* groups;
};

bool IsGroupApi(int16_t api_key) {
  switch (static_cast<ApiKey>(api_key)) {
    case ApiKey::kFindCoordinator:
    case ApiKey::kJoinGroup:
    case ApiKey::kSyncGroup:
    case ApiKey::kHeartbeat:
    case ApiKey::kLeaveGroup:
    case ApiKey::kOffsetCommit:
    case ApiKey::kOffsetFetch:
    case ApiKey::kDescribeGroups:
    case ApiKey::kListGroups:
    case ApiKey::kDeleteGroups:
      return true;
    default:
      return false;
  }
}

// How long a request may take by design: a Fetch waits up to its max_wait_ms for records, and
// JoinGroup and SyncGroup wait for the other members (-1: any time).
int64_t DesignedWaitMs(const Request& body) {
  if (const auto* fetch = std::get_if<FetchRequest>(&body)) return fetch->max_wait_ms;
  if (std::holds_alternative<JoinGroupRequest>(body) ||
      std::holds_alternative<SyncGroupRequest>(body)) {
    return -1;
  }
  return 0;
}

// A request answered this much later than its designed wait is logged: it held its connection,
// and a client may have timed out behind it (a heartbeat past its session).
constexpr int64_t kSlowRequestMs = 1000;

int64_t MillisBetween(SteadyTime from, SteadyTime to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

struct Slot {
  bool ready = false;
  bool respond = true;  // false: acks=0 produce, nothing goes back
  bool close_after = false;  // a failed authentication: the connection ends once this is sent
  std::string frame;
  // A fetch's records are not copied into `frame`: they are written from the response itself,
  // gathered in at their splice positions.
  std::shared_ptr<const Response> response;
  std::vector<Splice> splices;

  // The frame as buffers for one gathering write.
  std::vector<asio::const_buffer> Buffers() const {
    std::vector<asio::const_buffer> buffers;
    buffers.reserve(2 * splices.size() + 1);
    size_t at = 0;
    for (const Splice& s : splices) {
      if (s.at > at) buffers.emplace_back(frame.data() + at, s.at - at);
      buffers.emplace_back(s.bytes.data(), s.bytes.size());
      at = s.at;
    }
    if (frame.size() > at) buffers.emplace_back(frame.data() + at, frame.size() - at);
    return buffers;
  }
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tls::Stream stream, Broker* broker, DispatchPools pools, const KafkaServerOptions& options)
      : socket_(std::move(stream)),
        strand_(asio::make_strand(socket_.get_executor())),
        broker_(broker),
        pools_(pools),
        queue_(std::make_shared<SerialQueue>()),
        options_(options),
        sasl_(options.users) {
    asio::error_code ec;
    auto remote = socket_.tcp().remote_endpoint(ec);
    peer_ = ec ? "unknown" : remote.address().to_string() + ":" + std::to_string(remote.port());
    host_ = ec ? "unknown" : remote.address().to_string();  // groups show it as "/<host>"
    socket_.tcp().set_option(asio::ip::tcp::no_delay(true), ec);
  }

  // A TLS connection's handshake first.
  void Start() {
    socket_.AsyncHandshake(asio::bind_executor(strand_, [self = shared_from_this()](const asio::error_code& ec) {
      if (ec) {
        MINK_LOG_INFO("kafka", "closing connection from {}: TLS handshake failed: {}", self->peer_, ec.message());
        return self->Shutdown();
      }
      self->ReadSize();
    }));
  }

  void Close() {
    asio::post(strand_, [self = shared_from_this()] {
      self->socket_.Close();
      self->closed_ = true;
    });
  }

 private:
  void ReadSize() {
    if (closed_) return;
    if (slots_.size() >= options_.max_inflight_per_connection) {
      paused_ = true;  // resumed when responses drain
      return;
    }
    asio::async_read(socket_, asio::buffer(size_), asio::bind_executor(strand_,
        [self = shared_from_this()](const asio::error_code& ec, size_t) {
          if (ec) return self->Shutdown();
          auto size = ParseFrameSize(self->size_, self->options_.max_frame_bytes);
          if (!size.ok()) {
            MINK_LOG_WARN("kafka", "closing connection from {}: {}", self->peer_,
                          size.status().message());
            return self->Shutdown();
          }
          self->payload_.resize(*size);
          asio::async_read(self->socket_, asio::buffer(self->payload_), asio::bind_executor(
              self->strand_, [self](const asio::error_code& ec2, size_t) {
                if (ec2) return self->Shutdown();
                self->OnRequest();
              }));
        }));
  }

  void OnRequest() {
    if (sasl_.ExpectsBareToken()) return BareToken();
    size_t header_size = 0;
    auto header = DecodeRequestHeader(payload_, &header_size);
    if (!header.ok()) {
      MINK_LOG_WARN("kafka", "closing connection from {}: {}", peer_, header.status().message());
      return Shutdown();
    }
    const ApiInfo* api = FindApi(header->api_key);
    if (api == nullptr || !IsSupportedVersion(static_cast<ApiKey>(header->api_key), header->api_version)) {
      if (header->api_key == static_cast<int16_t>(ApiKey::kApiVersions)) {
        // An ApiVersions we cannot parse: answer in v0 with UNSUPPORTED_VERSION and our ranges.
        auto slot = std::make_shared<Slot>();
        PutFrame(header->correlation_id, EncodeUnsupportedApiVersionsBody(), &slot->frame);
        slot->ready = true;
        slots_.push_back(slot);
        Flush();
        return ReadSize();
      }
      MINK_LOG_WARN("kafka", "closing connection from {} (client {}): {} version {} is not supported",
                    peer_, header->client_id.value_or(""), ApiName(header->api_key),
                    header->api_version);
      return Shutdown();
    }
    auto parsed = ParseRequestFrame(payload_);
    if (!parsed.ok()) {
      MINK_LOG_WARN("kafka", "closing connection from {}: {}", peer_, parsed.status().message());
      return Shutdown();
    }
    if (SaslSession::IsSasl(header->api_key)) return Authenticate(*parsed);
    if (!sasl_.Allows(header->api_key)) {
      MINK_LOG_INFO("kafka", "closing connection from {} (client {}): {} before authenticating", peer_,
                    header->client_id.value_or(""), ApiName(header->api_key));
      return Shutdown();
    }
    auto slot = std::make_shared<Slot>();
    slots_.push_back(slot);
    auto request = std::make_shared<ParsedRequest>(std::move(*parsed));
    ClientInfo client{request->header.client_id.value_or(""), host_, sasl_.user()};
    ThreadPool* pool = IsGroupApi(header->api_key) ? pools_.groups : pools_.data;
    const SteadyTime received = SteadyNow();
    queue_->Submit(pool, [self = shared_from_this(), request, client, slot, received] {
      const int32_t correlation = request->header.correlation_id;
      const int16_t version = request->header.api_version;
      const SteadyTime started = SteadyNow();
      const int16_t api = request->header.api_key;
      const int64_t designed = DesignedWaitMs(request->body);
      self->broker_->Handle(*request, client,
                            [self, slot, correlation, version, api, designed, client, received,
                             started](std::optional<Response> response) {
                              self->NoteIfSlow(api, version, designed, client, received, started);
                              std::string frame;
                              std::vector<Splice> splices;
                              std::shared_ptr<const Response> kept;
                              if (response) {
                                kept = std::make_shared<const Response>(std::move(*response));
                                Status s = AppendResponseFrame(correlation, version, *kept, &frame,
                                                               &splices);
                                if (!s.ok()) {
                                  MINK_LOG_ERROR("kafka", "cannot encode a response: {}", s.ToString());
                                  frame.clear();
                                  splices.clear();
                                  kept.reset();
                                }
                              }
                              asio::post(self->strand_, [self, slot, frame = std::move(frame),
                                                         splices = std::move(splices),
                                                         kept = std::move(kept),
                                                         has = response.has_value()]() mutable {
                                slot->frame = std::move(frame);
                                slot->splices = std::move(splices);
                                slot->response = std::move(kept);  // the splices point into it
                                slot->respond = has && !slot->frame.empty();
                                slot->ready = true;
                                self->Flush();
                              });
                            });
    });
    ReadSize();
  }

  // Answers a SaslHandshake or SaslAuthenticate in order with the requests before it. The
  // exchange runs on the group threads (PLAIN derives a key: milliseconds of PBKDF2 that must
  // not hold the io thread); reading stops until it is answered, so only that thread touches
  // sasl_ meanwhile.
  void Authenticate(const ParsedRequest& request) {
    auto slot = std::make_shared<Slot>();
    slots_.push_back(slot);
    queue_->Submit(pools_.groups, [self = shared_from_this(), slot, body = request.body,
                                   correlation = request.header.correlation_id, version = request.header.api_version] {
      SaslSession::Answer answer = self->sasl_.Handle(body, version, self->peer_);
      std::vector<Splice> splices;
      Status s = AppendResponseFrame(correlation, version, answer.response, &slot->frame, &splices);
      if (!s.ok()) MINK_LOG_ERROR("kafka", "cannot encode a SASL response: {}", s.ToString());
      self->Answered(slot, answer.close || !s.ok());
    });
  }

  // A bare SASL token (after a SaslHandshake v0) answered with a bare frame of the server's
  // token (empty for PLAIN's success); a failure closes the connection, as Kafka does. On the
  // group threads too.
  void BareToken() {
    auto slot = std::make_shared<Slot>();
    slots_.push_back(slot);
    queue_->Submit(pools_.groups, [self = shared_from_this(), slot, token = std::move(payload_)] {
      auto answer = self->sasl_.HandleBareToken(token, self->peer_);
      if (answer.ok()) {
        const uint32_t size = static_cast<uint32_t>(answer->size());
        for (int shift = 24; shift >= 0; shift -= 8) slot->frame.push_back(static_cast<char>(size >> shift));
        slot->frame += *answer;
      }
      self->Answered(slot, !answer.ok());
    });
  }

  // Back on the strand: the exchange's answer goes out (nothing when `close` and it is empty),
  // then the connection reads on or closes.
  void Answered(std::shared_ptr<Slot> slot, bool close) {
    asio::post(strand_, [self = shared_from_this(), slot, close] {
      slot->ready = true;
      slot->close_after = close;
      slot->respond = !slot->frame.empty();
      if (close && slot->frame.empty()) return self->Shutdown();
      self->Flush();
      if (!close) self->ReadSize();
    });
  }

  // `designed`: DesignedWaitMs of the request.
  void NoteIfSlow(int16_t api, int16_t version, int64_t designed, const ClientInfo& client,
                  SteadyTime received, SteadyTime started) const {
    const int64_t took = MillisBetween(received, SteadyNow());
    if (designed < 0 || took <= designed + kSlowRequestMs) return;
    MINK_LOG_WARN("kafka",
                  "slow request: {} v{} from {} (client {}) answered after {} ms, {} ms of it "
                  "waiting for the connection's earlier requests or a thread",
                  ApiName(api), version, peer_, client.client_id, took,
                  MillisBetween(received, started));
  }

  static void PutFrame(int32_t correlation_id, const std::string& body, std::string* out) {
    std::string header;
    header.push_back(static_cast<char>(correlation_id >> 24));
    header.push_back(static_cast<char>(correlation_id >> 16));
    header.push_back(static_cast<char>(correlation_id >> 8));
    header.push_back(static_cast<char>(correlation_id));
    uint32_t size = static_cast<uint32_t>(header.size() + body.size());
    out->push_back(static_cast<char>(size >> 24));
    out->push_back(static_cast<char>(size >> 16));
    out->push_back(static_cast<char>(size >> 8));
    out->push_back(static_cast<char>(size));
    *out += header;
    *out += body;
  }

  // Writes the completed responses at the front, in request order.
  void Flush() {
    if (writing_ || closed_) return;
    while (!slots_.empty() && slots_.front()->ready && !slots_.front()->respond) slots_.pop_front();
    if (slots_.empty() || !slots_.front()->ready) {
      MaybeResume();
      return;
    }
    writing_ = true;
    auto slot = slots_.front();
    if (slot->splices.empty()) {
      asio::async_write(socket_, asio::buffer(slot->frame), asio::bind_executor(strand_,
          [self = shared_from_this(), close = slot->close_after](const asio::error_code& ec, size_t) {
            self->writing_ = false;
            if (ec || close) return self->Shutdown();
            self->slots_.pop_front();
            self->Flush();
          }));
      return;
    }
    asio::async_write(socket_, slot->Buffers(), asio::bind_executor(strand_,
        [self = shared_from_this()](const asio::error_code& ec, size_t) {
          self->writing_ = false;
          if (ec) return self->Shutdown();
          self->slots_.pop_front();
          self->Flush();
        }));
  }

  void MaybeResume() {
    if (paused_ && slots_.size() < options_.max_inflight_per_connection) {
      paused_ = false;
      ReadSize();
    }
  }

  void Shutdown() {
    if (closed_) return;
    closed_ = true;
    socket_.Close();
  }

  tls::Stream socket_;
  asio::strand<asio::any_io_executor> strand_;
  Broker* broker_;
  DispatchPools pools_;
  std::shared_ptr<SerialQueue> queue_;
  const KafkaServerOptions& options_;
  SaslSession sasl_;  // the strand, or the group thread of an exchange while reading waits for it
  std::string peer_, host_;
  char size_[4];
  std::string payload_;
  std::deque<std::shared_ptr<Slot>> slots_;  // open requests, in order (strand only)
  bool writing_ = false;
  bool paused_ = false;
  bool closed_ = false;
};

}  // namespace

struct KafkaServer::Impl {
  KafkaServerOptions options;
  Broker* broker = nullptr;
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor{io};
  std::shared_ptr<asio::ssl::context> tls;  // null: plain TCP
  ThreadPool dispatch;
  ThreadPool groups;
  std::vector<std::thread> threads;
  std::mutex mutex;
  std::vector<std::weak_ptr<Connection>> connections;
  std::atomic<bool> stopped{false};

  explicit Impl(const KafkaServerOptions& o)
      : options(o),
        dispatch(o.dispatch_threads, "kafka-dispatch"),
        groups(o.group_threads, "kafka-groups") {}

  void Accept() {
    acceptor.async_accept([this](const asio::error_code& ec, asio::ip::tcp::socket socket) {
      if (ec) {
        if (!stopped) MINK_LOG_WARN("kafka", "accept failed: {}", ec.message());
        if (stopped || ec == asio::error::operation_aborted) return;
      } else {
        auto c = std::make_shared<Connection>(tls::Stream(std::move(socket), tls.get()), broker,
                                              DispatchPools{&dispatch, &groups}, options);
        {
          std::lock_guard<std::mutex> lock(mutex);
          connections.erase(std::remove_if(connections.begin(), connections.end(),
                                           [](const auto& w) { return w.expired(); }),
                            connections.end());
          connections.push_back(c);
        }
        c->Start();
      }
      Accept();
    });
  }
};

KafkaServer::KafkaServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

KafkaServer::~KafkaServer() { Stop(); }

Result<std::unique_ptr<KafkaServer>> KafkaServer::Start(const KafkaServerOptions& options,
                                                        Broker* broker) {
  auto impl = std::make_unique<Impl>(options);
  impl->broker = broker;
  if (options.tls.enabled()) {
    MINK_ASSIGN_OR_RETURN(impl->tls, tls::MakeServerContext(options.tls));
  }
  size_t colon = options.listen.rfind(':');
  if (colon == std::string::npos) {
    return InvalidArgumentError("Kafka listen address '" + options.listen + "' needs host:port");
  }
  std::string host = options.listen.substr(0, colon);
  std::string port = options.listen.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  asio::error_code ec;
  asio::ip::tcp::resolver resolver(impl->io);
  auto endpoints = resolver.resolve(host, port, ec);
  if (ec || endpoints.empty()) {
    return InvalidArgumentError("cannot resolve Kafka listen address " + options.listen + ": " +
                                ec.message());
  }
  asio::ip::tcp::endpoint endpoint = *endpoints.begin();
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return UnavailableError("Kafka listener cannot listen on " + options.listen + ": " + ec.message());
  }
  impl->Accept();
  for (int i = 0; i < std::max(1, options.io_threads); ++i) {
    impl->threads.emplace_back([raw = impl.get()] {
      NameThisThread("kafka-io");
      raw->io.run();
    });
  }
  MINK_LOG_INFO("kafka", "Kafka listening on {}{}", options.listen, impl->tls ? " (TLS)" : "");
  return std::unique_ptr<KafkaServer>(new KafkaServer(std::move(impl)));
}

int KafkaServer::port() const {
  asio::error_code ec;
  auto endpoint = impl_->acceptor.local_endpoint(ec);
  return ec ? 0 : endpoint.port();
}

void KafkaServer::Stop() {
  if (!impl_ || impl_->stopped.exchange(true)) return;
  asio::post(impl_->io, [this] {
    asio::error_code ec;
    impl_->acceptor.close(ec);
  });
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    for (auto& w : impl_->connections) {
      if (auto c = w.lock()) c->Close();
    }
  }
  impl_->io.stop();
  for (auto& t : impl_->threads) t.join();
  impl_->dispatch.Stop();
  impl_->groups.Stop();
}

}  // namespace mink::kafka
