// Every response the codec advertises, at every advertised version, read by an independent
// reader (schema_reader.h) driven by a second transcription of Kafka's message definitions
// (response_schemas.txt). The round-trip tests cannot catch an encoding that a client refuses
// (a null Fetch record set, which librdkafka 2.0.2 reads as "invalid MessageSetSize -1"),
// because the codec decodes what it encodes; these tests can.

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "kafka/protocol/messages.h"
#include "kafka/protocol/tests/error_slots.h"
#include "kafka/protocol/tests/samples.h"
#include "kafka/protocol/tests/schema_reader.h"

namespace mink::kafka {
namespace {

using testing::FindAll;
using testing::Lookup;
using testing::MessageSchema;
using testing::ReadBody;
using testing::ErrorSlotsBuilder;
using testing::SampleRequest;
using testing::SampleResponse;
using testing::SchemaNode;
using testing::SchemaSet;

const int16_t kCode = testing::kErrorSlotCode;

const SchemaSet& Schemas() {
  const Result<SchemaSet>& schemas = testing::ResponseSchemas();
  if (!schemas.ok()) {
    ADD_FAILURE() << schemas.status();
    static const SchemaSet empty;
    return empty;
  }
  return *schemas;
}

const MessageSchema& SchemaOf(ApiKey key) {
  const MessageSchema* schema = Schemas().Find(static_cast<int16_t>(key));
  if (schema == nullptr) {
    ADD_FAILURE() << "no schema for API " << static_cast<int>(key);
    static const MessageSchema none;
    return none;
  }
  return *schema;
}

std::vector<ApiInfo> AdvertisedApis() {
  std::vector<ApiInfo> out;
  for (const ApiInfo& api : AllApis()) {
    if (api.advertised) out.push_back(api);
  }
  return out;
}

// Encodes `response` at `version` and reads it with the schema; the error names the field.
Result<SchemaNode> EncodeAndRead(ApiKey key, const Response& response, int16_t version) {
  std::string body;
  MINK_RETURN_IF_ERROR(EncodeResponse(response, version, &body));
  return ReadBody(SchemaOf(key), version, body);
}

std::string Be(uint64_t v, int bytes) {
  std::string out;
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}
std::string I16(int16_t v) { return Be(static_cast<uint16_t>(v), 2); }
std::string I32(int32_t v) { return Be(static_cast<uint32_t>(v), 4); }
std::string I64(int64_t v) { return Be(static_cast<uint64_t>(v), 8); }
std::string U8(uint8_t v) { return std::string(1, static_cast<char>(v)); }

// ---------------------------------------------------------------------------------------------
// (c) An error in every slot, as the server's handlers build it (error_slots.h).

// ---------------------------------------------------------------------------------------------

TEST(ResponseSchemaTest, SchemaFileMatchesTheAdvertisedVersionsAndFlexibleVersions) {
  ASSERT_FALSE(Schemas().messages().empty());
  for (const ApiInfo& api : AdvertisedApis()) {
    const MessageSchema* schema = Schemas().Find(static_cast<int16_t>(api.key));
    ASSERT_NE(schema, nullptr) << api.name << " has no schema";
    EXPECT_EQ(schema->name, api.name);
    EXPECT_EQ(schema->versions.min, api.min_version) << api.name;
    EXPECT_EQ(schema->versions.max, api.max_version) << api.name;
    // Two readings of Kafka's definitions, api.cc's and the schema file's, must agree.
    EXPECT_EQ(schema->first_flexible, api.first_flexible_version) << api.name;
  }
  for (const MessageSchema& m : Schemas().messages()) {
    const ApiInfo* api = FindApi(static_cast<int16_t>(m.api_key));
    EXPECT_TRUE(api != nullptr && api->advertised) << m.name << " is not advertised";
  }
}

// Values that samples.cc puts in fields with neighbours of the same type, so a schema (or an
// encoder) that swaps two of them reads the whole body and still fails here.
struct ExpectedValue {
  ApiKey key;
  int min_version;
  int max_version;
  const char* path;
  int64_t number;
  const char* text = nullptr;  // set: compare the string instead
};

const ExpectedValue kSampleValues[] = {
    {ApiKey::kProduce, 0, 7, "responses[0].partition_responses[0].base_offset", 100},
    {ApiKey::kProduce, 2, 7, "responses[0].partition_responses[1].log_append_time_ms",
     1700000000000},
    {ApiKey::kProduce, 5, 7, "responses[0].partition_responses[0].log_start_offset", 5},
    {ApiKey::kProduce, 0, 7, "responses[0].name", 0, "orders"},
    {ApiKey::kFetch, 7, 12, "session_id", 12},
    {ApiKey::kFetch, 0, 12, "responses[0].partitions[0].high_watermark", 4},
    {ApiKey::kFetch, 5, 12, "responses[0].partitions[0].log_start_offset", 0},
    {ApiKey::kFetch, 4, 12, "responses[0].partitions[0].aborted_transactions[1].producer_id", 8},
    {ApiKey::kFetch, 4, 12, "responses[0].partitions[0].aborted_transactions[1].first_offset", 2},
    {ApiKey::kFetch, 12, 12, "responses[0].partitions[0].diverging_epoch.epoch", 3},
    {ApiKey::kFetch, 12, 12, "responses[0].partitions[0].diverging_epoch.end_offset", 90},
    {ApiKey::kFetch, 12, 12, "responses[0].partitions[0].current_leader.leader_id", 1},
    {ApiKey::kFetch, 12, 12, "responses[0].partitions[0].current_leader.leader_epoch", 3},
    {ApiKey::kFetch, 12, 12, "responses[0].partitions[0].snapshot_id.end_offset", 80},
    {ApiKey::kFetch, 12, 12, "responses[0].partitions[0].snapshot_id.epoch", 2},
    {ApiKey::kFetch, 0, 12, "responses[0].partitions[1].error_code", 1},
    {ApiKey::kListOffsets, 0, 0, "topics[0].partitions[0].old_style_offsets[0]", 5},
    {ApiKey::kListOffsets, 1, 5, "topics[0].partitions[0].timestamp", 1700000000000},
    {ApiKey::kListOffsets, 1, 5, "topics[0].partitions[0].offset", 5},
    {ApiKey::kListOffsets, 4, 5, "topics[0].partitions[0].leader_epoch", 3},
    {ApiKey::kMetadata, 0, 9, "brokers[1].port", 9093},
    {ApiKey::kMetadata, 1, 9, "controller_id", 1},
    {ApiKey::kMetadata, 2, 9, "cluster_id", 0, "cluster-a"},
    {ApiKey::kMetadata, 0, 9, "topics[1].error_code", 3},
    {ApiKey::kMetadata, 0, 9, "topics[0].partitions[0].leader_id", 1},
    {ApiKey::kMetadata, 7, 9, "topics[0].partitions[0].leader_epoch", 3},
    {ApiKey::kMetadata, 5, 9, "topics[0].partitions[0].offline_replicas[0]", 2},
    {ApiKey::kMetadata, 8, 9, "topics[0].topic_authorized_operations", 8},
    {ApiKey::kMetadata, 8, 9, "cluster_authorized_operations", 16},
    {ApiKey::kOffsetCommit, 0, 8, "topics[0].partitions[1].error_code", 25},
    {ApiKey::kOffsetFetch, 0, 7, "topics[0].partitions[0].committed_offset", 42},
    {ApiKey::kOffsetFetch, 5, 7, "topics[0].partitions[0].committed_leader_epoch", 3},
    {ApiKey::kOffsetFetch, 0, 7, "topics[0].partitions[0].metadata", 0, "meta"},
    {ApiKey::kOffsetFetch, 8, 8, "groups[1].error_code", 69},
    {ApiKey::kOffsetFetch, 8, 8, "groups[0].topics[0].partitions[0].committed_leader_epoch", 3},
    {ApiKey::kFindCoordinator, 0, 3, "node_id", 1},
    {ApiKey::kFindCoordinator, 0, 3, "port", 9092},
    {ApiKey::kFindCoordinator, 4, 4, "coordinators[1].error_code", 15},
    {ApiKey::kFindCoordinator, 4, 4, "coordinators[1].error_message", 0, "not available"},
    {ApiKey::kJoinGroup, 0, 6, "generation_id", 4},
    {ApiKey::kJoinGroup, 0, 6, "protocol_name", 0, "range"},
    {ApiKey::kJoinGroup, 0, 6, "members[0].metadata", 0, "meta-1"},
    {ApiKey::kJoinGroup, 5, 6, "members[0].group_instance_id", 0, "instance-1"},
    {ApiKey::kHeartbeat, 0, 4, "error_code", 27},
    {ApiKey::kLeaveGroup, 3, 4, "members[1].error_code", 25},
    {ApiKey::kDescribeGroups, 0, 5, "groups[0].group_state", 0, "Stable"},
    {ApiKey::kDescribeGroups, 0, 5, "groups[0].protocol_data", 0, "range"},
    {ApiKey::kDescribeGroups, 0, 5, "groups[0].members[0].client_host", 0, "/127.0.0.1"},
    {ApiKey::kDescribeGroups, 0, 5, "groups[0].members[0].member_assignment", 0, "assign"},
    {ApiKey::kDescribeGroups, 3, 5, "groups[0].authorized_operations", 8},
    {ApiKey::kListGroups, 4, 4, "groups[1].group_state", 0, "Empty"},
    {ApiKey::kApiVersions, 3, 3, "finalized_features_epoch", 5},
    {ApiKey::kApiVersions, 3, 3, "zk_migration_ready", 1},
    {ApiKey::kApiVersions, 3, 3, "supported_features[0].min_version", 1},
    {ApiKey::kApiVersions, 3, 3, "supported_features[0].max_version", 7},
    {ApiKey::kApiVersions, 3, 3, "finalized_features[0].max_version_level", 7},
    {ApiKey::kApiVersions, 3, 3, "finalized_features[0].min_version_level", 1},
    {ApiKey::kCreateTopics, 0, 7, "topics[1].error_code", 36},
    {ApiKey::kCreateTopics, 1, 7, "topics[0].error_message", 0, "ok"},
    {ApiKey::kCreateTopics, 5, 7, "topics[0].topic_config_error_code", 40},
    {ApiKey::kCreateTopics, 5, 7, "topics[0].num_partitions", 3},
    {ApiKey::kCreateTopics, 5, 7, "topics[0].replication_factor", 1},
    {ApiKey::kCreateTopics, 5, 7, "topics[0].configs[0].config_source", 5},
    {ApiKey::kCreateTopics, 5, 7, "topics[0].configs[1].read_only", 1},
    {ApiKey::kDeleteTopics, 0, 6, "responses[1].error_code", 3},
    {ApiKey::kDeleteTopics, 5, 6, "responses[1].error_message", 0, "unknown"},
    {ApiKey::kDeleteRecords, 0, 2, "topics[0].partitions[0].low_watermark", 42},
    {ApiKey::kDeleteRecords, 0, 2, "topics[0].partitions[1].partition_index", 3},
    {ApiKey::kInitProducerId, 0, 4, "producer_id", 99},
    {ApiKey::kInitProducerId, 0, 4, "producer_epoch", 3},
    {ApiKey::kDescribeAcls, 0, 3, "error_code", 42},
    {ApiKey::kDescribeAcls, 0, 3, "error_message", 0, "partial"},
    {ApiKey::kDescribeAcls, 0, 3, "resources[0].resource_type", 2},
    {ApiKey::kDescribeAcls, 1, 3, "resources[0].pattern_type", 4},
    {ApiKey::kDescribeAcls, 0, 3, "resources[1].resource_name", 0, "g1"},
    {ApiKey::kDescribeAcls, 0, 3, "resources[0].acls[1].principal", 0, "User:bob"},
    {ApiKey::kDescribeAcls, 0, 3, "resources[0].acls[1].host", 0, "10.0.0.2"},
    {ApiKey::kDescribeAcls, 0, 3, "resources[0].acls[0].operation", 8},
    {ApiKey::kDescribeAcls, 0, 3, "resources[0].acls[0].permission_type", 3},
    {ApiKey::kDescribeAcls, 0, 3, "resources[0].acls[1].operation", 4},
    {ApiKey::kDescribeAcls, 0, 3, "resources[0].acls[1].permission_type", 2},
    {ApiKey::kCreateAcls, 0, 3, "results[1].error_code", 42},
    {ApiKey::kCreateAcls, 0, 3, "results[1].error_message", 0, "invalid principal"},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[1].error_code", 31},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[1].error_message", 0, "denied"},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[0].matching_acls[1].error_code", -1},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[0].matching_acls[1].error_message", 0,
     "not deleted"},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[0].matching_acls[0].resource_type", 2},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[0].matching_acls[1].resource_name", 0, "g1"},
    {ApiKey::kDeleteAcls, 1, 3, "filter_results[0].matching_acls[0].pattern_type", 4},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[0].matching_acls[1].principal", 0, "User:bob"},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[0].matching_acls[1].host", 0, "10.0.0.2"},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[0].matching_acls[0].operation", 4},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[0].matching_acls[0].permission_type", 3},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[0].matching_acls[1].operation", 8},
    {ApiKey::kDeleteAcls, 0, 3, "filter_results[0].matching_acls[1].permission_type", 2},
    {ApiKey::kDescribeConfigs, 0, 2, "results[1].error_message", 0, "unknown"},
    {ApiKey::kDescribeConfigs, 0, 2, "results[0].resource_type", 2},
    {ApiKey::kDescribeConfigs, 0, 0, "results[0].configs[0].is_default", 1},
    {ApiKey::kDescribeConfigs, 1, 2, "results[0].configs[0].config_source", 5},
    {ApiKey::kDescribeConfigs, 1, 2, "results[0].configs[0].synonyms[1].source", 4},
    {ApiKey::kAlterConfigs, 0, 1, "responses[1].error_code", 40},
    {ApiKey::kAlterConfigs, 0, 1, "responses[1].resource_name", 0, "x"},
    {ApiKey::kCreatePartitions, 0, 1, "results[1].error_message", 0, "invalid"},
    {ApiKey::kDeleteGroups, 0, 2, "results[1].error_code", 68},
};

