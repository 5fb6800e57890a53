// Golden bytes computed by hand from the published Kafka protocol description, and the
// record batch CRC from an independent bitwise CRC-32C.

#include <gtest/gtest.h>

#include "kafka/protocol/messages.h"
#include "kafka/protocol/record_batch.h"
#include "kafka/protocol/tests/test_util.h"

namespace mink::kafka {
namespace {

using testing::FromHex;
using testing::ToHex;

template <class M>
std::string Body(const M& m, int16_t v) {
  auto out = EncodeBody(m, v);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : "";
}

ApiVersionsResponse TwoKeys() {
  ApiVersionsResponse r;
  r.api_keys = {{0, 0, 7}, {18, 0, 3}};
  return r;
}

TEST(GoldenTest, ApiVersionsV0RequestFrame) {
  std::string frame;
  ASSERT_TRUE(AppendRequestFrame({18, 0, 1, "test"}, ApiVersionsRequest{}, &frame).ok());
  EXPECT_EQ(ToHex(frame), ToHex(FromHex("0000000e 0012 0000 00000001 0004 74657374")));
  auto parsed = ParseRequestFrame(std::string_view(frame).substr(4));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->header.client_id, "test");
}

TEST(GoldenTest, ApiVersionsV3RequestAsLibrdkafkaSendsIt) {
  std::string expected = FromHex("00000024 0012 0003 00000001 0007") + "rdkafka" + FromHex("00") +
                         FromHex("0b") + "librdkafka" + FromHex("06") + "2.0.2" + FromHex("00");
  ApiVersionsRequest body;
  body.client_software_name = "librdkafka";
  body.client_software_version = "2.0.2";
  std::string encoded;
  ASSERT_TRUE(AppendRequestFrame({18, 3, 1, "rdkafka"}, body, &encoded).ok());
  EXPECT_EQ(ToHex(encoded), ToHex(expected));
  auto parsed = ParseRequestFrame(std::string_view(expected).substr(4));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const auto& request = std::get<ApiVersionsRequest>(parsed->body);
  EXPECT_EQ(request.client_software_name, "librdkafka");
  EXPECT_EQ(request.client_software_version, "2.0.2");
}

TEST(GoldenTest, ApiVersionsV0Response) {
  EXPECT_EQ(ToHex(Body(TwoKeys(), 0)),
            ToHex(FromHex("0000 00000002 0000 0000 0007 0012 0000 0003")));
  std::string frame;
  ASSERT_TRUE(AppendResponseFrame(1, 0, TwoKeys(), &frame).ok());
  EXPECT_EQ(ToHex(frame.substr(0, 8)), "0000001600000001");
}

TEST(GoldenTest, ApiVersionsV3ResponseUsesHeaderV0AndCompactBody) {
  EXPECT_EQ(ToHex(Body(TwoKeys(), 3)),
            ToHex(FromHex("0000 03 0000 0000 0007 00 0012 0000 0003 00 00000000 00")));
  std::string frame;
  ASSERT_TRUE(AppendResponseFrame(5, 3, TwoKeys(), &frame).ok());
  // Size 26, correlation id, and no tag byte in the header.
  EXPECT_EQ(ToHex(frame.substr(0, 10)), "0000001a000000050000");
}

TEST(GoldenTest, AdvertisedApiVersions) {
  std::string body = EncodeUnsupportedApiVersionsBody();
  auto decoded = DecodeBody<ApiVersionsResponse>(0, body);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->error_code, 35);
  std::string listed;
  for (const auto& k : decoded->api_keys) {
    listed += std::to_string(k.api_key) + ":" + std::to_string(k.min_version) + "-" +
              std::to_string(k.max_version) + " ";
  }
  EXPECT_EQ(listed,
            "0:0-7 1:0-12 2:0-5 3:0-9 8:0-8 9:0-8 10:0-4 11:0-6 12:0-4 13:0-4 14:0-4 15:0-5 "
            "16:0-4 17:0-1 18:0-3 19:0-7 20:0-6 21:0-2 22:0-4 29:0-3 30:0-3 31:0-3 32:0-2 33:0-1 "
            "36:0-2 37:0-1 42:0-2 ");
}

TEST(GoldenTest, DeleteRecordsV0AndFlexibleV2) {
  DeleteRecordsRequest request;
  request.topics = {{"t", {{0, 42}}}};
  request.timeout_ms = 30000;
  EXPECT_EQ(ToHex(Body(request, 0)),
            ToHex(FromHex("00000001 000174 | 00000001 00000000 000000000000002a | 00007530")));
  EXPECT_EQ(ToHex(Body(request, 2)),
            ToHex(FromHex("02 0274 | 02 00000000 000000000000002a 00 | 00 | 00007530 00")));

  DeleteRecordsResponse response;
  response.throttle_time_ms = 10;
  response.topics = {{"t", {{0, 42, 0}}}};
  EXPECT_EQ(ToHex(Body(response, 0)),
            ToHex(FromHex("0000000a 00000001 000174 | 00000001 00000000 000000000000002a 0000")));
  EXPECT_EQ(ToHex(Body(response, 2)),
            ToHex(FromHex("0000000a 02 0274 | 02 00000000 000000000000002a 0000 00 | 00 | 00")));
}

