// ApiServer over loopback: plain requests from HttpClient and from a raw socket (several on one
// kept-alive connection), refused bodies (too large, chunked), and WebSockets driven by a
// hand-written client: the RFC's handshake example, 125/126/65536-byte text frames, Ping/Pong,
// the closing handshake, a protocol error, and Stop with a WebSocket open.

#include "http/api_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "http/http_client.h"
#include "http/websocket_frame.h"

namespace mink::http {
namespace {

using Clock = std::chrono::steady_clock;

ServerResponse Echo(const ServerRequest& r) {
  ServerResponse out;
  out.body = r.method + " " + r.path + " q=" + r.Query("q") + " h=" + r.Header("x-test") +
             " body=" + r.body;
  out.headers.push_back({"X-Answer", "42"});
  return out;
}

// A blocking loopback client whose every read gives up after 5 s.
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }

  bool Send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // Exactly n bytes ("" when the connection ends or 5 s pass first).
  std::string Read(size_t n) {
    while (buffer_.size() < n && Fill()) {
    }
    if (buffer_.size() < n) return "";
    std::string out = buffer_.substr(0, n);
    buffer_.erase(0, n);
    return out;
  }
  // Up to and including "\r\n\r\n".
  std::string ReadHead() {
    while (buffer_.find("\r\n\r\n") == std::string::npos && Fill()) {
    }
    const size_t end = buffer_.find("\r\n\r\n");
    if (end == std::string::npos) return "";
    return Read(end + 4);
  }
  // An answer's head and its Content-Length body.
  std::pair<std::string, std::string> ReadResponse() {
    std::string head = ReadHead();
    const size_t at = head.find("Content-Length: ");
    const size_t length = at == std::string::npos ? 0 : std::stoul(head.substr(at + 16));
    return {head, Read(length)};
  }
  // One server frame: (first byte, payload); first byte 0 when none came.
  std::pair<uint8_t, std::string> ReadFrame(std::string* header = nullptr) {
    std::string h = Read(2);
    if (h.size() < 2) return {0, ""};
    uint64_t length = static_cast<uint8_t>(h[1]) & 0x7F;
    if (length == 126 || length == 127) {
      const std::string ext = Read(length == 126 ? 2 : 8);
      length = 0;
      for (char c : ext) length = (length << 8) | static_cast<uint8_t>(c);
      h += ext;
    }
    if (header != nullptr) *header = h;
    return {static_cast<uint8_t>(h[0]), Read(length)};
  }
  // Whether the server closed the connection (a read finds its end).
  bool Ended() {
    char c;
    return buffer_.empty() && ::recv(fd_, &c, 1, 0) == 0;
  }

 private:
  bool Fill() {
    char chunk[65536];
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }
  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
};

std::string Masked(uint8_t first_byte, const std::string& payload) {
  const std::string mask = "\x0a\x0b\x0c\x0d";
  std::string out(1, static_cast<char>(first_byte));
  out += static_cast<char>(0x80 | payload.size());  // short payloads only
  out += mask;
  for (size_t i = 0; i < payload.size(); ++i) out += static_cast<char>(payload[i] ^ mask[i % 4]);
  return out;
}

const char kUpgrade[] =
    "GET /ws/tick%20totals?from=earliest HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
    "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13\r\n\r\n";

TEST(ApiServer, AnswersHttpClientAsHttpServerDoes) {
  auto server = ApiServer::Start("127.0.0.1:0", Echo, nullptr);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string base = "http://127.0.0.1:" + std::to_string((*server)->port());
  HttpClient client;
  auto get = client.Perform({"GET", base + "/v1/a%1Fb?q=x%20y", {{"X-Test", "t"}}, "", {}});
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->body,
            "GET /v1/a\x1f"
            "b q=x y h=t body=");
  EXPECT_EQ(get->Header("x-answer"), "42");
  EXPECT_EQ(get->Header("content-type"), "application/json");
  const std::string body(100'000, 'p');
  auto post =
      client.Perform({"POST", base + "/v1/t", {{"Content-Type", "application/json"}}, body, {}});
  ASSERT_TRUE(post.ok()) << post.status();
  EXPECT_EQ(post->body, "POST /v1/t q= h= body=" + body);
  auto head = client.Perform({"HEAD", base + "/v1/h", {}, "", {}});
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->body, "");
  EXPECT_EQ(ApiServer::Start("127.0.0.1", Echo, nullptr).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ApiServer::Start("127.0.0.1:" + std::to_string((*server)->port()), Echo, nullptr)
                .status()
                .code(),
            StatusCode::kUnavailable);
}

