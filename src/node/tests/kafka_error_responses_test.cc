// What a real node answers on the Kafka error paths, at every version it advertises, read from
// the wire by the independent schema reader (kafka/protocol/tests/schema_reader.h): the answer
// must be one a client accepts (no null record set where librdkafka refuses one, every byte
// accounted for) and carry the error code a Kafka broker would send. The codec tests cannot see
// a field the broker leaves unset; these can.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "config/serve_config.h"
#include "kafka/protocol/messages.h"
#include "kafka/protocol/record_batch.h"
#include "kafka/protocol/tests/schema_reader.h"
#include "node/node.h"
#include "node/tests/kafka_test_client.h"
#include "test_env.h"

namespace mink::node {
namespace {

using namespace std::chrono_literals;

using kafka::ApiKey;
using kafka::testing::FindAll;
using kafka::testing::Lookup;
using kafka::testing::SchemaNode;
using kafka::testing::SchemaValue;

// One partition holding kRecords records; auto-creation is off.
constexpr char kTopic[] = "log";
constexpr char kMissingTopic[] = "missing";
constexpr int32_t kMissingPartition = 5;
constexpr int64_t kRecords = 3;

const int64_t kOffsetOutOfRange = kafka::ToWire(kafka::ErrorCode::kOffsetOutOfRange);
const int64_t kUnknownTopicOrPartition = kafka::ToWire(kafka::ErrorCode::kUnknownTopicOrPartition);
const int64_t kTopicAlreadyExists = kafka::ToWire(kafka::ErrorCode::kTopicAlreadyExists);
const int64_t kInvalidTxnState = kafka::ToWire(kafka::ErrorCode::kInvalidTxnState);

constexpr int64_t kNoField = std::numeric_limits<int64_t>::min();

// Every version of `key` the node advertises, lowest first.
std::vector<int16_t> Versions(ApiKey key) {
  const kafka::ApiInfo& api = kafka::GetApi(key);
  std::vector<int16_t> out;
  for (int16_t v = api.min_version; v <= api.max_version; ++v) out.push_back(v);
  return out;
}

// Every error code in `body` other than 0 (NONE), by path.
using Errors = std::map<std::string, int64_t>;
Errors ErrorsIn(const SchemaNode& body) {
  Errors out;
  for (const auto& found : FindAll(body, "error_code")) {
    if (found.value->number != 0) out[found.path] = found.value->number;
  }
  return out;
}

// The integer at `path`; kNoField (and a failure) when the body has none there.
int64_t Number(const SchemaNode& body, std::string_view path) {
  const SchemaValue* value = Lookup(body, path);
  if (value == nullptr) {
    ADD_FAILURE() << "no field " << path;
    return kNoField;
  }
  return value->number;
}

// The record set at `path` is present, not null, and empty.
void ExpectEmptyRecords(const SchemaNode& body, std::string_view path) {
  const SchemaValue* records = Lookup(body, path);
  ASSERT_NE(records, nullptr) << "no field " << path;
  EXPECT_FALSE(records->is_null) << path;
  EXPECT_EQ(records->bytes.size(), 0u) << path;
}

kafka::FetchRequest FetchOf(const std::string& topic, int32_t partition, int64_t offset) {
  kafka::FetchRequest fetch;
  fetch.max_wait_ms = 0;  // answered at once
  auto& t = fetch.topics.emplace_back();
  t.topic = topic;
  t.partitions.push_back(
      {.partition = partition, .fetch_offset = offset, .partition_max_bytes = 1 << 20});
  return fetch;
}

class KafkaErrorResponses : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto& schemas = kafka::testing::ResponseSchemas();
    ASSERT_TRUE(schemas.ok()) << schemas.status();
    const std::string dir = testing_env::MakeTempDir("kafka-error-responses");
    config::ServeConfig config;
    config.listen = "127.0.0.1:" + std::to_string(testing_env::FreePort());
    config.kafka_listen = "127.0.0.1:" + std::to_string(testing_env::FreePort());
    config.meta_url = "sqlite:" + dir + "/meta.db";
    // mem:// stores live as long as the process, one per name: a name of this test's own.
    config.storage_uri = "-2@mem://" + std::filesystem::path(dir).filename().string();
    config.default_partitions = 1;
    config.kafka_auto_create_topics = false;
    config.wal_flush_interval = 2ms;
    auto node = Node::Start(config);
    ASSERT_TRUE(node.ok()) << node.status();
    node_ = std::move(*node);
    client_ = std::make_unique<testing::KafkaClient>(node_->kafka_port(), "error-responses-test");
    ASSERT_TRUE(client_->connected());

