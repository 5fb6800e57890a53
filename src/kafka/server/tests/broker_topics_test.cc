// Broker: the Kafka APIs that manage topics over an in-process table layer (Metadata,
// CreateTopics, DeleteTopics, DescribeConfigs, DeleteRecords): request struct in, response struct
// out, then what the table layer holds.

#include "kafka/server/broker.h"

#include <gtest/gtest.h>

#include <map>

#include "kafka/server/tests/broker_test_util.h"

namespace mink::kafka::broker_test {
namespace {

class BrokerTopicsTest : public BrokerFixture {};

// ---- Metadata ----

TEST_F(BrokerTopicsTest, MetadataListsEveryTopicWithItsPartitionsOnThisBroker) {
  ASSERT_EQ(CreateOne("alpha", 1).error_code, 0);
  ASSERT_EQ(CreateOne("beta", 3).error_code, 0);
  auto m = Metadata(std::nullopt, 9, true);
  ASSERT_EQ(m.brokers.size(), 1u);
  EXPECT_EQ(m.brokers[0].node_id, 7);
  EXPECT_EQ(m.brokers[0].host, "broker.test");
  EXPECT_EQ(m.brokers[0].port, 19092);
  EXPECT_EQ(m.controller_id, 7);
  std::map<std::string, std::vector<int32_t>> topics;
  for (const auto& t : m.topics) {
    EXPECT_EQ(t.error_code, 0) << t.name;
    for (const auto& p : t.partitions) {
      EXPECT_EQ(p.leader_id, 7);
      EXPECT_EQ(p.replica_nodes, std::vector<int32_t>{7});
      topics[t.name].push_back(p.partition_index);
    }
  }
  EXPECT_EQ(topics,
            (std::map<std::string, std::vector<int32_t>>{{"alpha", {0}}, {"beta", {0, 1, 2}}}));
  // Listing creates nothing.
  EXPECT_EQ(Metadata(std::nullopt, 1, true).topics.size(), 2u);
}

TEST_F(BrokerTopicsTest, MetadataCreatesAnUnknownTopicWhenAllowed) {
  BrokerOptions options = DefaultOptions();
  options.default_partitions = 2;
  StartBroker(options);
  auto v4 = Metadata(std::vector<std::string>{"made-v4"}, 4, true);
  ASSERT_EQ(v4.topics.size(), 1u);
  EXPECT_EQ(v4.topics[0].error_code, 0);
  EXPECT_EQ(v4.topics[0].partitions.size(), 2u);
  // Before v4 the broker's setting alone decides.
  auto v1 = Metadata(std::vector<std::string>{"made-v1"}, 1, false);
  ASSERT_EQ(v1.topics.size(), 1u);
  EXPECT_EQ(v1.topics[0].error_code, 0);
  EXPECT_EQ(v1.topics[0].partitions.size(), 2u);
  for (const char* topic : {"made-v4", "made-v1"}) {
    auto info = tables_->DescribeTable(TopicCatalog::TableName(topic));
    ASSERT_TRUE(info.ok()) << topic;
    EXPECT_EQ(info->descriptor.bucket_count, 2) << topic;
  }
  // A created topic takes records at once.
  EXPECT_EQ(ProduceOne("made-v4", 1, Batch({Rec("k", "v", kT0)})).base_offset, 0);
  EXPECT_EQ(TableValues("made-v4", 1), (std::vector<std::string>{"0:v"}));
}

TEST_F(BrokerTopicsTest, MetadataDoesNotCreateATopicWhenTheClientOrTheBrokerSaysNo) {
  auto refused = Metadata(std::vector<std::string>{"not-v4"}, 4, false);
  ASSERT_EQ(refused.topics.size(), 1u);
  EXPECT_EQ(refused.topics[0].error_code, Code(ErrorCode::kUnknownTopicOrPartition));
  EXPECT_TRUE(refused.topics[0].partitions.empty());
  EXPECT_FALSE(TableExists("not-v4"));

  BrokerOptions options = DefaultOptions();
  options.auto_create_topics = false;
  StartBroker(options);
  for (int16_t version : {1, 4, 9}) {
    auto m = Metadata(std::vector<std::string>{"not-off"}, version, true);
    ASSERT_EQ(m.topics.size(), 1u);
    EXPECT_EQ(m.topics[0].error_code, Code(ErrorCode::kUnknownTopicOrPartition)) << version;
  }
  EXPECT_FALSE(TableExists("not-off"));
}

TEST_F(BrokerTopicsTest, MetadataForAnInvalidTopicNameIsInvalidTopic) {
  for (bool create : {true, false}) {
    BrokerOptions options = DefaultOptions();
    options.auto_create_topics = create;
    StartBroker(options);
    auto m = Metadata(std::vector<std::string>{"bad/name", "__internal"}, 9, true);
    ASSERT_EQ(m.topics.size(), 2u);
    for (const auto& t : m.topics) {
      EXPECT_EQ(t.error_code, Code(ErrorCode::kInvalidTopicException)) << t.name << create;
      EXPECT_TRUE(t.partitions.empty());
    }
  }
  EXPECT_TRUE(Metadata(std::nullopt, 9, true).topics.empty());
}

TEST_F(BrokerTopicsTest, ATableOfTheTopicSchemaIsATopicAndAnotherTableIsNot) {
  ASSERT_TRUE(tables_->CreateDatabase(kKafkaDatabase).ok());
  table::TableSpec topic;
  topic.columns = {"key BYTES", "value BYTES", "headers ARRAY<ROW<key STRING, value BYTES>>",
                   "timestamp TIMESTAMP_LTZ(3)"};
  topic.bucket_count = 2;
  ASSERT_TRUE(tables_->CreateTable("kafka.made-by-hand", topic).ok());
  table::TableSpec other;
  other.columns = {"id BIGINT NOT NULL", "note STRING"};
  ASSERT_TRUE(tables_->CreateTable("kafka.notes", other).ok());

  auto all = Metadata(std::nullopt, 9, true);
  ASSERT_EQ(all.topics.size(), 1u);
  EXPECT_EQ(all.topics[0].name, "made-by-hand");
  EXPECT_EQ(all.topics[0].partitions.size(), 2u);
  EXPECT_EQ(ProduceOne("made-by-hand", 1, Batch({Rec("k", "v", kT0)})).base_offset, 0);
  EXPECT_EQ(TableValues("made-by-hand", 1), (std::vector<std::string>{"0:v"}));

  auto notes = Metadata(std::vector<std::string>{"notes"}, 9, true);
  ASSERT_EQ(notes.topics.size(), 1u);
  EXPECT_NE(notes.topics[0].error_code, 0);
  auto refused = ProduceOne("notes", 0, Batch({Rec("k", "v", kT0)}));
  EXPECT_NE(refused.error_code, 0);
  EXPECT_EQ(refused.base_offset, -1);
  auto offsets = tables_->Offsets("kafka.notes", std::nullopt);
  ASSERT_TRUE(offsets.ok());
  for (const auto& b : *offsets) EXPECT_EQ(b.end, 0) << b.bucket;
}

// ---- Topic administration ----

TEST_F(BrokerTopicsTest, CreateTopicsMakesATableWithThePartitionsAndRetentionAsked) {
  auto created = CreateOne("orders", 3, {{"retention.ms", "60000"}, {"cleanup.policy", "delete"}});
  EXPECT_EQ(created.error_code, 0);
  EXPECT_EQ(created.num_partitions, 3);
  auto info = tables_->DescribeTable("kafka.orders");
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->descriptor.bucket_count, 3);
  EXPECT_EQ(info->descriptor.log_ttl_ms, 60000);