TEST(ApiServer, KeepsAConnectionAliveAcrossRequests) {
  auto server = ApiServer::Start("127.0.0.1:0", Echo, nullptr);
  ASSERT_TRUE(server.ok());
  RawClient c((*server)->port());
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.Send("POST /n/" + std::to_string(i) +
                       "?q=a+b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"));
    auto [head, body] = c.ReadResponse();
    EXPECT_EQ(head.substr(0, 15), "HTTP/1.1 200 OK") << head;
    EXPECT_EQ(head.find("Connection: close"), std::string::npos);
    EXPECT_EQ(body, "POST /n/" + std::to_string(i) + " q=a b h= body=hi");
  }
  // Two at once (pipelined), then one that asks to close.
  ASSERT_TRUE(c.Send("GET /p1 HTTP/1.1\r\n\r\nGET /p2 HTTP/1.1\r\n\r\n"));
  EXPECT_EQ(c.ReadResponse().second, "GET /p1 q= h= body=");
  EXPECT_EQ(c.ReadResponse().second, "GET /p2 q= h= body=");
  ASSERT_TRUE(c.Send("GET /last HTTP/1.1\r\nConnection: close\r\n\r\n"));
  auto [head, body] = c.ReadResponse();
  EXPECT_NE(head.find("Connection: close"), std::string::npos);
  EXPECT_EQ(body, "GET /last q= h= body=");
  EXPECT_TRUE(c.Ended());
}

