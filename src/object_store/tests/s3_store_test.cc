// The S3 backend beyond the conformance suite: its options, list pagination and key prefixes
// against the harness's S3 server (MINK_TEST_S3_URI), and retries against a scripted HTTP server
// on a loopback port that answers what each test tells it to.

#include "object_store/s3/s3_store.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "test_env.h"

namespace mink::object_store {
namespace {

// ---------------------------------------------------------------------------------------------
// Options

Result<S3Config> Config(const std::string& uri) {
  MINK_ASSIGN_OR_RETURN(StorageUri parsed, StorageUri::Parse(uri));
  return S3Config::FromUri(parsed);
}

TEST(S3Config, ReadsTheUriOptions) {
  auto config = Config(
      "-2@s3://mink-test?region=eu-west-1&endpoint=http://127.0.0.1:9000/&path-style=true"
      "&access-key=AKID&secret-key=SECRET&prefix=/data/&max-keys=7&part-size=6MiB"
      "&max-attempts=3&timeout-ms=500");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->region, "eu-west-1");
  EXPECT_EQ(config->scheme, "http");
  EXPECT_EQ(config->endpoint_host, "127.0.0.1:9000");
  EXPECT_TRUE(config->path_style);
  EXPECT_EQ(config->key_prefix, "data/");
  EXPECT_EQ(config->max_keys, 7u);
  EXPECT_EQ(config->part_size, 6u << 20);
  EXPECT_EQ(config->max_attempts, 3);
  EXPECT_EQ(config->timeout.count(), 500);
  EXPECT_EQ(config->Host(), "127.0.0.1:9000");
  EXPECT_EQ(config->Path("data/a/b=1"), "/mink-test/data/a/b%3D1");
  EXPECT_EQ(config->Path(""), "/mink-test");
  EXPECT_EQ(config->Url("/mink-test", "list-type=2"),
            "http://127.0.0.1:9000/mink-test?list-type=2");
}

TEST(S3Config, DefaultsToVirtualHostedAwsEndpoints) {
  auto config = Config("-2@s3://my-bucket?access-key=AKID&secret-key=SECRET&region=us-west-2");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_FALSE(config->path_style);
  EXPECT_EQ(config->Url(config->Path("k/1"), ""),
            "https://my-bucket.s3.us-west-2.amazonaws.com/k/1");
  EXPECT_EQ(config->Path(""), "/");
  EXPECT_EQ(config->part_size, 8u << 20);
  EXPECT_EQ(config->max_attempts, 6);
  EXPECT_EQ(config->timeout.count(), 30000);
}

TEST(S3Config, TakesTheEndpointFromTheAwsEnvironment) {
  const std::string creds = "&access-key=A&secret-key=S";
  ::setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000", 1);
  auto general = Config("-2@s3://bucket?region=us-east-1" + creds);
  ::setenv("AWS_ENDPOINT_URL_S3", "http://localhost:9100", 1);
  auto s3_only = Config("-2@s3://bucket?region=us-east-1" + creds);
  auto option_wins = Config("-2@s3://bucket?endpoint=https://minio.internal:9000" + creds);
  ::unsetenv("AWS_ENDPOINT_URL");
  ::unsetenv("AWS_ENDPOINT_URL_S3");
  ASSERT_TRUE(general.ok()) << general.status();
  ASSERT_TRUE(s3_only.ok()) << s3_only.status();
  ASSERT_TRUE(option_wins.ok()) << option_wins.status();
  // An IP address or localhost has no subdomains for the bucket: path style by default.
  EXPECT_EQ(general->Url(general->Path("k"), ""), "http://127.0.0.1:9000/bucket/k");
  EXPECT_EQ(s3_only->Url(s3_only->Path("k"), ""), "http://localhost:9100/bucket/k");
  EXPECT_EQ(option_wins->Url(option_wins->Path("k"), ""), "https://bucket.minio.internal:9000/k");
  auto forced = Config("-2@s3://bucket?endpoint=http://[::1]:9000&path-style=false" + creds);
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_FALSE(forced->path_style);
}

TEST(S3Config, RejectsBadOptions) {
  const std::string creds = "access-key=A&secret-key=S";
  for (const std::string& bad : {
           "-2@s3://b?" + creds,                      // bucket name too short
           "-2@s3://bucket/dir?" + creds,             // a path in the location
           "-2@s3://bucket?pathstyle=true&" + creds,  // a typo: unknown option
           "-2@s3://bucket?path-style=maybe&" + creds,
           "-2@s3://bucket?endpoint=ftp://host&" + creds,
           "-2@s3://bucket?endpoint=http://host/base&" + creds,
           "-2@s3://bucket?part-size=1MiB&" + creds,  // below S3's 5 MiB floor
           "-2@s3://bucket?max-keys=0&" + creds,
           "-2@s3://bucket?prefix=a/../b&" + creds,
       }) {
    EXPECT_EQ(Config(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(S3Config, FallsBackToTheAwsEnvironmentAndNeverShowsSecrets) {
  ::setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "ENVSECRET", 1);
  ::setenv("AWS_SESSION_TOKEN", "ENVTOKEN", 1);
  auto config = Config("-2@s3://bucket?region=us-east-1");
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  ::unsetenv("AWS_SESSION_TOKEN");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->credentials.access_key, "ENVKEY");
  EXPECT_EQ(config->credentials.secret_key, "ENVSECRET");
  EXPECT_EQ(config->credentials.session_token, "ENVTOKEN");

  auto missing = Config("-2@s3://bucket");
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);

  auto parsed = StorageUri::Parse("-2@s3://bucket?access-key=AKID&secret-key=TOPSECRET");
  ASSERT_TRUE(parsed.ok());
  auto store = S3Store::Open(*parsed);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->Describe().find("TOPSECRET"), std::string::npos) << (*store)->Describe();
  EXPECT_EQ((*store)->Describe().find("AKID"), std::string::npos) << (*store)->Describe();
}

// ---------------------------------------------------------------------------------------------
// Against the harness's S3 server

class S3ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_uri_ = testing_env::RequiredEnv("MINK_TEST_S3_URI");
    if (base_uri_.empty()) GTEST_SKIP() << "MINK_TEST_S3_URI is not set";
    prefix_ = "s3test" + std::to_string(std::random_device{}()) + "/";
  }

  std::unique_ptr<S3Store> Open(const std::string& extra_options) {
    auto parsed = StorageUri::Parse(base_uri_ + extra_options);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    auto store = S3Store::Open(*parsed);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(*store) : nullptr;
  }

  std::string base_uri_;
  std::string prefix_;
};

