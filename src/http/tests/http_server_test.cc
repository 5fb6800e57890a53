// HttpServer answered by HttpClient over loopback: routing by the handler, query, headers, body,
// HEAD without a body, concurrent requests, an address in use, and Stop.

#include "http/http_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "http/http_client.h"

namespace mink::http {
namespace {

ServerResponse Echo(const ServerRequest& r) {
  if (r.path == "/missing") return ServerResponse{404, "application/json", R"({"error":"no"})", {}};
  ServerResponse out;
  out.body = r.method + " " + r.path + " q=" + r.Query("q") + " h=" + r.Header("x-test") +
             " body=" + r.body;
  out.headers.push_back({"X-Answer", "42"});
  return out;
}

TEST(HttpServer, AnswersWhatTheHandlerSays) {
  auto server = HttpServer::Start("127.0.0.1:0", Echo);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string base = "http://127.0.0.1:" + std::to_string((*server)->port());
  HttpClient client;
  auto get = client.Perform({"GET", base + "/v1/a%1Fb?q=x%20y", {{"X-Test", "t"}}, "", {}});
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->body, "GET /v1/a\x1f" "b q=x y h=t body=");
  EXPECT_EQ(get->Header("x-answer"), "42");
  EXPECT_EQ(get->Header("content-type"), "application/json");
  const std::string body = R"({"name":"t"})";
  auto post = client.Perform({"POST", base + "/v1/t", {{"Content-Type", "application/json"}}, body, {}});
  ASSERT_TRUE(post.ok());
  EXPECT_EQ(post->body, "POST /v1/t q= h= body=" + body);
  auto del = client.Perform({"DELETE", base + "/v1/t", {}, "", {}});
  ASSERT_TRUE(del.ok());
  EXPECT_EQ(del->body, "DELETE /v1/t q= h= body=");
  auto head = client.Perform({"HEAD", base + "/missing", {}, "", {}});
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->status, 404);
  EXPECT_EQ(head->body, "");
}

TEST(HttpServer, ServesConcurrentRequests) {
  std::atomic<int> inside{0}, most{0};
  auto server = HttpServer::Start("127.0.0.1:0", [&](const ServerRequest&) {
    const int now = ++inside;
    most = std::max(most.load(), now);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    --inside;
    return ServerResponse{};
  });
  ASSERT_TRUE(server.ok());
  const std::string url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/";
  HttpClient client;
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      auto r = client.Perform({"GET", url, {}, "", {}});
      if (r.ok() && r->status == 200) ++ok;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, 4);
  EXPECT_GE(most, 2);
}

TEST(HttpServer, AnAddressInUseIsUnavailableAndStopIsIdempotent) {
  auto first = HttpServer::Start("127.0.0.1:0", Echo);
  ASSERT_TRUE(first.ok());
  auto second = HttpServer::Start("127.0.0.1:" + std::to_string((*first)->port()), Echo);
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable) << second.status();
  EXPECT_EQ(HttpServer::Start("127.0.0.1", Echo).status().code(), StatusCode::kInvalidArgument);
  const int port = (*first)->port();
  (*first)->Stop();
  (*first)->Stop();
  HttpClient client;
  auto refused = client.Perform({"GET", "http://127.0.0.1:" + std::to_string(port) + "/", {}, "",
                                 std::chrono::milliseconds(2000)});
  EXPECT_FALSE(refused.ok());
}

}  // namespace
}  // namespace mink::http
