// Every API, every version in its range: encode a fully populated sample, decode it, re-encode
// and compare the bytes; every proper prefix of the encoding must fail to decode (cleanly); and
// whole frames (size, header, body) parse back to the same header and body.

#include <gtest/gtest.h>

#include <string>

#include "kafka/protocol/messages.h"
#include "kafka/protocol/tests/samples.h"

namespace mink::kafka {
namespace {

using testing::SampleRequest;
using testing::SampleResponse;

std::string Encode(const Request& m, int16_t v) {
  std::string out;
  Status s = EncodeRequest(m, v, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

std::string Encode(const Response& m, int16_t v) {
  std::string out;
  Status s = EncodeResponse(m, v, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

TEST(RoundTripTest, EveryRequestVersionReencodesIdentically) {
  int checked = 0;
  for (const ApiInfo& api : AllApis()) {
    Request sample = SampleRequest(api.key);
    ASSERT_EQ(ApiKeyOf(sample), static_cast<int16_t>(api.key)) << api.name;
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      SCOPED_TRACE(std::string(api.name) + " v" + std::to_string(v));
      std::string bytes = Encode(sample, v);
      auto decoded = DecodeRequest(static_cast<int16_t>(api.key), v, bytes);
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      EXPECT_EQ(Encode(*decoded, v), bytes);
      ++checked;
    }
  }
  EXPECT_GE(checked, 100);
}

TEST(RoundTripTest, EveryResponseVersionReencodesIdentically) {
  for (const ApiInfo& api : AllApis()) {
    Response sample = SampleResponse(api.key);
    ASSERT_EQ(ApiKeyOf(sample), static_cast<int16_t>(api.key)) << api.name;
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      SCOPED_TRACE(std::string(api.name) + " v" + std::to_string(v));
      std::string bytes = Encode(sample, v);
      auto decoded = DecodeResponse(static_cast<int16_t>(api.key), v, bytes);
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      EXPECT_EQ(Encode(*decoded, v), bytes);
    }
  }
}

TEST(RoundTripTest, FlexibleVersionsAreCompact) {
  // The same Metadata response is smaller in v9 (compact) than in v8.
  Response sample = SampleResponse(ApiKey::kMetadata);
  EXPECT_LT(Encode(sample, 9).size(), Encode(sample, 8).size());
}

TEST(RoundTripTest, EveryTruncationFailsCleanly) {
  size_t attempts = 0;
  for (const ApiInfo& api : AllApis()) {
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      const std::string req = Encode(SampleRequest(api.key), v);
      const std::string resp = Encode(SampleResponse(api.key), v);
      for (size_t n = 0; n < req.size(); ++n) {
        auto r = DecodeRequest(static_cast<int16_t>(api.key), v, req.substr(0, n));
        ASSERT_FALSE(r.ok()) << api.name << " v" << v << " request prefix " << n;
        EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
        ++attempts;
      }
      for (size_t n = 0; n < resp.size(); ++n) {
        auto r = DecodeResponse(static_cast<int16_t>(api.key), v, resp.substr(0, n));
        ASSERT_FALSE(r.ok()) << api.name << " v" << v << " response prefix " << n;
        ++attempts;
      }
      // One byte too many is refused as well.
      EXPECT_FALSE(DecodeRequest(static_cast<int16_t>(api.key), v, req + "x").ok());
    }
  }
  EXPECT_GT(attempts, 10000u);
  EXPECT_LT(attempts, 2000000u);  // bounded
}

TEST(RoundTripTest, ErrorsNameApiVersionAndField) {
  std::string bytes = Encode(SampleRequest(ApiKey::kProduce), 7);
  auto r = DecodeRequest(0, 7, bytes.substr(0, 17));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("malformed Produce v7 request: topic_data.name: ", 0), 0u)
      << r.status();
}

TEST(RoundTripTest, UnsupportedVersionsAndKeysAreRefused) {
  EXPECT_FALSE(DecodeRequest(0, 8, "").ok());
  EXPECT_FALSE(DecodeRequest(1, 13, "").ok());
  EXPECT_FALSE(DecodeRequest(99, 0, "").ok());
  EXPECT_FALSE(DecodeRequest(0, -1, "").ok());
  std::string out;
  EXPECT_FALSE(EncodeRequest(SampleRequest(ApiKey::kMetadata), 10, &out).ok());
}

TEST(RoundTripTest, RequestFramesCarryHeaderAndBody) {
  for (const ApiInfo& api : AllApis()) {
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      RequestHeader header{static_cast<int16_t>(api.key), v, 1000 + v, "client-" + std::to_string(v)};
      std::string frame;
      ASSERT_TRUE(AppendRequestFrame(header, SampleRequest(api.key), &frame).ok());
      auto parsed = ParseRequestFrame(std::string_view(frame).substr(4));
      ASSERT_TRUE(parsed.ok()) << api.name << " v" << v << ": " << parsed.status();
      EXPECT_EQ(parsed->header.api_key, header.api_key);
      EXPECT_EQ(parsed->header.api_version, v);
      EXPECT_EQ(parsed->header.correlation_id, 1000 + v);
      EXPECT_EQ(parsed->header.client_id, header.client_id);
      EXPECT_EQ(Encode(parsed->body, v), Encode(SampleRequest(api.key), v));

      std::string response;
      ASSERT_TRUE(AppendResponseFrame(77, v, SampleResponse(api.key), &response).ok());
      auto back = ParseResponseFrame(static_cast<int16_t>(api.key), v,
                                     std::string_view(response).substr(4));
      ASSERT_TRUE(back.ok()) << api.name << " v" << v << ": " << back.status();
      EXPECT_EQ(back->correlation_id, 77);
    }
  }
}

// A fetch response whose large records are spliced in by the sender (writev) is byte for byte
// the copied frame, in every version, with small records still copied.
TEST(RoundTripTest, SplicedFetchFramesEqualCopiedFrames) {
  FetchResponse fetch;
  for (int t = 0; t < 2; ++t) {
    FetchResponse::Topic topic;
    topic.topic = "topic-" + std::to_string(t);
    for (int p = 0; p < 3; ++p) {
      FetchResponse::Partition partition;
      partition.partition_index = p;
      partition.high_watermark = 1000 * p;
      partition.aborted_transactions.emplace();
      if (p == 0) {
        partition.records = std::string(Writer::kMinSplicedRecords + 5 + t, static_cast<char>('a' + t));
      } else if (p == 1) {
        partition.records = std::string(100, 'z');  // small: copied
      }  // p == 2: null
      topic.partitions.push_back(std::move(partition));
    }
    fetch.responses.push_back(std::move(topic));
  }
  const ApiInfo* api = FindApi(static_cast<int16_t>(ApiKey::kFetch));
  ASSERT_NE(api, nullptr);
  const Response response(fetch);
  for (int16_t v = api->min_version; v <= api->max_version; ++v) {
    std::string copied;
    ASSERT_TRUE(AppendResponseFrame(9, v, response, &copied).ok());
    std::string frame = "x";  // appended after what is there
    std::vector<Splice> splices;
    ASSERT_TRUE(AppendResponseFrame(9, v, response, &frame, &splices).ok());
    ASSERT_EQ(splices.size(), 2u) << "v" << v;
    std::string gathered;
    size_t at = 1;
    for (const Splice& s : splices) {
      ASSERT_GE(s.at, at);
      gathered.append(frame, at, s.at - at);
      gathered.append(s.bytes);
      at = s.at;
    }
    gathered.append(frame, at, std::string::npos);
    EXPECT_EQ(gathered, copied) << "v" << v;
  }
}

TEST(RoundTripTest, ErrorResponsesEncodeForEveryApiAndVersion) {
  for (const ApiInfo& api : AllApis()) {
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      Response r = ErrorResponseFor(SampleRequest(api.key), v, ErrorCode::kInvalidRequest);
      ASSERT_EQ(ApiKeyOf(r), static_cast<int16_t>(api.key));
      std::string out;
      Status s = EncodeResponse(r, v, &out);
      EXPECT_TRUE(s.ok()) << api.name << " v" << v << ": " << s;
      EXPECT_NE(out.find(std::string("\x00\x2a", 2)), std::string::npos)
          << api.name << " v" << v << " carries no error 42";
    }
  }
}

TEST(RoundTripTest, ProduceErrorResponseCoversEveryPartition) {
  const Request sample = SampleRequest(ApiKey::kProduce);
  const auto& request = std::get<ProduceRequest>(sample);
  ProduceResponse r = ErrorResponse(request, 7, ErrorCode::kCorruptMessage);
  ASSERT_EQ(r.responses.size(), 2u);
  ASSERT_EQ(r.responses[0].partition_responses.size(), 2u);
  EXPECT_EQ(r.responses[0].partition_responses[1].index, 1);
  EXPECT_EQ(r.responses[0].partition_responses[1].error_code, 2);
}

}  // namespace
}  // namespace mink::kafka