TEST(ResponseSchemaTest, FullyPopulatedSamplesReadExactlyAtEveryVersion) {
  int pairs = 0;
  for (const ApiInfo& api : AdvertisedApis()) {
    Response sample = SampleResponse(api.key);
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      ++pairs;
      Result<SchemaNode> tree = EncodeAndRead(api.key, sample, v);
      if (!tree.ok()) {
        ADD_FAILURE() << api.name << " v" << v << " sample: " << tree.status();
        continue;
      }
      // Every sample sets throttle_time_ms to 10: a field read from the wrong place would not be.
      if (const auto* throttle = tree->Find("throttle_time_ms")) {
        EXPECT_EQ(throttle->number, 10) << api.name << " v" << v;
      }
      for (const ExpectedValue& e : kSampleValues) {
        if (e.key != api.key || v < e.min_version || v > e.max_version) continue;
        const testing::SchemaValue* value = Lookup(*tree, e.path);
        if (value == nullptr) {
          ADD_FAILURE() << api.name << " v" << v << ": no " << e.path;
        } else if (e.text != nullptr) {
          EXPECT_EQ(value->bytes, e.text) << api.name << " v" << v << ": " << e.path;
        } else {
          EXPECT_EQ(value->number, e.number) << api.name << " v" << v << ": " << e.path;
        }
      }
    }
  }
  ::testing::Test::RecordProperty("pairs", pairs);
}