    kafka::CreateTopicsRequest create;
    create.topics.push_back({.name = kTopic, .num_partitions = 1, .replication_factor = 1});
    auto created = Exchange(create, kafka::GetApi(ApiKey::kCreateTopics).max_version);
    ASSERT_TRUE(created.ok()) << created.status();
    ASSERT_EQ(ErrorsIn(*created), Errors{});

    std::vector<kafka::NewRecord> records(kRecords);
    for (auto& r : records) r.value = "value";
    auto batch = kafka::BuildRecordBatch(kafka::BatchOptions{}, records);
    ASSERT_TRUE(batch.ok()) << batch.status();
    auto produced = Exchange(ProduceOf(kTopic, 0, *batch), kProduceVersion);
    ASSERT_TRUE(produced.ok()) << produced.status();
    ASSERT_EQ(ErrorsIn(*produced), Errors{});
    ASSERT_EQ(Number(*produced, "responses[0].partition_responses[0].base_offset"), 0);
  }

  static constexpr int16_t kProduceVersion = 7;

  static kafka::ProduceRequest ProduceOf(const std::string& topic, int32_t partition,
                                         std::string records) {
    kafka::ProduceRequest produce;
    produce.acks = -1;
    produce.timeout_ms = 10000;
    auto& t = produce.topic_data.emplace_back();
    t.name = topic;
    t.partition_data.push_back({partition, std::move(records)});
    return produce;
  }

  // Sends `request` at `version` and reads the body of the answer with the schema reader. An
  // error is no answer, a header that is not this request's, or a body a client would refuse
  // (the reader's message names the field).
  Result<SchemaNode> Exchange(const kafka::Request& request, int16_t version) {
    const auto key = static_cast<ApiKey>(kafka::ApiKeyOf(request));
    if (!client_->Send(request, version)) return UnavailableError("the request was not sent");
    MINK_ASSIGN_OR_RETURN(std::string frame, client_->ReceiveFrame());
    // Header v0 is the correlation id; v1 adds a tagged section, empty (one 0x00) from Mink.
    const bool header_v1 = kafka::ResponseHeaderVersion(key, version) == 1;
    const size_t header_size = header_v1 ? 5 : 4;
    if (frame.size() < header_size) {
      return InvalidArgumentError("a response frame of " + std::to_string(frame.size()) + " bytes");
    }
    uint32_t correlation = 0;
    for (int i = 0; i < 4; ++i) correlation = correlation << 8 | static_cast<uint8_t>(frame[i]);
    if (static_cast<int32_t>(correlation) != client_->correlation_id()) {
      return InvalidArgumentError("correlation id " + std::to_string(correlation) + ", sent " +
                                  std::to_string(client_->correlation_id()));
    }
    if (header_v1 && frame[4] != 0) {
      return InvalidArgumentError("response header v1 with tagged fields");
    }
    const auto* schema = kafka::testing::ResponseSchemas()->Find(static_cast<int>(key));
    if (schema == nullptr) {
      return NotFoundError(std::string("no schema for ") + kafka::GetApi(key).name);
    }
    return kafka::testing::ReadBody(*schema, version, std::string_view(frame).substr(header_size));
  }

  std::unique_ptr<Node> node_;
  std::unique_ptr<testing::KafkaClient> client_;
};

TEST_F(KafkaErrorResponses,
       AFetchBeyondTheEndAnswersOffsetOutOfRangeWithAnEmptyRecordSetAtEveryVersion) {
  for (int16_t v : Versions(ApiKey::kFetch)) {
    SCOPED_TRACE("Fetch v" + std::to_string(v));
    auto body = Exchange(FetchOf(kTopic, 0, kRecords + 10), v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body),
              (Errors{{"responses[0].partitions[0].error_code", kOffsetOutOfRange}}));
    ExpectEmptyRecords(*body, "responses[0].partitions[0].records");
  }
}

