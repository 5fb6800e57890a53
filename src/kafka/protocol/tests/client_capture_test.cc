// REAL CLIENT BYTES: a loopback "capture broker" records every request frame that kcat
// (librdkafka 2.0.2), kafka-python 2.0.2 and kafkajs 2.2.4 send, answers ApiVersions and Metadata
// with responses this library encodes (so the clients go on to their next request), and the
// test decodes every captured frame and checks the versions and client ids each client uses.
// A missing client skips, unless MINK_TEST_REQUIRE_SERVICES=1 (then it fails).

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "kafka/protocol/frame.h"
#include "kafka/protocol/messages.h"

namespace mink::kafka {
namespace {

const std::string kTestsDir = std::string(MINK_SOURCE_DIR) + "/src/kafka/protocol/tests/clients";
const std::string kNodeModules = std::string(MINK_SOURCE_DIR) + "/tests/node/node_modules";

bool RequireServices() {
  const char* require = std::getenv("MINK_TEST_REQUIRE_SERVICES");
  return require != nullptr && std::string(require) == "1";
}

std::string RunCommand(const std::string& command, int* exit_status) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    *exit_status = -1;
    return output;
  }
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  int status = ::pclose(pipe);
  *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

// Accepts connections on 127.0.0.1 and records request frames; answers ApiVersions and
// Metadata, nothing else. One thread, poll() with a short timeout so that it stops promptly.
class CaptureBroker {
 public:
  CaptureBroker() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(listen_fd_, 16) != 0) {
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
      return;
    }
    socklen_t len = sizeof(addr);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Run(); });
  }

  ~CaptureBroker() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    for (auto& [fd, splitter] : connections_) ::close(fd);
    ::close(listen_fd_);
  }

  int port() const { return port_; }

  std::vector<std::string> Frames() {
    std::lock_guard<std::mutex> lock(mutex_);
    return frames_;
  }

 private:
  void Run() {
    while (!stop_) {
      std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
      for (auto& [fd, splitter] : connections_) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 50) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        int fd = ::accept(listen_fd_, nullptr, nullptr);
        if (fd >= 0) connections_.emplace(fd, FrameSplitter(1 << 20));
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        if (!ReadFrom(fds[i].fd)) {
          ::close(fds[i].fd);
          connections_.erase(fds[i].fd);
        }
      }
    }
  }

  bool ReadFrom(int fd) {
    char buffer[65536];
    ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) return false;
    FrameSplitter& splitter = connections_.at(fd);
    if (!splitter.Append(std::string_view(buffer, static_cast<size_t>(n))).ok()) return false;
    while (true) {
      auto frame = splitter.Next();
      if (!frame.ok()) return false;
      if (!frame->has_value()) return true;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        frames_.push_back(**frame);
      }
      std::string reply = Answer(**frame);
      if (!reply.empty() && !SendAll(fd, reply)) return false;
    }
  }

  static bool SendAll(int fd, std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  std::string Answer(std::string_view payload) {
    size_t header_size = 0;
    auto header = DecodeRequestHeader(payload, &header_size);
    if (!header.ok()) return "";
    std::string out;
    if (header->api_key == static_cast<int16_t>(ApiKey::kApiVersions)) {
      if (!IsSupportedVersion(ApiKey::kApiVersions, header->api_version)) {
        std::string body = EncodeUnsupportedApiVersionsBody();
        AppendBe32(&out, static_cast<uint32_t>(4 + body.size()));
        AppendBe32(&out, static_cast<uint32_t>(header->correlation_id));
        return out + body;
      }
      EXPECT_TRUE(AppendResponseFrame(header->correlation_id, header->api_version,
                                      MakeApiVersionsResponse(), &out)
                      .ok());
      return out;
    }
    if (header->api_key == static_cast<int16_t>(ApiKey::kMetadata)) {
      auto request = DecodeRequest(header->api_key, header->api_version,
                                   payload.substr(header_size));
      if (!request.ok()) return "";
      MetadataResponse response;
      response.brokers = {{1, "127.0.0.1", port_, std::nullopt}};
      response.cluster_id = "mink-capture";
      response.controller_id = 1;
      MetadataResponse::Topic topic;
      topic.name = "captured";
      topic.partitions = {{0, 0, 1, 0, {1}, {1}, {}}};
      response.topics = {topic};
      EXPECT_TRUE(
          AppendResponseFrame(header->correlation_id, header->api_version, response, &out).ok());
      return out;
    }
    return "";  // anything else stays unanswered
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::map<int, FrameSplitter> connections_;  // owned by the thread
  std::mutex mutex_;
  std::vector<std::string> frames_;
};

struct Captured {
  std::vector<ParsedRequest> requests;
  std::vector<std::string> errors;
};

Captured Decode(const std::vector<std::string>& frames) {
  Captured c;
  for (const std::string& frame : frames) {
    auto parsed = ParseRequestFrame(frame);
    if (parsed.ok()) {
      c.requests.push_back(std::move(parsed).value());
    } else {
      c.errors.push_back(parsed.status().ToString());
    }
  }
  return c;
}

// "ApiVersions v3, Metadata v4, ..." for failure messages.
std::string Summary(const Captured& c) {
  std::string s;
  for (const auto& r : c.requests) {
    s += std::string(ApiName(r.header.api_key)) + " v" + std::to_string(r.header.api_version);
    if (const auto* m = std::get_if<MetadataRequest>(&r.body)) {
      s += m->topics ? " (" + std::to_string(m->topics->size()) + " topics)" : " (all topics)";
    }
    s += ", ";
  }
  return s;
}

// Every captured request of `key`.
std::vector<const ParsedRequest*> FindAll(const Captured& c, ApiKey key) {
  std::vector<const ParsedRequest*> found;
  for (const auto& r : c.requests) {
    if (r.header.api_key == static_cast<int16_t>(key)) found.push_back(&r);
  }
  return found;
}

const ParsedRequest* Find(const Captured& c, ApiKey key) {
  for (const auto& r : c.requests) {
    if (r.header.api_key == static_cast<int16_t>(key)) return &r;
  }
  return nullptr;
}

bool Have(const std::string& probe) {
  int status = 0;
  RunCommand(probe, &status);
  return status == 0;
}

#define MINK_REQUIRE_CLIENT(available, what)                                          \
  if (!(available)) {                                                                 \
    if (RequireServices()) FAIL() << what << " is missing (run scripts/setup)";       \
    GTEST_SKIP() << what << " is missing";                                            \
  }

TEST(ClientCaptureTest, KcatSendsApiVersionsV3ThenMetadata) {
  MINK_REQUIRE_CLIENT(Have("command -v kcat"), "kcat");
  CaptureBroker broker;
  int status = 0;
  std::string output = RunCommand(
      "timeout 60 kcat -b 127.0.0.1:" + std::to_string(broker.port()) + " -L -m 5", &status);
  Captured c = Decode(broker.Frames());
  EXPECT_TRUE(c.errors.empty()) << ::testing::PrintToString(c.errors);
  const ParsedRequest* versions = Find(c, ApiKey::kApiVersions);
  ASSERT_NE(versions, nullptr) << output;
  EXPECT_EQ(versions->header.api_version, 3);
  EXPECT_EQ(versions->header.client_id, "rdkafka");
  const auto& body = std::get<ApiVersionsRequest>(versions->body);
  EXPECT_EQ(body.client_software_name, "librdkafka");
  EXPECT_FALSE(body.client_software_version.empty());
  // librdkafka first asks for brokers only (an empty topic list), then -L asks for all topics.
  auto metadata = FindAll(c, ApiKey::kMetadata);
  ASSERT_FALSE(metadata.empty()) << output;
  bool all_topics = false;
  for (const ParsedRequest* m : metadata) {
    EXPECT_EQ(m->header.api_version, 4) << Summary(c);
    all_topics |= !std::get<MetadataRequest>(m->body).topics.has_value();
  }
  EXPECT_TRUE(all_topics) << Summary(c);
  // kcat understood our ApiVersions v3 and Metadata v4 responses.
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("topic \"captured\" with 1 partitions"), std::string::npos) << output;
  EXPECT_NE(output.find("broker 1 at 127.0.0.1:" + std::to_string(broker.port())),
            std::string::npos)
      << output;
}