TEST(ResponseSchemaTest, ErrorResponsesCarryTheCodeInEveryErrorCodeField) {
  int pairs = 0;
  for (const ApiInfo& api : AdvertisedApis()) {
    Request request = SampleRequest(api.key);
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      ++pairs;
      Response response = ErrorResponseFor(request, v, ErrorCode::kUnknownTopicOrPartition);
      Result<SchemaNode> tree = EncodeAndRead(api.key, response, v);
      if (!tree.ok()) {
        ADD_FAILURE() << api.name << " v" << v << " error response: " << tree.status();
        continue;
      }
      auto codes = FindAll(*tree, "error_code");
      EXPECT_FALSE(codes.empty()) << api.name << " v" << v << ": no error_code field at all";
      for (const auto& found : codes) {
        EXPECT_EQ(found.value->number, kCode)
            << api.name << " v" << v << " error response: " << found.path;
      }
    }
  }
  ::testing::Test::RecordProperty("pairs", pairs);
}

TEST(ResponseSchemaTest, AnErrorInEverySlotAsHandlersBuildItIsReadableAtEveryVersion) {
  int pairs = 0;
  for (const ApiInfo& api : AdvertisedApis()) {
    auto build = ErrorSlotsBuilder(api.key);
    ASSERT_TRUE(build) << api.name << " has no error-slot builder";
    Response response = build();
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      ++pairs;
      Result<SchemaNode> tree = EncodeAndRead(api.key, response, v);
      if (!tree.ok()) {
        ADD_FAILURE() << api.name << " v" << v << " with an error in every slot: " << tree.status();
        continue;
      }
      bool carries_code = false;
      for (const auto& found : FindAll(*tree, "error_code")) {
        carries_code = carries_code || found.value->number == kCode;
      }
      EXPECT_TRUE(carries_code) << api.name << " v" << v << ": the code is nowhere in the body";
    }
  }
  ::testing::Test::RecordProperty("pairs", pairs);
}

