// A node whose object store is slow (mem:// with injected latency), read cold: group requests
// are answered while fetches wait for the store, and one fetch reads its partitions together.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "config/serve_config.h"
#include "kafka/protocol/messages.h"
#include "kafka/protocol/record_batch.h"
#include "node/node.h"
#include "node/tests/kafka_test_client.h"
#include "object_store/memory_store.h"
#include "object_store/storage_uri.h"
#include "test_env.h"

namespace mink::node {
namespace {

using namespace std::chrono_literals;

using Client = testing::KafkaClient;

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

// Eight partitions of ten 1,000-byte records each, written through a first node; then a
// second node on the same store, with nothing cached, so that every fetch reads the store.
class KafkaOnASlowStore : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_env::MakeTempDir("kafka-slow-store");
    // mem:// stores live as long as the process, one per name: a name of this run's own.
    store_uri_ = "-2@mem://" + std::filesystem::path(dir_).filename().string();
    {
      auto first = Node::Start(NodeConfig(dir_, store_uri_));
      ASSERT_TRUE(first.ok()) << first.status();
      Client producer((*first)->kafka_port());
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
    auto node = Node::Start(NodeConfig(dir_, store_uri_));
    ASSERT_TRUE(node.ok()) << node.status();
    node_ = std::move(*node);
    auto uri = object_store::StorageUri::Parse(store_uri_);
    ASSERT_TRUE(uri.ok()) << uri.status();
    auto opened = object_store::OpenObjectStore(*uri);
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::static_pointer_cast<object_store::MemoryStore>(*opened);
  }

  void TearDown() override {
    if (store_) store_->SetFaults(object_store::FaultPlan{});
  }

  // Every store call takes `latency` from now on.
  void SlowDown(std::chrono::milliseconds latency) {
    object_store::FaultPlan slow;
    slow.latency = latency;
    store_->SetFaults(slow);
  }

  static kafka::FetchRequest FetchFromTheStart(std::vector<int> partitions) {
    kafka::FetchRequest fetch;
    fetch.max_wait_ms = 0;
    auto& t = fetch.topics.emplace_back();
    t.topic = "slow";
    for (int p : partitions) {
      t.partitions.push_back({.partition = p, .fetch_offset = 0, .partition_max_bytes = 1 << 20});
    }
    return fetch;
  }

  // Every partition of `response` is answered with its ten records.
  static void ExpectAllRecords(const kafka::Response& response, size_t partitions) {
    const auto& topic = std::get<kafka::FetchResponse>(response).responses.at(0);
    ASSERT_EQ(topic.partitions.size(), partitions);
    for (const auto& part : topic.partitions) {
      EXPECT_EQ(part.error_code, 0) << "partition " << part.partition_index;
      EXPECT_EQ(part.high_watermark, 10) << "partition " << part.partition_index;
      ASSERT_TRUE(part.records.has_value()) << "partition " << part.partition_index;
      auto batches = kafka::SplitBatches(*part.records);
      ASSERT_TRUE(batches.ok()) << batches.status();
      int records = 0;
      for (const auto& b : *batches) {
        auto decoded = kafka::DecodeBatch(b);
        ASSERT_TRUE(decoded.ok()) << decoded.status();
        records += static_cast<int>(decoded->records.size());
      }
      EXPECT_EQ(records, 10) << "partition " << part.partition_index;
    }
  }

  static int64_t Millis(std::chrono::steady_clock::duration d) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  }

  std::string dir_, store_uri_;
  std::unique_ptr<Node> node_;
  std::shared_ptr<object_store::MemoryStore> store_;
};