TEST_F(S3ServerTest, ListFollowsContinuationTokensAcrossPages) {
  auto store = Open("&max-keys=7");
  ASSERT_NE(store, nullptr);
  std::vector<std::string> expected;
  for (int i = 0; i < 30; ++i) {
    std::string key = prefix_ + "page/" + std::to_string(1000 + i * 7 % 30);
    ASSERT_TRUE(store->Put(key, std::string(static_cast<size_t>(i), 'x')).ok());
    expected.push_back(key);
  }
  std::sort(expected.begin(), expected.end());
  auto listed = store->List(prefix_ + "page/");
  // s3rver makes its continuation tokens with DES, which Node 17+ only has with
  // --openssl-legacy-provider; without it every truncated page is a 500 InternalError.
  ASSERT_TRUE(listed.ok()) << listed.status()
                           << "\n(is s3rver running with NODE_OPTIONS=--openssl-legacy-provider?)";
  std::vector<std::string> keys;
  for (const auto& info : *listed) {
    keys.push_back(info.key);
    EXPECT_GT(info.last_modified_ms, 1'600'000'000'000);
  }
  EXPECT_EQ(keys, expected);
}

TEST_F(S3ServerTest, PrefixOptionKeepsKeysUnderItAndOutOfListings) {
  auto plain = Open("");
  auto prefixed = Open("&prefix=" + prefix_ + "root");
  ASSERT_NE(plain, nullptr);
  ASSERT_NE(prefixed, nullptr);
  ASSERT_TRUE(prefixed->Put("a/1", "one").ok());
  ASSERT_TRUE(prefixed->Put("a/2", "two").ok());
  EXPECT_EQ(*plain->Get(prefix_ + "root/a/1"), "one");
  auto listed = prefixed->List("a/");
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].key, "a/1");
  EXPECT_EQ((*listed)[1].key, "a/2");
  auto head = prefixed->Head("a/2");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->key, "a/2");
  EXPECT_EQ(head->size, 3u);
}