TEST(ResponseSchemaTest, DefaultConstructedResponsesAreReadableAtEveryVersion) {
  for (const ApiInfo& api : AdvertisedApis()) {
    Response response = SampleResponse(api.key);
    std::visit(
        [](auto& m) {
          using M = std::decay_t<decltype(m)>;
          if constexpr (!std::is_same_v<M, std::monostate>) m = M{};
        },
        response);
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      Result<SchemaNode> tree = EncodeAndRead(api.key, response, v);
      EXPECT_TRUE(tree.ok()) << api.name << " v" << v << " default: " << tree.status();
    }
  }
}

TEST(ResponseSchemaTest, TheAnswerToAnUnsupportedApiVersionsVersionIsAV0Body) {
  std::string body = EncodeUnsupportedApiVersionsBody();
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kApiVersions), 0, body);
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->Find("error_code")->number, ToWire(ErrorCode::kUnsupportedVersion));
  EXPECT_FALSE(tree->Find("api_keys")->elements.empty());
}

TEST(ResponseSchemaTest, ACodecFetchPartitionWithNullRecordsIsRefusedAtEveryVersion) {
  FetchResponse m;
  FetchResponse::Partition p;
  p.partition_index = 0;
  p.error_code = ToWire(ErrorCode::kOffsetOutOfRange);
  p.records = std::nullopt;
  m.responses = {{"orders", {p}}};
  for (int16_t v = 0; v <= 12; ++v) {
    Result<SchemaNode> tree = EncodeAndRead(ApiKey::kFetch, m, v);
    ASSERT_FALSE(tree.ok()) << "v" << v;
    EXPECT_NE(tree.status().message().find("responses[0].partitions[0].records: null, but "
                                           "clients refuse a null here"),
              std::string::npos)
        << tree.status();
  }
}