TEST_F(KafkaErrorResponses,
       AFetchBelowTheLogStartAnswersOffsetOutOfRangeWithAnEmptyRecordSetAtEveryVersion) {
  kafka::DeleteRecordsRequest trim;
  trim.timeout_ms = 10000;
  trim.topics.push_back({kTopic, {{.partition_index = 0, .offset = 2}}});
  auto trimmed = Exchange(trim, kafka::GetApi(ApiKey::kDeleteRecords).max_version);
  ASSERT_TRUE(trimmed.ok()) << trimmed.status();
  ASSERT_EQ(ErrorsIn(*trimmed), Errors{});
  ASSERT_EQ(Number(*trimmed, "topics[0].partitions[0].low_watermark"), 2);

  for (int16_t v : Versions(ApiKey::kFetch)) {
    SCOPED_TRACE("Fetch v" + std::to_string(v));
    auto body = Exchange(FetchOf(kTopic, 0, 0), v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body),
              (Errors{{"responses[0].partitions[0].error_code", kOffsetOutOfRange}}));
    ExpectEmptyRecords(*body, "responses[0].partitions[0].records");
  }
}

TEST_F(KafkaErrorResponses,
       AFetchOfAnUnknownTopicAnswersUnknownTopicOrPartitionWithAnEmptyRecordSetAtEveryVersion) {
  for (int16_t v : Versions(ApiKey::kFetch)) {
    SCOPED_TRACE("Fetch v" + std::to_string(v));
    auto body = Exchange(FetchOf(kMissingTopic, 0, 0), v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body),
              (Errors{{"responses[0].partitions[0].error_code", kUnknownTopicOrPartition}}));
    ExpectEmptyRecords(*body, "responses[0].partitions[0].records");
  }
}

TEST_F(KafkaErrorResponses,
       AFetchOfAnUnknownPartitionAnswersUnknownTopicOrPartitionWithAnEmptyRecordSetAtEveryVersion) {
  for (int16_t v : Versions(ApiKey::kFetch)) {
    SCOPED_TRACE("Fetch v" + std::to_string(v));
    auto body = Exchange(FetchOf(kTopic, kMissingPartition, 0), v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body),
              (Errors{{"responses[0].partitions[0].error_code", kUnknownTopicOrPartition}}));
    ExpectEmptyRecords(*body, "responses[0].partitions[0].records");
  }
}

