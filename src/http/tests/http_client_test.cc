// HttpClient against a one-request HTTP server on a loopback port, and its error mapping.

#include "http/http_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace mink::http {
namespace {

// Listens on 127.0.0.1 at a port picked by the kernel.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || listen(fd_, 1) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      Close();
      return;
    }
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() { Close(); }
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  int fd() const { return fd_; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Accepts one connection, reads the request up to its body of `body_bytes`, answers `answer`.
std::string ServeOne(int listen_fd, size_t body_bytes, const std::string& answer) {
  int fd = accept(listen_fd, nullptr, nullptr);
  if (fd < 0) return "";
  std::string request;
  char buffer[4096];
  while (true) {
    size_t end = request.find("\r\n\r\n");
    if (end != std::string::npos && request.size() >= end + 4 + body_bytes) break;
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n <= 0) break;
    request.append(buffer, static_cast<size_t>(n));
  }
  (void)!write(fd, answer.data(), answer.size());
  close(fd);
  return request;
}

TEST(HttpClientTest, SendsMethodHeadersAndBodyAndReadsTheAnswer) {
  Listener listener;
  ASSERT_GE(listener.fd(), 0);
  std::string seen;
  std::thread server([&] {
    seen = ServeOne(listener.fd(), 5,
                    "HTTP/1.1 201 Created\r\nContent-Length: 2\r\nX-Answer-Id:  42 \r\n"
                    "Connection: close\r\n\r\nok");
  });
  HttpClient client;
  HttpRequest request;
  request.method = "PUT";
  request.url = listener.url("/v1/things?x=1");
  request.headers = {{"Host", "example"}, {"Content-Type", "text/plain"}};
  request.body = "hello";
  request.timeout = std::chrono::milliseconds(10'000);
  Result<HttpResponse> response = client.Perform(request);
  server.join();
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, "ok");
  EXPECT_EQ(response->Header("x-answer-id"), "42");  // names lowercase, blanks trimmed
  EXPECT_EQ(response->Header("x-missing"), "");
  EXPECT_EQ(seen.rfind("PUT /v1/things?x=1 HTTP/1.1\r\n", 0), 0u) << seen;
  EXPECT_NE(seen.find("Content-Type: text/plain\r\n"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("Expect:"), std::string::npos) << seen;
  EXPECT_EQ(seen.substr(seen.size() - 5), "hello");
}

TEST(HttpClientTest, AnHttpErrorStatusIsAResponse) {
  Listener listener;
  ASSERT_GE(listener.fd(), 0);
  std::thread server([&] {
    ServeOne(listener.fd(), 0,
             "HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnope");
  });
  HttpClient client;
  Result<HttpResponse> response = client.Perform({"GET", listener.url("/missing"), {}, {}});
  server.join();
  ASSERT_TRUE(response.ok()) << response.status();
  EXPECT_EQ(response->status, 404);
  EXPECT_EQ(response->body, "nope");
}

TEST(HttpClientTest, ARefusedConnectionIsUnavailable) {
  std::string url;
  {
    Listener listener;
    ASSERT_GE(listener.fd(), 0);
    url = listener.url("/");
  }  // closed: nothing listens on the port any more
  HttpClient client;
  Result<HttpResponse> response = client.Perform({"GET", url, {}, {}});
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable) << response.status();
}

TEST(HttpClientTest, AMalformedUrlIsInvalidArgument) {
  HttpClient client;
  Result<HttpResponse> response = client.Perform({"GET", "nothttp://x/", {}, {}});
  EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument) << response.status();
}

TEST(ParseHttpDateMillisTest, ReadsLastModified) {
  auto ms = ParseHttpDateMillis("Wed, 21 Oct 2015 07:28:00 GMT");
  ASSERT_TRUE(ms.ok()) << ms.status();
  EXPECT_EQ(*ms, 1445412480000);
  EXPECT_FALSE(ParseHttpDateMillis("yesterday-ish").ok());
}

}  // namespace
}  // namespace mink::http