// ---------------------------------------------------------------------------------------------
// The reader itself: it must be able to fail.

std::string FetchV11Body(int32_t records_length) {
  std::string b;
  b += I32(0);               // throttle_time_ms
  b += I16(0);               // error_code
  b += I32(0);               // session_id
  b += I32(1);               // responses: 1
  b += I16(1) + "t";         //   topic
  b += I32(1);               //   partitions: 1
  b += I32(0);               //     partition_index
  b += I16(1);               //     error_code
  b += I64(-1);              //     high_watermark
  b += I64(-1);              //     last_stable_offset
  b += I64(-1);              //     log_start_offset
  b += I32(-1);              //     aborted_transactions: null (allowed)
  b += I32(-1);              //     preferred_read_replica
  b += I32(records_length);  // records
  return b;
}

TEST(SchemaReaderTest, ANullFetchRecordSetIsRefusedWithItsFieldPath) {
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kFetch), 11, FetchV11Body(-1));
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().message(),
            "Fetch v11: responses[0].partitions[0].records: null, but clients refuse a null here "
            "(librdkafka-2.0.2)");
  // The same body with an empty record set is fine.
  tree = ReadBody(SchemaOf(ApiKey::kFetch), 11, FetchV11Body(0));
  ASSERT_TRUE(tree.ok()) << tree.status();
  auto records = FindAll(*tree, "records");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].path, "responses[0].partitions[0].records");
  EXPECT_FALSE(records[0].value->is_null);
}

TEST(SchemaReaderTest, ANullFetchRecordSetIsRefusedInTheCompactForm) {
  std::string b;
  b += I32(0) + I16(0) + I32(0);
  b += U8(2);        // responses: 1 (compact)
  b += U8(2) + "t";  //   topic
  b += U8(2);        //   partitions: 1
  b += I32(0) + I16(1) + I64(-1) + I64(-1) + I64(-1);
  b += U8(0);    //     aborted_transactions: null
  b += I32(-1);  //     preferred_read_replica
  b += U8(0);    //     records: null
  b += U8(0);    //     (tagged fields)
  b += U8(0);    //   (tagged fields)
  b += U8(0);    // (tagged fields)
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kFetch), 12, b);
  ASSERT_FALSE(tree.ok());
  EXPECT_NE(tree.status().message().find("responses[0].partitions[0].records: null"),
            std::string::npos)
      << tree.status();
}