  // -1 partitions: the broker's default; retention -1: kept forever (no TTL).
  auto defaults = CreateOne("forever", -1, {{"retention.ms", "-1"}});
  EXPECT_EQ(defaults.error_code, 0);
  EXPECT_EQ(defaults.num_partitions, 1);
  auto forever = tables_->DescribeTable("kafka.forever");
  ASSERT_TRUE(forever.ok());
  EXPECT_EQ(forever->descriptor.bucket_count, 1);
  EXPECT_EQ(forever->descriptor.log_ttl_ms, 0);

  // validate_only checks and creates nothing.
  EXPECT_EQ(CreateOne("dry-run", 2, {}, /*validate_only=*/true).error_code, 0);
  EXPECT_FALSE(TableExists("dry-run"));
  // Every partition takes records.
  EXPECT_EQ(ProduceOne("orders", 2, Batch({Rec("k", "v", kT0)})).base_offset, 0);
}

TEST_F(BrokerTopicsTest, CreateTopicsRefusesAnExistingTopicAndABadName) {
  ASSERT_EQ(CreateOne("taken", 2).error_code, 0);
  ASSERT_EQ(ProduceOne("taken", 0, Batch({Rec("k", "kept", kT0)})).base_offset, 0);
  auto again = CreateOne("taken", 5);
  EXPECT_EQ(again.error_code, Code(ErrorCode::kTopicAlreadyExists));
  auto info = tables_->DescribeTable("kafka.taken");
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->descriptor.bucket_count, 2);
  EXPECT_EQ(TableValues("taken", 0), (std::vector<std::string>{"0:kept"}));