TEST_F(S3ServerTest, MultipartUploadWithSmallPartsRoundTrips) {
  auto store = Open("&part-size=5MiB");
  ASSERT_NE(store, nullptr);
  std::string data((11 << 20) + 3, '\0');  // three parts: 5 MiB, 5 MiB, 1 MiB + 3
  std::mt19937 rng(7);
  for (auto& c : data) c = static_cast<char>(rng());
  ASSERT_TRUE(store->Put(prefix_ + "big", data).ok());
  auto head = store->Head(prefix_ + "big");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->size, data.size());
  auto got = store->Get(prefix_ + "big");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(*got == data);
  auto tail = store->GetRange(prefix_ + "big", data.size() - 2, 100);
  ASSERT_TRUE(tail.ok()) << tail.status();
  EXPECT_EQ(*tail, data.substr(data.size() - 2));
}

TEST_F(S3ServerTest, EmptyRangesAndRangesOfMissingObjects) {
  // Not a non-empty range of an empty object: s3rver answers it with a broken 206 (Content-Length
  // 1, no body) where S3 answers 416; S3Scripted.RangeBeyondTheEndIsOutOfRange covers the 416.
  auto store = Open("");
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Put(prefix_ + "empty", "").ok());
  EXPECT_EQ(*store->GetRange(prefix_ + "empty", 0, 0), "");
  EXPECT_EQ(*store->GetRange(prefix_ + "empty", 7, 0), "");
  EXPECT_EQ(store->GetRange(prefix_ + "missing", 0, 0).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->GetRange(prefix_ + "missing", 5, 10).status().code(), StatusCode::kNotFound);
}

TEST_F(S3ServerTest, AnUnknownAccessKeyIsPermissionDenied) {
  // s3rver checks only that the access key exists, so this is the 403 it can produce.
  auto parsed = StorageUri::Parse(base_uri_);
  ASSERT_TRUE(parsed.ok());
  parsed->options["access-key"] = "NOPE";
  auto store = S3Store::Open(*parsed);
  ASSERT_TRUE(store.ok()) << store.status();
  auto got = (*store)->Get(prefix_ + "anything");
  EXPECT_EQ(got.status().code(), StatusCode::kPermissionDenied) << got.status();
  EXPECT_NE(got.status().message().find("InvalidAccessKeyId"), std::string::npos) << got.status();
}

// ---------------------------------------------------------------------------------------------
// Retries and request shapes, against a scripted server

// Answers each request with the next scripted reply (the last one repeats), one connection per
// request. A reply with `hang` reads the request and never answers, like a stuck server.
class ScriptedServer {
 public:
  struct Reply {
    int status = 200;
    std::string body;
    bool hang = false;
  };