TEST(ClientCaptureTest, KafkaPythonSendsApiVersionsV0ThenMetadataV0AndV1) {
  MINK_REQUIRE_CLIENT(Have("/usr/bin/python3 -c 'import kafka'"), "python3-kafka");
  CaptureBroker broker;
  int status = 0;
  std::string output = RunCommand("timeout 90 /usr/bin/python3 " + kTestsDir +
                                      "/capture_kafka_python.py " + std::to_string(broker.port()),
                                  &status);
  Captured c = Decode(broker.Frames());
  EXPECT_TRUE(c.errors.empty()) << ::testing::PrintToString(c.errors);
  const ParsedRequest* versions = Find(c, ApiKey::kApiVersions);
  ASSERT_NE(versions, nullptr) << output;
  EXPECT_EQ(versions->header.api_version, 0);
  EXPECT_EQ(versions->header.client_id, "kafka-python-2.0.2");
  // check_version() probes with Metadata v0 (no topics); topics() then asks with v1.
  auto metadata = FindAll(c, ApiKey::kMetadata);
  ASSERT_FALSE(metadata.empty()) << output;
  EXPECT_EQ(metadata.front()->header.api_version, 0) << Summary(c);
  EXPECT_EQ(metadata.back()->header.api_version, 1) << Summary(c);
  // kafka-python inferred a broker version from our v0 response (DescribeAcls 2 ⇒ 2.5.0; it
  // picks the same request versions as for 2.3.0) and read the topic list from our Metadata v1
  // response.
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("api_version (2, 5, 0)"), std::string::npos) << output;
  EXPECT_NE(output.find("topics ['captured']"), std::string::npos) << output;
}

TEST(ClientCaptureTest, KafkajsSendsApiVersionsV2ThenMetadataV6) {
  MINK_REQUIRE_CLIENT(Have("node --version") &&
                          std::filesystem::exists(kNodeModules + "/kafkajs/package.json"),
                      "node or tests/node/node_modules/kafkajs");
  CaptureBroker broker;
  int status = 0;
  std::string output = RunCommand("timeout 60 node " + kTestsDir + "/capture_kafkajs.js " +
                                      kNodeModules + " " + std::to_string(broker.port()),
                                  &status);
  Captured c = Decode(broker.Frames());
  EXPECT_TRUE(c.errors.empty()) << ::testing::PrintToString(c.errors);
  const ParsedRequest* versions = Find(c, ApiKey::kApiVersions);
  ASSERT_NE(versions, nullptr) << output;
  EXPECT_EQ(versions->header.api_version, 2);
  EXPECT_EQ(versions->header.client_id, "mink-capture-js");
  auto metadata = FindAll(c, ApiKey::kMetadata);
  ASSERT_FALSE(metadata.empty()) << output;
  for (const ParsedRequest* m : metadata) EXPECT_EQ(m->header.api_version, 6) << Summary(c);
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("\"name\":\"captured\""), std::string::npos) << output;
}

}  // namespace
}  // namespace mink::kafka
