#pragma once
// One blocking Kafka connection to a node on loopback, for tests: sends requests built with the
// codec and returns either the raw response frames or their decoded bodies.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <utility>

#include "base/result.h"
#include "kafka/protocol/messages.h"

namespace mink::node::testing {

class KafkaClient {
 public:
  explicit KafkaClient(int port, std::string client_id = "node-test")
      : client_id_(std::move(client_id)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~KafkaClient() { close(fd_); }
  KafkaClient(const KafkaClient&) = delete;
  KafkaClient& operator=(const KafkaClient&) = delete;

  bool connected() const { return connected_; }
  // The correlation id of the last request sent.
  int32_t correlation_id() const { return correlation_; }

  bool Send(const kafka::Request& body, int16_t version) {
    kafka::RequestHeader header;
    header.api_key = kafka::ApiKeyOf(body);
    header.api_version = version;
    header.correlation_id = ++correlation_;
    header.client_id = client_id_;
    std::string frame;
    if (!kafka::AppendRequestFrame(header, body, &frame).ok()) return false;
    for (size_t at = 0; at < frame.size();) {
      ssize_t n = write(fd_, frame.data() + at, frame.size() - at);
      if (n <= 0) return false;
      at += static_cast<size_t>(n);
    }
    return true;
  }

  // The next response frame's payload: the bytes after its int32 size, header included.
  Result<std::string> ReceiveFrame() {
    char size_bytes[4];
    if (!ReadExactly(size_bytes, 4)) return UnavailableError("connection closed");
    uint32_t size = 0;
    for (char c : size_bytes) size = size << 8 | static_cast<uint8_t>(c);
    std::string payload(size, '\0');
    if (!ReadExactly(payload.data(), size)) return UnavailableError("connection closed");
    return payload;
  }

  // The next response, decoded as the answer to a request of `api_key` at `version`.
  Result<kafka::Response> Receive(int16_t api_key, int16_t version) {
    MINK_ASSIGN_OR_RETURN(std::string payload, ReceiveFrame());
    MINK_ASSIGN_OR_RETURN(auto parsed, kafka::ParseResponseFrame(api_key, version, payload));
    return std::move(parsed.body);
  }

 private:
  bool ReadExactly(char* out, size_t n) {
    for (size_t at = 0; at < n;) {
      ssize_t got = read(fd_, out + at, n - at);
      if (got <= 0) return false;
      at += static_cast<size_t>(got);
    }
    return true;
  }

  std::string client_id_;
  int fd_ = -1;
  bool connected_ = false;
  int32_t correlation_ = 0;
};

}  // namespace mink::node::testing