  explicit ScriptedServer(std::vector<Reply> replies) : replies_(std::move(replies)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ADD_FAILURE() << "cannot listen on loopback";
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Run(); });
  }

  ~ScriptedServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    ::close(listen_fd_);
  }

  int port() const { return port_; }
  int requests() const { return requests_.load(); }
  std::vector<std::string> heads() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return heads_;
  }

 private:
  // Waits until `fd` is readable or the server stops; false when it stopped.
  bool WaitReadable(int fd) {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) > 0) return true;
    }
    return false;
  }

  void Run() {
    while (WaitReadable(listen_fd_)) {
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      Serve(fd);
      ::close(fd);
    }
  }

  void Serve(int fd) {
    std::string request;
    char buf[65536];
    size_t header_end = std::string::npos;
    size_t body_length = 0;
    while (WaitReadable(fd)) {
      ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n <= 0) return;
      request.append(buf, static_cast<size_t>(n));
      if (header_end == std::string::npos) {
        header_end = request.find("\r\n\r\n");
        if (header_end == std::string::npos) continue;
        std::string lower = request.substr(0, header_end);
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        size_t cl = lower.find("\r\ncontent-length:");
        if (cl != std::string::npos)
          body_length = std::strtoull(lower.c_str() + cl + 17, nullptr, 10);
      }
      if (request.size() >= header_end + 4 + body_length) break;
    }
    if (header_end == std::string::npos) return;
    int index = requests_.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      heads_.push_back(request.substr(0, header_end));
    }
    const Reply& reply =
        replies_[std::min<size_t>(static_cast<size_t>(index), replies_.size() - 1)];
    if (reply.hang) {
      while (WaitReadable(fd)) {
        if (::read(fd, buf, sizeof(buf)) <= 0) return;  // the client gave up and closed
      }
      return;
    }
    std::string response = "HTTP/1.1 " + std::to_string(reply.status) + " Scripted\r\n" +
                           "Content-Length: " + std::to_string(reply.body.size()) +
                           "\r\nConnection: close\r\n\r\n" + reply.body;
    size_t sent = 0;
    while (sent < response.size()) {
      ssize_t n = ::write(fd, response.data() + sent, response.size() - sent);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  }

  std::vector<Reply> replies_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  mutable std::mutex mutex_;
  std::vector<std::string> heads_;
  std::thread thread_;
};

std::string ErrorXml(const std::string& code, const std::string& message) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" +
         message + "</Message><RequestId>REQ1</RequestId></Error>";
}

std::unique_ptr<S3Store> OpenScripted(int port, const std::string& extra = "") {
  auto parsed =
      StorageUri::Parse("-2@s3://bucket?endpoint=http://127.0.0.1:" + std::to_string(port) +
                        "&path-style=true&access-key=AKID&secret-key=SECRETKEY"
                        "&retry-initial-ms=5" +
                        extra);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  auto store = S3Store::Open(*parsed);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

TEST(S3Scripted, ServerErrorsAreRetriedUntilTheyPass) {
  ScriptedServer server({{503, ErrorXml("SlowDown", "Please reduce your request rate.")},
                         {500, ErrorXml("InternalError", "We encountered an internal error.")},
                         {200, "hello"}});
  auto store = OpenScripted(server.port());
  ASSERT_NE(store, nullptr);
  auto got = store->Get("a/key");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "hello");
  EXPECT_EQ(server.requests(), 3);
}

TEST(S3Scripted, PermanentErrorsAreNotRetried) {
  ScriptedServer server({{403, ErrorXml("AccessDenied", "Access Denied")}, {200, "late"}});
  auto store = OpenScripted(server.port());
  ASSERT_NE(store, nullptr);
  auto got = store->Get("a/key");
  EXPECT_EQ(got.status().code(), StatusCode::kPermissionDenied) << got.status();
  EXPECT_NE(got.status().message().find("AccessDenied: Access Denied"), std::string::npos);
  EXPECT_EQ(server.requests(), 1);
}

TEST(S3Scripted, MissingKeysAreNotFoundWithoutRetry) {
  ScriptedServer server({{404, ErrorXml("NoSuchKey", "The specified key does not exist.")}});
  auto store = OpenScripted(server.port());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->Get("k").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(store->Delete("k").ok());
  EXPECT_EQ(server.requests(), 2);
}

TEST(S3Scripted, ListSendsTheContinuationTokenItWasGiven) {
  auto page = [](const std::string& keys, const std::string& token) {
    std::string xml = "<ListBucketResult><IsTruncated>" +
                      std::string(token.empty() ? "false" : "true") + "</IsTruncated>";
    if (!token.empty()) xml += "<NextContinuationToken>" + token + "</NextContinuationToken>";
    for (char k : keys) {
      xml += "<Contents><Key>p/" + std::string(1, k) +
             "</Key><LastModified>2024-01-01T00:00:00.000Z</LastModified><Size>1</Size></Contents>";
    }
    return xml + "</ListBucketResult>";
  };
  ScriptedServer server({{200, page("ab", "tok/1+=")}, {200, page("c", "")}});
  auto store = OpenScripted(server.port(), "&max-keys=2");
  ASSERT_NE(store, nullptr);
  auto listed = store->List("p/");
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 3u);
  EXPECT_EQ((*listed)[2].key, "p/c");
  auto heads = server.heads();
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(heads[0].rfind("GET /bucket?list-type=2&max-keys=2&prefix=p%2F HTTP/1.1", 0), 0u)
      << heads[0];
  EXPECT_EQ(heads[1].rfind("GET /bucket?continuation-token=tok%2F1%2B%3D&list-type=2&max-keys=2"
                           "&prefix=p%2F HTTP/1.1",
                           0),
            0u)
      << heads[1];
}