TEST(GoldenTest, MetadataV1) {
  MetadataRequest request;
  request.topics = std::vector<MetadataRequest::Topic>{{"t"}};
  EXPECT_EQ(ToHex(Body(request, 1)), "00000001000174");
  request.topics.reset();
  EXPECT_EQ(ToHex(Body(request, 1)), "ffffffff");
  EXPECT_FALSE(EncodeBody(request, 0).ok());  // v0 has no null array

  MetadataResponse response;
  response.brokers = {{1, "h", 9092, std::nullopt}};
  response.controller_id = 1;
  response.topics = {{0, "t", false, {{0, 0, 1, 0, {1}, {1}, {}}}, 0}};
  EXPECT_EQ(ToHex(Body(response, 1)),
            ToHex(FromHex("00000001 00000001 000168 00002384 ffff | 00000001"
                          "| 00000001 0000 000174 00 | 00000001 0000 00000000 00000001"
                          "  00000001 00000001 | 00000001 00000001")));
}

TEST(GoldenTest, MetadataV9) {
  MetadataRequest request;
  request.topics = std::vector<MetadataRequest::Topic>{{"t"}};
  EXPECT_EQ(ToHex(Body(request, 9)), "02027400" "01" "00" "00" "00");

  MetadataResponse response;
  response.brokers = {{1, "h", 9092, std::nullopt}};
  response.controller_id = 1;
  response.topics = {{0, "t", false, {{0, 0, 1, 0, {1}, {1}, {}}}, kAuthorizedOperationsUnknown}};
  EXPECT_EQ(ToHex(Body(response, 9)),
            ToHex(FromHex("00000000 | 02 00000001 0268 00002384 00 00 | 00 | 00000001"
                          "| 02 0000 0274 00 | 02 0000 00000000 00000001 00000000"
                          "  02 00000001 02 00000001 01 00 | 80000000 00 | 80000000 00")));
  std::string frame;
  ASSERT_TRUE(AppendResponseFrame(9, 9, response, &frame).ok());
  EXPECT_EQ(ToHex(frame.substr(4, 5)), "0000000900");  // response header v1: a tag byte
}

const char kGoldenBatch[] =
    "0000000000000000 00000039 ffffffff 02 d3f2ac75 0000 00000000"
    "0000018bcfe56800 0000018bcfe56800 ffffffffffffffff ffff ffffffff 00000001"
    "0e 00 00 00 01 02 76 00";

TEST(GoldenTest, RecordBatchCrcAndBuilder) {
  const std::string batch = FromHex(kGoldenBatch);
  ASSERT_EQ(batch.size(), 69u);
  EXPECT_TRUE(BatchCrcMatches(batch));
  NewRecord record;
  record.timestamp = 1700000000000;
  record.value = "v";
  auto built = BuildRecordBatch(BatchOptions{}, std::span(&record, 1));
  ASSERT_TRUE(built.ok());
  EXPECT_EQ(ToHex(*built), ToHex(batch));
}

TEST(GoldenTest, ProduceV7WithOneRecordBatch) {
  const std::string batch = FromHex(kGoldenBatch);
  const std::string body =
      FromHex("ffff ffff 00007530 00000001 000174 00000001 00000000 00000045") + batch;
  auto decoded = DecodeBody<ProduceRequest>(7, body);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_FALSE(decoded->transactional_id.has_value());
  EXPECT_EQ(decoded->acks, -1);
  EXPECT_EQ(decoded->timeout_ms, 30000);
  ASSERT_EQ(decoded->topic_data.size(), 1u);
  ASSERT_EQ(decoded->topic_data[0].partition_data.size(), 1u);
  const auto& records = decoded->topic_data[0].partition_data[0].records;
  ASSERT_TRUE(records.has_value());
  EXPECT_EQ(Body(*decoded, 7), body);

  auto batches = SplitBatches(*records);
  ASSERT_TRUE(batches.ok()) << batches.status();
  ASSERT_EQ(batches->size(), 1u);
  auto rows = DecodeBatch((*batches)[0]);
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->records.size(), 1u);
  EXPECT_FALSE(rows->records[0].key.has_value());
  EXPECT_EQ(rows->records[0].value, "v");
  EXPECT_EQ(rows->records[0].timestamp, 1700000000000);
  EXPECT_EQ(rows->records[0].offset, 0);
  EXPECT_EQ(rows->header.producer_id, -1);
}

