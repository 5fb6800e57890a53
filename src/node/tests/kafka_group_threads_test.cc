// A node whose object store is slow: fetches of cold data hold every data thread, and a group
// request on another connection must still be answered at once.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "config/serve_config.h"
#include "kafka/protocol/messages.h"
#include "kafka/protocol/record_batch.h"
#include "node/node.h"
#include "object_store/memory_store.h"
#include "object_store/storage_uri.h"
#include "test_env.h"

namespace mink::node {
namespace {

using namespace std::chrono_literals;

// One blocking Kafka connection.
class Client {
 public:
  explicit Client(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Client() { close(fd_); }
  bool connected() const { return connected_; }

  bool Send(const kafka::Request& body, int16_t version) {
    kafka::RequestHeader header;
    header.api_key = kafka::ApiKeyOf(body);
    header.api_version = version;
    header.correlation_id = ++correlation_;
    header.client_id = "group-threads-test";
    std::string frame;
    if (!kafka::AppendRequestFrame(header, body, &frame).ok()) return false;
    for (size_t at = 0; at < frame.size();) {
      ssize_t n = write(fd_, frame.data() + at, frame.size() - at);
      if (n <= 0) return false;
      at += static_cast<size_t>(n);
    }
    return true;
  }

  Result<kafka::Response> Receive(int16_t api_key, int16_t version) {
    char size_bytes[4];
    if (!ReadExactly(size_bytes, 4)) return UnavailableError("connection closed");
    uint32_t size = 0;
    for (char c : size_bytes) size = size << 8 | static_cast<uint8_t>(c);
    std::string payload(size, '\0');
    if (!ReadExactly(payload.data(), size)) return UnavailableError("connection closed");
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
  int fd_ = -1;
  bool connected_ = false;
  int32_t correlation_ = 0;
};

constexpr int kPartitions = 8;
constexpr int16_t kProduceVersion = 7, kFetchVersion = 4, kListGroupsVersion = 0;

config::ServeConfig NodeConfig(const std::string& dir, const std::string& store) {
  config::ServeConfig config;
  config.listen = "127.0.0.1:" + std::to_string(testing_env::FreePort());
  config.kafka_listen = "127.0.0.1:" + std::to_string(testing_env::FreePort());
  config.meta_url = "sqlite:" + dir + "/meta.db";
  config.storage_uri = store;
  config.default_partitions = kPartitions;
  config.wal_flush_interval = 2ms;
  return config;
}

TEST(KafkaGroupThreads, AGroupRequestIsAnsweredWhileEveryDataThreadWaitsForTheStore) {
  const std::string dir = testing_env::MakeTempDir("kafka-group-threads");
  // mem:// stores live as long as the process, one per name: a name of this run's own.
  const std::string store = "-2@mem://" + std::filesystem::path(dir).filename().string();
  {
    // Each partition gets a batch; they land in WAL objects of the mem:// store.
    auto node = Node::Start(NodeConfig(dir, store));
    ASSERT_TRUE(node.ok()) << node.status();
    Client producer((*node)->kafka_port());
    ASSERT_TRUE(producer.connected());
    kafka::ProduceRequest produce;
    produce.acks = -1;
    produce.timeout_ms = 10000;
    auto& topic = produce.topic_data.emplace_back();
    topic.name = "slow";
    const std::string value(1000, 'v');
    for (int p = 0; p < kPartitions; ++p) {
      std::vector<kafka::NewRecord> records(10);
      for (auto& r : records) r.value = value;
      auto batch = kafka::BuildRecordBatch(kafka::BatchOptions{}, records);
      ASSERT_TRUE(batch.ok()) << batch.status();
      topic.partition_data.push_back({p, std::move(*batch)});
    }
    // The topic is created on first use, by this produce.
    ASSERT_TRUE(producer.Send(produce, kProduceVersion));
    auto response =
        producer.Receive(static_cast<int16_t>(kafka::ApiKey::kProduce), kProduceVersion);
    ASSERT_TRUE(response.ok()) << response.status();
    for (const auto& t : std::get<kafka::ProduceResponse>(*response).responses) {
      for (const auto& part : t.partition_responses) {
        ASSERT_EQ(part.error_code, 0) << "partition " << part.index;
      }
    }
  }
  // A new node on the same store: nothing cached, so every fetch reads the store, which now
  // takes 1.5 s per call.
  auto node = Node::Start(NodeConfig(dir, store));
  ASSERT_TRUE(node.ok()) << node.status();
  auto uri = object_store::StorageUri::Parse(store);
  ASSERT_TRUE(uri.ok()) << uri.status();
  auto opened = object_store::OpenObjectStore(*uri);
  ASSERT_TRUE(opened.ok()) << opened.status();
  auto* slow_store = static_cast<object_store::MemoryStore*>(opened->get());
  object_store::FaultPlan slow;
  slow.latency = 1500ms;
  slow_store->SetFaults(slow);

  // One fetch per partition, each on its own connection: more than the node's data threads.
  std::vector<std::unique_ptr<Client>> fetchers;
  for (int p = 0; p < kPartitions; ++p) {
    auto& c = fetchers.emplace_back(std::make_unique<Client>((*node)->kafka_port()));
    ASSERT_TRUE(c->connected());
    kafka::FetchRequest fetch;
    fetch.max_wait_ms = 0;
    auto& t = fetch.topics.emplace_back();
    t.topic = "slow";
    t.partitions.push_back({.partition = p, .fetch_offset = 0, .partition_max_bytes = 1 << 20});
    ASSERT_TRUE(c->Send(fetch, kFetchVersion));
  }
  std::this_thread::sleep_for(200ms);  // the fetches are on the data threads or queued for them

  Client admin((*node)->kafka_port());
  ASSERT_TRUE(admin.connected());
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(admin.Send(kafka::ListGroupsRequest{}, kListGroupsVersion));
  auto groups = admin.Receive(static_cast<int16_t>(kafka::ApiKey::kListGroups), kListGroupsVersion);
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(std::get<kafka::ListGroupsResponse>(*groups).error_code, 0);
  // Queued behind the fetches it would wait at least one store call (1.5 s).
  EXPECT_LT(waited, 1000ms) << "ListGroups waited "
                            << std::chrono::duration_cast<std::chrono::milliseconds>(waited).count()
                            << " ms";

  // The fetches themselves are answered, with the records.
  for (int p = 0; p < kPartitions; ++p) {
    auto response = fetchers[static_cast<size_t>(p)]->Receive(
        static_cast<int16_t>(kafka::ApiKey::kFetch), kFetchVersion);
    ASSERT_TRUE(response.ok()) << response.status();
    const auto& part = std::get<kafka::FetchResponse>(*response).responses.at(0).partitions.at(0);
    EXPECT_EQ(part.error_code, 0) << "partition " << p;
    EXPECT_EQ(part.high_watermark, 10) << "partition " << p;
    EXPECT_TRUE(part.records.has_value() && !part.records->empty()) << "partition " << p;
  }
  slow_store->SetFaults(object_store::FaultPlan{});
}

}  // namespace
}  // namespace mink::node