TEST_F(KafkaOnASlowStore, AGroupRequestIsAnsweredWhileEveryDataThreadWaitsForTheStore) {
  SlowDown(1500ms);
  ::testing::internal::CaptureStderr();  // the node's log
  // One fetch per partition, each on its own connection: more than the node's data threads.
  std::vector<std::unique_ptr<Client>> fetchers;
  for (int p = 0; p < kPartitions; ++p) {
    auto& c = fetchers.emplace_back(std::make_unique<Client>(node_->kafka_port()));
    ASSERT_TRUE(c->connected());
    ASSERT_TRUE(c->Send(FetchFromTheStart({p}), kFetchVersion));
  }
  std::this_thread::sleep_for(200ms);  // the fetches are on the data threads or queued for them

  Client admin(node_->kafka_port());
  ASSERT_TRUE(admin.connected());
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(admin.Send(kafka::ListGroupsRequest{}, kListGroupsVersion));
  auto groups = admin.Receive(static_cast<int16_t>(kafka::ApiKey::kListGroups), kListGroupsVersion);
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(std::get<kafka::ListGroupsResponse>(*groups).error_code, 0);
  // Queued behind the fetches it would wait at least one store call (1.5 s).
  EXPECT_LT(waited, 1000ms) << "ListGroups waited " << Millis(waited) << " ms";

  // The fetches themselves are answered, with the records.
  for (auto& fetcher : fetchers) {
    auto response = fetcher->Receive(static_cast<int16_t>(kafka::ApiKey::kFetch), kFetchVersion);
    ASSERT_TRUE(response.ok()) << response.status();
    ExpectAllRecords(*response, 1);
  }
  // Each fetch took a store call (1.5 s) beyond its max_wait_ms of 0: the log names them.
  const std::string log = ::testing::internal::GetCapturedStderr();
  size_t slow_fetches = 0;
  for (size_t at = log.find("slow request: Fetch v4"); at != std::string::npos;
       at = log.find("slow request: Fetch v4", at + 1)) {
    ++slow_fetches;
  }
  EXPECT_EQ(slow_fetches, size_t{kPartitions}) << log;
  EXPECT_EQ(log.find("slow request: ListGroups"), std::string::npos) << log;
}

TEST_F(KafkaOnASlowStore, AFetchReadsItsColdPartitionsTogether) {
  SlowDown(500ms);
  Client consumer(node_->kafka_port());
  ASSERT_TRUE(consumer.connected());
  std::vector<int> all;
  for (int p = 0; p < kPartitions; ++p) all.push_back(p);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(consumer.Send(FetchFromTheStart(all), kFetchVersion));
  auto response = consumer.Receive(static_cast<int16_t>(kafka::ApiKey::kFetch), kFetchVersion);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(response.ok()) << response.status();
  ExpectAllRecords(*response, kPartitions);
  // One partition after another would take eight store calls, 4 s.
  EXPECT_LT(took, 2000ms) << "the fetch took " << Millis(took) << " ms";
}

TEST_F(KafkaOnASlowStore, AFetchStaysWithinItsMaxBytesInPartitionOrder) {
  // Each partition holds one batch of about 10 KB; 15,000 bytes take the first partition's only.
  kafka::FetchRequest fetch = FetchFromTheStart({0, 1, 2, 3, 4, 5, 6, 7});
  fetch.max_bytes = 15000;
  Client consumer(node_->kafka_port());
  ASSERT_TRUE(consumer.connected());
  ASSERT_TRUE(consumer.Send(fetch, kFetchVersion));
  auto response = consumer.Receive(static_cast<int16_t>(kafka::ApiKey::kFetch), kFetchVersion);
  ASSERT_TRUE(response.ok()) << response.status();
  const auto& partitions = std::get<kafka::FetchResponse>(*response).responses.at(0).partitions;
  ASSERT_EQ(partitions.size(), size_t{kPartitions});
  size_t total = 0;
  for (const auto& part : partitions) {
    EXPECT_EQ(part.error_code, 0);
    EXPECT_EQ(part.high_watermark, 10) << "partition " << part.partition_index;
    const size_t size = part.records ? part.records->size() : 0;
    if (part.partition_index == 0) {
      EXPECT_GT(size, 10000u);
    } else {
      EXPECT_EQ(size, 0u) << "partition " << part.partition_index;
    }
    total += size;
  }
  EXPECT_LE(total, 15000u);
}

}  // namespace
}  // namespace mink::node