TEST_F(KafkaErrorResponses,
       AProduceToAnUnknownPartitionAnswersUnknownTopicOrPartitionAtEveryVersion) {
  std::vector<kafka::NewRecord> records(1);
  records[0].value = "value";
  auto batch = kafka::BuildRecordBatch(kafka::BatchOptions{}, records);
  ASSERT_TRUE(batch.ok()) << batch.status();
  for (int16_t v : Versions(ApiKey::kProduce)) {
    SCOPED_TRACE("Produce v" + std::to_string(v));
    auto body = Exchange(ProduceOf(kTopic, kMissingPartition, *batch), v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(
        ErrorsIn(*body),
        (Errors{{"responses[0].partition_responses[0].error_code", kUnknownTopicOrPartition}}));
    EXPECT_EQ(Number(*body, "responses[0].partition_responses[0].base_offset"), -1);
  }
}

TEST_F(KafkaErrorResponses,
       AProduceToAnUnknownTopicWithoutAutoCreationAnswersUnknownTopicOrPartitionAtEveryVersion) {
  std::vector<kafka::NewRecord> records(1);
  records[0].value = "value";
  auto batch = kafka::BuildRecordBatch(kafka::BatchOptions{}, records);
  ASSERT_TRUE(batch.ok()) << batch.status();
  for (int16_t v : Versions(ApiKey::kProduce)) {
    SCOPED_TRACE("Produce v" + std::to_string(v));
    auto body = Exchange(ProduceOf(kMissingTopic, 0, *batch), v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(
        ErrorsIn(*body),
        (Errors{{"responses[0].partition_responses[0].error_code", kUnknownTopicOrPartition}}));
    EXPECT_EQ(Number(*body, "responses[0].partition_responses[0].base_offset"), -1);
  }
}

TEST_F(KafkaErrorResponses,
       ListOffsetsOfAnUnknownTopicOrPartitionAnswersUnknownTopicOrPartitionAtEveryVersion) {
  kafka::ListOffsetsRequest list;
  list.topics.push_back(
      {kTopic, {{.partition_index = kMissingPartition, .timestamp = kafka::kListOffsetsLatest}}});
  list.topics.push_back(
      {kMissingTopic, {{.partition_index = 0, .timestamp = kafka::kListOffsetsLatest}}});
  for (int16_t v : Versions(ApiKey::kListOffsets)) {
    SCOPED_TRACE("ListOffsets v" + std::to_string(v));
    auto body = Exchange(list, v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body),
              (Errors{{"topics[0].partitions[0].error_code", kUnknownTopicOrPartition},
                      {"topics[1].partitions[0].error_code", kUnknownTopicOrPartition}}));
    for (const char* topic : {"topics[0]", "topics[1]"}) {
      if (v == 0) {
        const SchemaValue* offsets =
            Lookup(*body, std::string(topic) + ".partitions[0].old_style_offsets");
        ASSERT_NE(offsets, nullptr);
        EXPECT_TRUE(offsets->items.empty()) << topic;
      } else {
        EXPECT_EQ(Number(*body, std::string(topic) + ".partitions[0].offset"), -1) << topic;
      }
    }
  }
}

TEST_F(KafkaErrorResponses,
       MetadataOfAnUnknownTopicWithoutAutoCreationAnswersUnknownTopicOrPartitionAtEveryVersion) {
  kafka::MetadataRequest metadata;
  metadata.topics = std::vector<kafka::MetadataRequest::Topic>{{kMissingTopic}};
  metadata.allow_auto_topic_creation = true;  // v4+: allowed by the client, refused by the node
  for (int16_t v : Versions(ApiKey::kMetadata)) {
    SCOPED_TRACE("Metadata v" + std::to_string(v));
    auto body = Exchange(metadata, v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body), (Errors{{"topics[0].error_code", kUnknownTopicOrPartition}}));
    const SchemaValue* partitions = Lookup(*body, "topics[0].partitions");
    ASSERT_NE(partitions, nullptr);
    EXPECT_TRUE(partitions->elements.empty());
  }
}

TEST_F(KafkaErrorResponses,
       DeleteRecordsBeyondTheHighWatermarkAnswersOffsetOutOfRangeAtEveryVersion) {
  kafka::DeleteRecordsRequest trim;
  trim.timeout_ms = 10000;
  trim.topics.push_back({kTopic, {{.partition_index = 0, .offset = kRecords + 1}}});
  for (int16_t v : Versions(ApiKey::kDeleteRecords)) {
    SCOPED_TRACE("DeleteRecords v" + std::to_string(v));
    auto body = Exchange(trim, v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body), (Errors{{"topics[0].partitions[0].error_code", kOffsetOutOfRange}}));
  }
  // Nothing was deleted.
  auto body = Exchange(FetchOf(kTopic, 0, 0), kafka::GetApi(ApiKey::kFetch).max_version);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(ErrorsIn(*body), Errors{});
  EXPECT_EQ(Number(*body, "responses[0].partitions[0].log_start_offset"), 0);
}

TEST_F(KafkaErrorResponses,
       DeleteTopicsOfAnUnknownTopicAnswersUnknownTopicOrPartitionAtEveryVersion) {
  for (int16_t v : Versions(ApiKey::kDeleteTopics)) {
    SCOPED_TRACE("DeleteTopics v" + std::to_string(v));
    kafka::DeleteTopicsRequest remove;
    remove.timeout_ms = 10000;
    if (v >= 6) {
      remove.topics.push_back({.name = kMissingTopic});
    } else {
      remove.topic_names.push_back(kMissingTopic);
    }
    auto body = Exchange(remove, v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body), (Errors{{"responses[0].error_code", kUnknownTopicOrPartition}}));
  }
}