TEST(GoldenTest, FetchV12RequestWithClusterIdTag) {
  FetchRequest request;
  request.cluster_id = "c";
  request.max_wait_ms = 500;
  request.min_bytes = 1;
  request.isolation_level = 1;
  request.topics = {{"t", {{0, -1, 5, -1, -1, 1048576}}}};
  EXPECT_EQ(ToHex(Body(request, 12)),
            ToHex(FromHex("ffffffff 000001f4 00000001 7fffffff 01 00000000 ffffffff"
                          "| 02 0274 02 00000000 ffffffff 0000000000000005 ffffffff"
                          "  ffffffffffffffff 00100000 00 00 | 01 | 01 | 01 00 02 0263")));
  // Fetch v4 (kafka-python) has no session fields, no tags.
  EXPECT_EQ(ToHex(Body(request, 4)),
            ToHex(FromHex("ffffffff 000001f4 00000001 7fffffff 01 | 00000001 000174"
                          "| 00000001 00000000 0000000000000005 00100000")));
}

// The ACL requests are checked only against our own decoder elsewhere: here their field order,
// the v1 pattern type and the compact nulls of v2+ are written out by hand.
TEST(GoldenTest, AclRequestsV0ToV3) {
  DescribeAclsRequest describe;
  describe.resource_type_filter = ToWire(AclResourceType::kTopic);
  describe.resource_name_filter = "t";
  describe.pattern_type_filter = ToWire(AclPatternType::kPrefixed);
  describe.host_filter = "*";
  describe.operation = ToWire(AclOperation::kDescribe);
  describe.permission_type = ToWire(AclPermissionType::kAllow);
  EXPECT_EQ(ToHex(Body(describe, 0)), ToHex(FromHex("02 000174 ffff 00012a 08 03")));
  EXPECT_EQ(ToHex(Body(describe, 1)), ToHex(FromHex("02 000174 04 ffff 00012a 08 03")));
  EXPECT_EQ(ToHex(Body(describe, 3)), ToHex(FromHex("02 0274 04 00 022a 08 03 00")));
  // v0 has no pattern type: it means literal.
  auto v0 = DecodeBody<DescribeAclsRequest>(0, FromHex("02 000174 ffff 00012a 08 03"));
  ASSERT_TRUE(v0.ok()) << v0.status();
  EXPECT_EQ(v0->pattern_type_filter, ToWire(AclPatternType::kLiteral));
  EXPECT_FALSE(v0->principal_filter.has_value());

  CreateAclsRequest create;
  create.creations = {{ToWire(AclResourceType::kTopic), "t", ToWire(AclPatternType::kPrefixed),
                       "User:a", "*", ToWire(AclOperation::kWrite),
                       ToWire(AclPermissionType::kAllow)}};
  const std::string user = FromHex("557365723a61");  // "User:a"
  EXPECT_EQ(ToHex(Body(create, 0)), ToHex(FromHex("00000001 02 000174 0006") + user +
                                          FromHex("00012a 04 03")));
  EXPECT_EQ(ToHex(Body(create, 1)), ToHex(FromHex("00000001 02 000174 04 0006") + user +
                                          FromHex("00012a 04 03")));
  EXPECT_EQ(ToHex(Body(create, 2)),
            ToHex(FromHex("02 02 0274 04 07") + user + FromHex("022a 04 03 00 00")));

  // The match-everything filter: ANY and nulls.
  DeleteAclsRequest del;
  del.filters.push_back({});
  auto& f = del.filters[0];
  f.resource_type_filter = ToWire(AclResourceType::kAny);
  f.pattern_type_filter = ToWire(AclPatternType::kAny);
  f.operation = ToWire(AclOperation::kAny);
  f.permission_type = ToWire(AclPermissionType::kAny);
  EXPECT_EQ(ToHex(Body(del, 1)), ToHex(FromHex("00000001 01 ffff 01 ffff ffff 01 01")));
  EXPECT_EQ(ToHex(Body(del, 3)), ToHex(FromHex("02 01 00 01 00 00 01 01 00 00")));
}

TEST(GoldenTest, UnknownTagsAreSkippedAndOrderIsChecked) {
  const std::string base = FromHex("0b") + "librdkafka" + FromHex("06") + "2.0.2";
  auto with_tag = DecodeBody<ApiVersionsRequest>(3, base + FromHex("01 07 03 aabbcc"));
  ASSERT_TRUE(with_tag.ok()) << with_tag.status();
  EXPECT_EQ(with_tag->client_software_version, "2.0.2");
  EXPECT_FALSE(DecodeBody<ApiVersionsRequest>(3, base + FromHex("02 07 00 03 00")).ok());
  EXPECT_FALSE(DecodeBody<ApiVersionsRequest>(3, base + FromHex("01 07 09 aa")).ok());
}

TEST(GoldenTest, KnownTagCarriesResponseField) {
  CreateTopicsResponse response;
  response.topics.push_back({});
  response.topics[0].name = "t";
  response.topics[0].topic_config_error_code = 40;
  std::string body = Body(response, 5);
  // ... num_partitions ffffffff, replication ffff, configs null 00, then tags: 1 tag, tag 0,
  // size 2, value 0028.
  EXPECT_NE(ToHex(body).find("ffffffffffff000100020028"), std::string::npos) << ToHex(body);
  auto back = DecodeBody<CreateTopicsResponse>(5, body);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->topics[0].topic_config_error_code, 40);
}

}  // namespace
}  // namespace mink::kafka