  for (const char* name : {"has space", "", "..", "__consumer_offsets"}) {
    auto bad = CreateOne(name, 1);
    EXPECT_EQ(bad.error_code, Code(ErrorCode::kInvalidTopicException)) << name;
    EXPECT_TRUE(bad.error_message.has_value());
  }
  // Zero or another negative count than -1 (the default) is INVALID_PARTITIONS, as in Kafka.
  for (int32_t count : {0, -2, 5000}) {
    EXPECT_EQ(CreateOne("counted", count).error_code, Code(ErrorCode::kInvalidPartitions)) << count;
  }
  EXPECT_FALSE(TableExists("counted"));
  EXPECT_EQ(Metadata(std::nullopt, 9, true).topics.size(), 1u);
}

TEST_F(BrokerTopicsTest, DeleteTopicsDropsTheTableAndARecreatedTopicStartsAtZero) {
  ASSERT_EQ(
      ProduceOne("gone", 0, Batch({Rec("a", "old-0", kT0), Rec("b", "old-1", kT0)})).base_offset,
      0);
  // A committed offset of the topic, to see it forgotten with it.
  OffsetCommitRequest commit;
  commit.group_id = "readers";
  commit.topics.push_back({"gone", {{0, 2}}});
  auto committed = Call<OffsetCommitResponse>(commit, 2);
  ASSERT_EQ(committed.topics.size(), 1u);
  ASSERT_EQ(committed.topics[0].partitions.size(), 1u);
  ASSERT_EQ(committed.topics[0].partitions[0].error_code, 0);

  DeleteTopicsRequest del;
  del.topics.push_back({std::string("gone"), {}});
  del.topics.push_back({std::string("never-was"), {}});
  auto deleted = Call<DeleteTopicsResponse>(del, 6);
  ASSERT_EQ(deleted.responses.size(), 2u);
  EXPECT_EQ(deleted.responses[0].error_code, 0);
  EXPECT_EQ(deleted.responses[1].error_code, Code(ErrorCode::kUnknownTopicOrPartition));

  EXPECT_FALSE(TableExists("gone"));
  EXPECT_EQ(FetchOne("gone", 0, 0).error_code, Code(ErrorCode::kUnknownTopicOrPartition));
  EXPECT_TRUE(Metadata(std::nullopt, 9, true).topics.empty());
  OffsetFetchRequest offsets;
  offsets.group_id = "readers";
  offsets.topics = std::vector<OffsetFetchRequest::Topic>{{"gone", {0}}};
  auto fetched = Call<OffsetFetchResponse>(offsets, 5);
  ASSERT_EQ(fetched.topics.size(), 1u);
  ASSERT_EQ(fetched.topics[0].partitions.size(), 1u);
  EXPECT_EQ(fetched.topics[0].partitions[0].committed_offset, -1);

  // Made again, the topic starts empty at offset 0.
  ASSERT_EQ(CreateOne("gone", 1).error_code, 0);
  EXPECT_EQ(ListOne("gone", 0, kListOffsetsLatest).offset, 0);
  EXPECT_EQ(ProduceOne("gone", 0, Batch({Rec("c", "new-0", kT0)})).base_offset, 0);
  EXPECT_EQ(Records(FetchOne("gone", 0, 0).records), At({Rec("c", "new-0", kT0)}, 0));
  EXPECT_EQ(TableValues("gone", 0), (std::vector<std::string>{"0:new-0"}));

  // Before v6 topics are named in a list of strings.
  DeleteTopicsRequest old;
  old.topic_names = {"gone"};
  auto v5 = Call<DeleteTopicsResponse>(old, 5);
  ASSERT_EQ(v5.responses.size(), 1u);
  EXPECT_EQ(v5.responses[0].error_code, 0);
  EXPECT_FALSE(TableExists("gone"));
}