TEST(SchemaReaderTest, ATrailingByteIsRefused) {
  std::string body = I32(0) + I16(0);  // Heartbeat v1
  ASSERT_TRUE(ReadBody(SchemaOf(ApiKey::kHeartbeat), 1, body).ok());
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kHeartbeat), 1, body + U8(0));
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().message(),
            "Heartbeat v1: (end of body): 1 byte(s) left over after the last field");
}

TEST(SchemaReaderTest, ANullInANonNullableStringIsRefused) {
  std::string body = I32(0) + I32(1) + I16(-1) + I16(0);  // DeleteGroups v1, group_id null
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kDeleteGroups), 1, body);
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().message(),
            "DeleteGroups v1: results[0].group_id: null, but the field is not nullable at v1 "
            "(nullable: none)");
  // Compact null (0) at the flexible version, likewise.
  body = I32(0) + U8(2) + U8(0) + I16(0) + U8(0) + U8(0);
  tree = ReadBody(SchemaOf(ApiKey::kDeleteGroups), 2, body);
  ASSERT_FALSE(tree.ok());
  EXPECT_NE(tree.status().message().find("results[0].group_id: null"), std::string::npos);
}

TEST(SchemaReaderTest, ANullIsRefusedBeforeTheVersionThatMakesItNullable) {
  // DeleteTopics names become nullable in v6; v5 must not carry a null one.
  std::string v5 = I32(0) + U8(2) + U8(0) + I16(3) + U8(0) + U8(0) + U8(0);
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kDeleteTopics), 5, v5);
  ASSERT_FALSE(tree.ok());
  EXPECT_NE(tree.status().message().find("responses[0].name: null, but the field is not nullable"),
            std::string::npos)
      << tree.status();
}

TEST(SchemaReaderTest, EveryTruncationOfEverySampleIsRefused) {
  for (const ApiInfo& api : AdvertisedApis()) {
    Response sample = SampleResponse(api.key);
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      std::string body;
      ASSERT_TRUE(EncodeResponse(sample, v, &body).ok());
      for (size_t n = 0; n < body.size(); ++n) {
        Result<SchemaNode> tree =
            ReadBody(SchemaOf(api.key), v, std::string_view(body).substr(0, n));
        EXPECT_FALSE(tree.ok()) << api.name << " v" << v << " cut to " << n << " bytes";
      }
    }
  }
  // And the message names what was cut short.
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kFetch), 11, FetchV11Body(0).substr(0, 30));
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().message(),
            "Fetch v11: responses[0].partitions[0].high_watermark: needs 8 byte(s), only 3 left");
}

TEST(SchemaReaderTest, ALengthBeyondTheBodyIsRefused) {
  std::string body = I32(0) + I32(1) + I16(50) + "g1" + I16(0);  // DeleteGroups v1
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kDeleteGroups), 1, body);
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().message(),
            "DeleteGroups v1: results[0].group_id: length 50, but only 4 byte(s) are left");
  body = I32(0) + I32(1000) + I16(2) + "g1" + I16(0);
  tree = ReadBody(SchemaOf(ApiKey::kDeleteGroups), 1, body);
  ASSERT_FALSE(tree.ok());
  EXPECT_NE(tree.status().message().find("results: count 1000"), std::string::npos);
}

// ApiVersions v3 with an empty api_keys list and the given tagged section.
std::string ApiVersionsV3Body(const std::string& tags) { return I16(0) + U8(1) + I32(0) + tags; }

TEST(SchemaReaderTest, TaggedFieldsAreDecodedAndUnknownTagsSkipped) {
  // tag 1 (finalized_features_epoch, int64), then an unknown tag 9 of 3 bytes.
  std::string tags = U8(2) + U8(1) + U8(8) + I64(42) + U8(9) + U8(3) + "xyz";
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kApiVersions), 3, ApiVersionsV3Body(tags));
  ASSERT_TRUE(tree.ok()) << tree.status();
  ASSERT_NE(tree->Find("finalized_features_epoch"), nullptr);
  EXPECT_EQ(tree->Find("finalized_features_epoch")->number, 42);
  EXPECT_EQ(tree->Find("supported_features"), nullptr);  // absent tags stay absent
}