TEST_F(KafkaErrorResponses, CreateTopicsOfAnExistingTopicAnswersTopicAlreadyExistsAtEveryVersion) {
  kafka::CreateTopicsRequest create;
  create.topics.push_back({.name = kTopic, .num_partitions = 1, .replication_factor = 1});
  for (int16_t v : Versions(ApiKey::kCreateTopics)) {
    SCOPED_TRACE("CreateTopics v" + std::to_string(v));
    auto body = Exchange(create, v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body), (Errors{{"topics[0].error_code", kTopicAlreadyExists}}));
  }
}

TEST_F(KafkaErrorResponses,
       DescribeConfigsOfAnUnknownTopicAnswersUnknownTopicOrPartitionAtEveryVersion) {
  kafka::DescribeConfigsRequest describe;
  describe.resources.push_back({.resource_type = 2, .resource_name = kMissingTopic});  // TOPIC
  for (int16_t v : Versions(ApiKey::kDescribeConfigs)) {
    SCOPED_TRACE("DescribeConfigs v" + std::to_string(v));
    auto body = Exchange(describe, v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body), (Errors{{"results[0].error_code", kUnknownTopicOrPartition}}));
    const SchemaValue* configs = Lookup(*body, "results[0].configs");
    ASSERT_NE(configs, nullptr);
    EXPECT_TRUE(configs->elements.empty());
  }
}

TEST_F(KafkaErrorResponses,
       OffsetFetchWithoutCommitsAnswersOffsetMinusOneAndNoErrorAtEveryVersion) {
  const std::vector<kafka::OffsetFetchRequest::Topic> topics = {{kTopic, {0}}};
  for (int16_t v : Versions(ApiKey::kOffsetFetch)) {
    SCOPED_TRACE("OffsetFetch v" + std::to_string(v));
    kafka::OffsetFetchRequest fetch;
    std::string partition = "topics[0].partitions[0]";
    if (v >= 8) {
      fetch.groups.push_back({"no-commits", topics});
      partition = "groups[0]." + partition;
    } else {
      fetch.group_id = "no-commits";
      fetch.topics = topics;
    }
    auto body = Exchange(fetch, v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body), Errors{});
    EXPECT_EQ(Number(*body, partition + ".partition_index"), 0);
    EXPECT_EQ(Number(*body, partition + ".committed_offset"), -1);
  }
}

TEST_F(KafkaErrorResponses,
       OffsetCommitForAnUnknownTopicOrPartitionAnswersUnknownTopicOrPartitionAtEveryVersion) {
  // A commit outside a group generation (generation -1, no member id), as admin tools send.
  kafka::OffsetCommitRequest commit;
  commit.group_id = "standalone";
  commit.topics.push_back(
      {kTopic, {{.partition_index = kMissingPartition, .committed_offset = 1}}});
  commit.topics.push_back({kMissingTopic, {{.partition_index = 0, .committed_offset = 1}}});
  for (int16_t v : Versions(ApiKey::kOffsetCommit)) {
    SCOPED_TRACE("OffsetCommit v" + std::to_string(v));
    auto body = Exchange(commit, v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body),
              (Errors{{"topics[0].partitions[0].error_code", kUnknownTopicOrPartition},
                      {"topics[1].partitions[0].error_code", kUnknownTopicOrPartition}}));
  }
}

TEST_F(KafkaErrorResponses,
       InitProducerIdWithATransactionalIdAnswersInvalidTxnStateAtEveryVersion) {
  kafka::InitProducerIdRequest init;
  init.transactional_id = "txn";
  init.transaction_timeout_ms = 60000;
  for (int16_t v : Versions(ApiKey::kInitProducerId)) {
    SCOPED_TRACE("InitProducerId v" + std::to_string(v));
    auto body = Exchange(init, v);
    ASSERT_TRUE(body.ok()) << body.status();
    EXPECT_EQ(ErrorsIn(*body), (Errors{{"error_code", kInvalidTxnState}}));
    EXPECT_EQ(Number(*body, "producer_id"), -1);
    EXPECT_EQ(Number(*body, "producer_epoch"), -1);
  }
}

}  // namespace
}  // namespace mink::node