TEST_F(BrokerTopicsTest, DescribeConfigsAnswersTheTopicsAndTheBrokersSettings) {
  BrokerOptions options = DefaultOptions();
  options.max_message_bytes = 2'000'000;
  options.default_partitions = 4;
  StartBroker(options);
  ASSERT_EQ(CreateOne("configured", 1, {{"retention.ms", "60000"}}).error_code, 0);
  ASSERT_EQ(CreateOne("plain", 1).error_code, 0);

  DescribeConfigsRequest request;
  request.resources.push_back({kResourceTopic, "configured", std::nullopt});
  request.resources.push_back({kResourceTopic, "plain", std::vector<std::string>{"retention.ms"}});
  request.resources.push_back({kResourceBroker, "7", std::nullopt});
  request.resources.push_back({kResourceTopic, "nowhere", std::nullopt});
  auto r = Call<DescribeConfigsResponse>(request, 2);
  ASSERT_EQ(r.results.size(), 4u);
  auto configs = [](const DescribeConfigsResponse::ResourceResult& result, int8_t source) {
    std::map<std::string, std::string> out;
    for (const auto& c : result.configs) {
      EXPECT_EQ(c.config_source, source) << c.name;
      out[c.name] = c.value.value_or("null");
    }
    return out;
  };
  EXPECT_EQ(r.results[0].error_code, 0);
  auto topic = configs(r.results[0], kConfigSourceTopic);
  EXPECT_EQ(topic["retention.ms"], "60000");
  EXPECT_EQ(topic["max.message.bytes"], "2000000");
  EXPECT_EQ(topic["cleanup.policy"], "delete");
  // Only the keys asked for; the default retention is Kafka's week.
  EXPECT_EQ(configs(r.results[1], kConfigSourceTopic),
            (std::map<std::string, std::string>{{"retention.ms", "604800000"}}));
  EXPECT_EQ(r.results[2].error_code, 0);
  auto broker = configs(r.results[2], kConfigSourceStaticBroker);
  EXPECT_EQ(broker["broker.id"], "7");
  EXPECT_EQ(broker["message.max.bytes"], "2000000");
  EXPECT_EQ(broker["num.partitions"], "4");
  EXPECT_EQ(broker["auto.create.topics.enable"], "true");
  EXPECT_EQ(r.results[3].error_code, Code(ErrorCode::kUnknownTopicOrPartition));
  EXPECT_TRUE(r.results[3].configs.empty());
}

TEST_F(BrokerTopicsTest, DeleteRecordsBeyondTheHighWatermarkIsRefusedAndDeletesNothing) {
  const std::vector<Record> three = {Rec("a", "0", kT0), Rec("b", "1", kT0), Rec("c", "2", kT0)};
  ASSERT_EQ(ProduceOne("keep", 0, Batch(three)).base_offset, 0);
  auto refused = DeleteOne("keep", 0, 4);
  EXPECT_EQ(refused.error_code, Code(ErrorCode::kOffsetOutOfRange));
  EXPECT_EQ(ListOne("keep", 0, kListOffsetsEarliest).offset, 0);
  EXPECT_EQ(Records(FetchOne("keep", 0, 0).records), At(three, 0));
  EXPECT_EQ(DeleteOne("nowhere", 0, 0).error_code, Code(ErrorCode::kUnknownTopicOrPartition));
  EXPECT_EQ(DeleteOne("keep", 1, 0).error_code, Code(ErrorCode::kUnknownTopicOrPartition));
}

TEST_F(BrokerTopicsTest, DeleteRecordsToMinusOneDeletesUpToTheHighWatermark) {
  ASSERT_EQ(ProduceOne("drain", 0, Batch({Rec("a", "0", kT0), Rec("b", "1", kT0)})).base_offset, 0);
  // Below the start changes nothing.
  auto first = DeleteOne("drain", 0, 1);
  ASSERT_EQ(first.error_code, 0);
  EXPECT_EQ(first.low_watermark, 1);
  auto lower = DeleteOne("drain", 0, 0);
  EXPECT_EQ(lower.error_code, 0);
  EXPECT_EQ(lower.low_watermark, 1);

  auto all = DeleteOne("drain", 0, kDeleteRecordsToHighWatermark);
  EXPECT_EQ(all.error_code, 0);
  EXPECT_EQ(all.low_watermark, 2);
  EXPECT_EQ(ListOne("drain", 0, kListOffsetsEarliest).offset, 2);
  EXPECT_EQ(FetchOne("drain", 0, 1).error_code, Code(ErrorCode::kOffsetOutOfRange));
  EXPECT_TRUE(TableValues("drain", 0).empty());
  // The log goes on from where it was.
  EXPECT_EQ(ProduceOne("drain", 0, Batch({Rec("c", "2", kT0)})).base_offset, 2);
  EXPECT_EQ(Records(FetchOne("drain", 0, 2).records), At({Rec("c", "2", kT0)}, 2));
  EXPECT_EQ(TableValues("drain", 0), (std::vector<std::string>{"2:2"}));
}

// ---- Idempotent producers ----

// `n` records with values prefix0, prefix1, ...

}  // namespace
}  // namespace mink::kafka::broker_test