TEST(SchemaReaderTest, TagsOutOfOrderOrRepeatedAreRefused) {
  std::string tags = U8(2) + U8(3) + U8(1) + U8(1) + U8(1) + U8(8) + I64(42);
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kApiVersions), 3, ApiVersionsV3Body(tags));
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().message(),
            "ApiVersions v3: (tagged fields): tag 1 after tag 3: tags must ascend, each at most "
            "once");
  tags = U8(2) + U8(9) + U8(0) + U8(9) + U8(0);
  EXPECT_FALSE(ReadBody(SchemaOf(ApiKey::kApiVersions), 3, ApiVersionsV3Body(tags)).ok());
}

TEST(SchemaReaderTest, ATagWhoseSizeDisagreesWithItsContentIsRefused) {
  // finalized_features_epoch is an int64: 8 bytes, announced as 9.
  std::string tags = U8(1) + U8(1) + U8(9) + I64(42) + U8(0);
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kApiVersions), 3, ApiVersionsV3Body(tags));
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().message(),
            "ApiVersions v3: finalized_features_epoch: tag 1 says 9 byte(s), but its content "
            "used 8");
  // Announced as 7: the int64 runs past the tag's end.
  tags = U8(1) + U8(1) + U8(7) + I64(42);
  tree = ReadBody(SchemaOf(ApiKey::kApiVersions), 3, ApiVersionsV3Body(tags));
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().message(),
            "ApiVersions v3: finalized_features_epoch: needs 8 byte(s), only 7 left");
}

TEST(SchemaReaderTest, AnOverlongUnsignedVarintIsRefused) {
  std::string body = I32(0) + "\xff\xff\xff\xff\xff\x01";  // DeleteGroups v2, results count
  Result<SchemaNode> tree = ReadBody(SchemaOf(ApiKey::kDeleteGroups), 2, body);
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.status().message(),
            "DeleteGroups v2: results: unsigned varint longer than 5 bytes");
}

TEST(SchemaReaderTest, AVersionOutsideTheSchemaIsRefused) {
  EXPECT_FALSE(ReadBody(SchemaOf(ApiKey::kHeartbeat), 5, I32(0) + I16(0)).ok());
}

TEST(SchemaParserTest, MistakesInTheSchemaTextAreReportedWithTheirLine) {
  auto error = [](std::string_view text) {
    Result<SchemaSet> set = SchemaSet::Parse(text);
    return set.ok() ? std::string("ok") : set.status().message();
  };
  EXPECT_EQ(error("message A key=1 versions=0-3 flexible=2\n  int32 x\n"), "ok");
  EXPECT_EQ(error("message A key=1 versions=0-3 flexible=2\n   int32 x\n"),
            "response schema line 2: indent by two spaces per level");
  EXPECT_EQ(error("message A key=1 versions=0-3 flexible=2\n  int32 x\n      int32 y\n"),
            "response schema line 3: indented under 'x', which is not a struct or array of "
            "structs");
  EXPECT_EQ(error("message A key=1 versions=0-3 flexible=2\n  [] x\n  int32 y\n"),
            "response schema line 2: 'x' needs its fields on the next lines, 4 spaces in");
  EXPECT_EQ(error("message A key=1 versions=0-3 flexible=2\n  int32 x tag=0 v=1+\n"),
            "response schema line 2: tagged field 'x' in versions before 2, which are not "
            "flexible");
  EXPECT_EQ(error("message A key=1 versions=0-3 flexible=2\n  int32 x null=0+\n"),
            "response schema line 2: int32 has no null");
  EXPECT_EQ(error("message A key=1 versions=0-3 flexible=2\n  int32 x v=5+\n"),
            "response schema line 2: 'x' (v=5+) is never present in versions 0-3");
  EXPECT_EQ(error("message A key=1 versions=0-3 flexible=2\n  int32 x\n  int16 x\n"),
            "response schema line 3: duplicate field name 'x'");
  EXPECT_EQ(error("message A key=1 versions=0-3 flexible=2\n  float x\n"),
            "response schema line 2: unknown type 'float'");
}

}  // namespace
}  // namespace mink::kafka