TEST(S3Scripted, RangeBeyondTheEndIsOutOfRange) {
  ScriptedServer server(
      {{416, ErrorXml("InvalidRange", "The requested range is not satisfiable")}});
  auto store = OpenScripted(server.port());
  ASSERT_NE(store, nullptr);
  auto got = store->GetRange("k", 0, 10);
  EXPECT_EQ(got.status().code(), StatusCode::kOutOfRange) << got.status();
  EXPECT_EQ(server.requests(), 1);
  auto heads = server.heads();
  ASSERT_EQ(heads.size(), 1u);
  EXPECT_NE(heads[0].find("range: bytes=0-9\r\n"), std::string::npos) << heads[0];
}

TEST(S3Scripted, ServersThatIgnoreRangeAreSlicedLocally) {
  ScriptedServer server({{200, "0123456789"}});
  auto store = OpenScripted(server.port());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(*store->GetRange("k", 3, 4), "3456");
  EXPECT_EQ(*store->GetRange("k", 8, 100), "89");
  EXPECT_EQ(store->GetRange("k", 10, 1).status().code(), StatusCode::kOutOfRange);
}

TEST(S3Scripted, GivesUpAfterMaxAttemptsAsUnavailable) {
  ScriptedServer server({{503, ErrorXml("SlowDown", "Please reduce your request rate.")}});
  auto store = OpenScripted(server.port(), "&max-attempts=3");
  ASSERT_NE(store, nullptr);
  Status put = store->Put("k", "data");
  EXPECT_EQ(put.code(), StatusCode::kUnavailable) << put;
  EXPECT_NE(put.message().find("SlowDown"), std::string::npos) << put;
  EXPECT_EQ(server.requests(), 3);
}

TEST(S3Scripted, TimedOutAttemptsAreRetried) {
  ScriptedServer server({{200, "", true}, {200, "after the timeout"}});
  auto store = OpenScripted(server.port(), "&timeout-ms=300");
  ASSERT_NE(store, nullptr);
  auto got = store->Get("k");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "after the timeout");
  EXPECT_EQ(server.requests(), 2);
}

TEST(S3Scripted, RefusedConnectionsEndUnavailable) {
  int port;
  {
    ScriptedServer closed(std::vector<ScriptedServer::Reply>{});  // bound and released: nothing
                                                                  // listens there afterwards
    port = closed.port();
  }
  auto store = OpenScripted(port, "&max-attempts=2");
  ASSERT_NE(store, nullptr);
  auto got = store->Head("k");
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable) << got.status();
}

TEST(S3Scripted, RequestsAreSignedAndCarryNoSecret) {
  ScriptedServer server({{200, ""}});
  auto store = OpenScripted(server.port());
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Put("dir/obj=1", "payload").ok());
  auto heads = server.heads();
  ASSERT_EQ(heads.size(), 1u);
  const std::string& head = heads[0];
  EXPECT_EQ(head.rfind("PUT /bucket/dir/obj%3D1 HTTP/1.1\r\n", 0), 0u) << head;
  EXPECT_NE(head.find("authorization: AWS4-HMAC-SHA256 Credential=AKID/"), std::string::npos);
  EXPECT_NE(head.find("x-amz-content-sha256: " + Sha256Hex("payload")), std::string::npos);
  EXPECT_NE(head.find("x-amz-date: "), std::string::npos);
  // curl writes the Host header we signed under its own capitalization.
  EXPECT_NE(head.find("Host: 127.0.0.1:" + std::to_string(server.port()) + "\r\n"),
            std::string::npos)
      << head;
  EXPECT_EQ(head.find("SECRETKEY"), std::string::npos) << head;
}

}  // namespace
}  // namespace mink::object_store