TEST(ApiServer, RefusesOversizedAndChunkedBodies) {
  std::atomic<int> handled{0};
  auto server = ApiServer::Start(
      "127.0.0.1:0",
      [&](const ServerRequest& r) {
        ++handled;
        return Echo(r);
      },
      nullptr);
  ASSERT_TRUE(server.ok());
  {
    RawClient c((*server)->port());
    ASSERT_TRUE(c.Send("POST /big HTTP/1.1\r\nContent-Length: " +
                       std::to_string(ApiServer::kMaxRequestBytes + 1) + "\r\n\r\nabc"));
    EXPECT_EQ(c.ReadHead().substr(0, 12), "HTTP/1.1 413");
  }
  {
    RawClient c((*server)->port());
    ASSERT_TRUE(c.Send(
        "POST /chunked HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"));
    EXPECT_EQ(c.ReadHead().substr(0, 12), "HTTP/1.1 411");
  }
  {
    RawClient c((*server)->port());
    ASSERT_TRUE(c.Send("NOT HTTP\r\n\r\n"));
    EXPECT_EQ(c.ReadHead().substr(0, 12), "HTTP/1.1 400");
  }
  // A client sending a whole body over the limit reads the answer, not a reset.
  const std::string url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/big";
  HttpClient client;
  auto big = client.Perform({"POST",
                             url,
                             {},
                             std::string(ApiServer::kMaxRequestBytes + 1, 'x'),
                             std::chrono::milliseconds(20'000)});
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->status, 413);
  auto fits = client.Perform({"POST",
                              url,
                              {},
                              std::string(ApiServer::kMaxRequestBytes, 'x'),
                              std::chrono::milliseconds(20'000)});
  ASSERT_TRUE(fits.ok()) << fits.status();
  EXPECT_EQ(fits->status, 200);
  EXPECT_EQ(handled, 1);
}

TEST(ApiServer, WebSocketHandshakeFramesPingAndClose) {
  std::atomic<bool> saw_close{false};
  ServerRequest seen;
  auto ws = [&](const ServerRequest& r, WebSocket& socket) {
    seen = r;
    for (size_t n : {125, 126, 65536})
      socket.SendText(std::string(n, static_cast<char>('a' + n % 26)));
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    while (!socket.Closed() && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    saw_close = socket.Closed();
    EXPECT_FALSE(socket.SendText("after close"));
  };
  auto server = ApiServer::Start("127.0.0.1:0", Echo, ws);
  ASSERT_TRUE(server.ok());
  RawClient c((*server)->port());
  ASSERT_TRUE(c.Send(kUpgrade));
  const std::string head = c.ReadHead();
  EXPECT_EQ(head.substr(0, 32), "HTTP/1.1 101 Switching Protocols") << head;
  EXPECT_NE(head.find("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"),
            std::string::npos)
      << head;
  EXPECT_NE(head.find("\r\nUpgrade: websocket\r\n"), std::string::npos);
  const std::vector<std::string> headers = {
      std::string("\x81\x7d", 2), std::string("\x81\x7e\x00\x7e", 4),
      std::string("\x81\x7f\x00\x00\x00\x00\x00\x01\x00\x00", 10)};
  int i = 0;
  for (size_t n : {125, 126, 65536}) {
    std::string header;
    auto [first, payload] = c.ReadFrame(&header);
    EXPECT_EQ(header, headers[i++]);
    EXPECT_EQ(payload, std::string(n, static_cast<char>('a' + n % 26)));
  }
  ASSERT_TRUE(c.Send(Masked(0x81, "ignored") + Masked(0x89, "hello")));
  auto pong = c.ReadFrame();
  EXPECT_EQ(pong.first, 0x8A);
  EXPECT_EQ(pong.second, "hello");
  ASSERT_TRUE(c.Send(Masked(0x88, std::string("\x03\xe8", 2) + "bye")));
  auto close = c.ReadFrame();
  EXPECT_EQ(close.first, 0x88);
  EXPECT_EQ(close.second, std::string("\x03\xe8", 2));
  EXPECT_TRUE(c.Ended());
  (*server)->Stop();  // joins the handler's thread
  EXPECT_TRUE(saw_close);
  EXPECT_EQ(seen.path, "/ws/tick totals");
  EXPECT_EQ(seen.Query("from"), "earliest");
  EXPECT_EQ(seen.Header("sec-websocket-version"), "13");
}

TEST(ApiServer, AnUnmaskedFrameFailsTheConnectionWith1002) {
  auto server = ApiServer::Start("127.0.0.1:0", Echo, [](const ServerRequest&, WebSocket& s) {
    for (int i = 0; i < 1000 && !s.Closed(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  });
  ASSERT_TRUE(server.ok());
  RawClient c((*server)->port());
  ASSERT_TRUE(c.Send(kUpgrade));
  ASSERT_EQ(c.ReadHead().substr(0, 12), "HTTP/1.1 101");
  ASSERT_TRUE(c.Send(std::string("\x81\x02hi", 4)));
  auto close = c.ReadFrame();
  EXPECT_EQ(close.first, 0x88);
  EXPECT_EQ(close.second.substr(0, 2), std::string("\x03\xea", 2));
  EXPECT_TRUE(c.Ended());
}

TEST(ApiServer, StopClosesLiveWebSocketsPromptly) {
  std::atomic<int> sent{0};
  auto server = ApiServer::Start("127.0.0.1:0", Echo, [&](const ServerRequest&, WebSocket& s) {
    for (int i = 0; i < 100'000 && s.SendText("tick " + std::to_string(i)); ++i) {
      ++sent;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  ASSERT_TRUE(server.ok());
  RawClient c((*server)->port());
  ASSERT_TRUE(c.Send(kUpgrade));
  ASSERT_EQ(c.ReadHead().substr(0, 12), "HTTP/1.1 101");
  EXPECT_EQ(c.ReadFrame().second, "tick 0");
  const auto start = Clock::now();
  (*server)->Stop();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
  // The ticks sent before, then Close 1001 (the client never answered: cut off after a second).
  std::pair<uint8_t, std::string> frame;
  for (int i = 0; i < 100'000; ++i) {
    frame = c.ReadFrame();
    if (frame.first != 0x81) break;
  }
  EXPECT_EQ(frame.first, 0x88);
  EXPECT_EQ(frame.second.substr(0, 2), std::string("\x03\xe9", 2));
  EXPECT_TRUE(c.Ended());
}

}  // namespace
}  // namespace mink::http
