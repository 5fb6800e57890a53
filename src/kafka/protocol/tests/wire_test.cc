// Primitives: varint vectors, compact encodings, bounds checks that never allocate from a length
// read off the wire, sticky errors, and the frame splitter.

#include <gtest/gtest.h>

#include "kafka/protocol/errors.h"
#include "kafka/protocol/frame.h"
#include "kafka/protocol/header.h"
#include "kafka/protocol/tests/test_util.h"
#include "kafka/protocol/wire.h"

namespace mink::kafka {
namespace {

using testing::FromHex;
using testing::ToHex;

MessageContext Ctx(bool flexible) {
  MessageContext c;
  c.name = "Test";
  c.version = flexible ? 9 : 1;
  c.kind = MessageContext::Kind::kRequest;
  c.flexible = flexible;
  return c;
}

TEST(WireTest, ZigzagVarintVectors) {
  const std::pair<int32_t, const char*> cases[] = {
      {0, "00"}, {-1, "01"}, {1, "02"}, {63, "7e"}, {-64, "7f"}, {64, "8001"}, {-65, "8101"},
      {INT32_MAX, "feffffff0f"}, {INT32_MIN, "ffffffff0f"}};
  for (const auto& [value, hex] : cases) {
    std::string out;
    AppendVarint(&out, value);
    EXPECT_EQ(ToHex(out), hex) << value;
    EXPECT_EQ(VarintSize(value), static_cast<int>(out.size()));
    Reader r(out, Ctx(false));
    int32_t back = 0;
    r.Varint("v", back);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(back, value);
  }
  std::string out;
  AppendVarlong(&out, INT64_MIN);
  EXPECT_EQ(ToHex(out), "ffffffffffffffffff01");
  Reader r(out, Ctx(false));
  int64_t back = 0;
  r.Varlong("v", back);
  EXPECT_EQ(back, INT64_MIN);
}

TEST(WireTest, UnsignedVarintRejectsOverlongAndTruncated) {
  uint32_t v = 0;
  Reader overlong(FromHex("ffffffffff01"), Ctx(true));
  overlong.UnsignedVarint("n", v);
  EXPECT_FALSE(overlong.ok());
  Reader truncated(FromHex("80"), Ctx(true));
  truncated.UnsignedVarint("n", v);
  EXPECT_FALSE(truncated.ok());
  Reader big(FromHex("ffffffff1f"), Ctx(true));  // 5 bytes but more than 32 bits
  big.UnsignedVarint("n", v);
  EXPECT_FALSE(big.ok());
}

TEST(WireTest, CompactEncodings) {
  std::string out;
  Writer w(&out, Ctx(true));
  w.String("s", "abc");
  w.NullableString("n", std::nullopt);
  w.Array("a", std::vector<int32_t>{}, [&](int32_t x) { w.Int32(nullptr, x); });
  w.NullableArray("na", std::optional<std::vector<int32_t>>(), [&](int32_t x) { w.Int32(nullptr, x); });
  w.NullableBytes("b", std::string("\x01", 1));
  w.Tags();
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(ToHex(out), "0461626300" "01" "00" "0201" "00");

  Reader r(out, Ctx(true));
  std::string s;
  std::optional<std::string> n = "x";
  std::vector<int32_t> a{1};
  std::optional<std::vector<int32_t>> na = std::vector<int32_t>{1};
  std::optional<std::string> b;
  r.String("s", s);
  r.NullableString("n", n);
  r.Array("a", a, [&](int32_t& x) { r.Int32(nullptr, x); });
  r.NullableArray("na", na, [&](int32_t& x) { r.Int32(nullptr, x); });
  r.NullableBytes("b", b);
  r.Tags();
  r.ExpectEnd();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(s, "abc");
  EXPECT_FALSE(n.has_value());
  EXPECT_TRUE(a.empty());
  EXPECT_FALSE(na.has_value());
  EXPECT_EQ(b, std::string("\x01", 1));
}

TEST(WireTest, ClassicEncodings) {
  std::string out;
  Writer w(&out, Ctx(false));
  w.String("s", "ab");
  w.NullableString("n", std::nullopt);
  w.Bytes("b", "");
  w.NullableBytes("nb", std::nullopt);
  w.Bool("t", true);
  w.Int64("i", -2);
  w.Tags();  // nothing in non-flexible versions
  EXPECT_EQ(ToHex(out), "00026162" "ffff" "00000000" "ffffffff" "01" "fffffffffffffffe");
}

TEST(WireTest, LengthsAreCheckedBeforeAllocating) {
  // A string claiming 32767 bytes, an array claiming 2^31-1 elements, bytes claiming 2 GiB:
  // each fails with the bytes left, without allocating what the length claims.
  std::string s;
  Reader r1(FromHex("7fff 6162"), Ctx(false));
  r1.String("name", s);
  EXPECT_FALSE(r1.ok());
  EXPECT_NE(r1.status().message().find("length 32767 exceeds the 2 bytes left"), std::string::npos)
      << r1.status();
  std::vector<std::string> v;
  Reader r2(FromHex("7fffffff 0000"), Ctx(false));
  r2.Array("topics", v, [&](std::string& e) { r2.String(nullptr, e); });
  EXPECT_FALSE(r2.ok());
  EXPECT_TRUE(v.empty());
  std::optional<std::string> b;
  Reader r3(FromHex("7fffffff 00"), Ctx(false));
  r3.NullableBytes("records", b);
  EXPECT_FALSE(r3.ok());
  Reader r4(FromHex("fe"), Ctx(false));
  std::string t;
  r4.String("x", t);  // truncated length
  EXPECT_FALSE(r4.ok());
  Reader r5(FromHex("fffe 00"), Ctx(false));  // -2
  r5.String("x", t);
  EXPECT_NE(r5.status().message().find("negative length"), std::string::npos);
  Reader r6(FromHex("ffff"), Ctx(false));
  r6.String("x", t);
  EXPECT_NE(r6.status().message().find("null is not allowed"), std::string::npos);
}

TEST(WireTest, ErrorsAreStickyAndNameThePath) {
  Reader r(FromHex("00000001 0001"), Ctx(false));
  struct Topic {
    std::string name;
    int32_t id = 7;
  };
  std::vector<Topic> topics;
  r.Array("topics", topics, [&](Topic& t) {
    r.String("name", t.name);
    r.Int32("id", t.id);
  });
  int32_t after = 5;
  r.Int32("after", after);
  EXPECT_EQ(after, 5);
  EXPECT_EQ(r.status().message(),
            "malformed Test v1 request: topics.name: length 1 exceeds the 0 bytes left");
}

TEST(WireTest, WriterRefusesWhatTheVersionCannotCarry) {
  std::string out;
  Writer w(&out, Ctx(false));
  w.String("s", std::string(40000, 'x'));
  EXPECT_FALSE(w.ok());
  std::string out2;
  Writer w2(&out2, Ctx(false));
  w2.NullableString("s", std::nullopt, /*nullable=*/false);
  EXPECT_FALSE(w2.ok());
}

TEST(HeaderTest, RequestHeaderVersionsFollowTheApi) {
  EXPECT_EQ(RequestHeaderVersion(ApiKey::kMetadata, 8), 1);
  EXPECT_EQ(RequestHeaderVersion(ApiKey::kMetadata, 9), 2);
  EXPECT_EQ(ResponseHeaderVersion(ApiKey::kMetadata, 9), 1);
  EXPECT_EQ(ResponseHeaderVersion(ApiKey::kApiVersions, 3), 0);
  EXPECT_EQ(ResponseHeaderVersion(ApiKey::kProduce, 7), 0);
  // ApiVersions v4 (platformatic) is beyond our range but still parsed as header v2.
  size_t size = 0;
  auto h = DecodeRequestHeader(FromHex("0012 0004 00000009 0001 78 00 | 0478797a"), &size);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->api_version, 4);
  EXPECT_EQ(h->client_id, "x");
  EXPECT_EQ(size, 12u);
  // Unknown key: header v1.
  auto u = DecodeRequestHeader(FromHex("0063 0000 00000001 ffff"), &size);
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(u->client_id.has_value());
  EXPECT_FALSE(DecodeRequestHeader(FromHex("0012 0003 0000"), &size).ok());
  EXPECT_FALSE(DecodeRequestHeader(FromHex("0012 ffff 00000001 ffff"), &size).ok());
}

TEST(FrameTest, SplitsFramesFedByteByByte) {
  const std::string stream = FromHex("00000002 aabb 00000000 00000001 cc");
  FrameSplitter splitter;
  std::vector<std::string> frames;
  for (char c : stream) {
    ASSERT_TRUE(splitter.Append(std::string_view(&c, 1)).ok());
    while (true) {
      auto next = splitter.Next();
      ASSERT_TRUE(next.ok());
      if (!next->has_value()) break;
      frames.push_back(**next);
    }
  }
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(ToHex(frames[0]), "aabb");
  EXPECT_EQ(frames[1], "");
  EXPECT_EQ(ToHex(frames[2]), "cc");
  EXPECT_EQ(splitter.buffered(), 0u);
}

TEST(FrameTest, OversizedAndNegativeSizesFailBeforeBuffering) {
  FrameSplitter small(1024);
  EXPECT_TRUE(small.Append(FromHex("0000")).ok());
  Status s = small.Append(FromHex("0401") + std::string(100, 'x'));  // 1025 bytes announced
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(small.buffered(), 2u);  // the payload was not buffered
  EXPECT_FALSE(small.Next().ok());
  FrameSplitter negative;
  EXPECT_FALSE(negative.Append(FromHex("ffffffff")).ok());
  // The default limit is 100 MiB.
  EXPECT_TRUE(ParseFrameSize(FromHex("06400000").data()).ok());
  EXPECT_FALSE(ParseFrameSize(FromHex("06400001").data()).ok());
  size_t frame_size = 0;
  auto partial = PeekFrame(FromHex("00000003 aa"), &frame_size);
  ASSERT_TRUE(partial.ok());
  EXPECT_FALSE(partial->has_value());
}

TEST(FrameTest, MissingCountsTheRestOfTheFrame) {
  FrameSplitter splitter;
  ASSERT_TRUE(splitter.Append(FromHex("00000010 aabb")).ok());
  EXPECT_EQ(splitter.missing(), 14u);
}

TEST(ErrorsTest, StatusMapping) {
  EXPECT_EQ(ErrorCodeFromStatus(Status::Ok()), ErrorCode::kNone);
  EXPECT_EQ(ErrorCodeFromStatus(NotFoundError("t")), ErrorCode::kUnknownTopicOrPartition);
  EXPECT_EQ(ErrorCodeFromStatus(OutOfRangeError("o")), ErrorCode::kOffsetOutOfRange);
  EXPECT_EQ(ErrorCodeFromStatus(AbortedError("fenced")), ErrorCode::kNotLeaderOrFollower);
  EXPECT_EQ(ErrorCodeFromStatus(InvalidArgumentError("x")), ErrorCode::kInvalidRequest);
  EXPECT_EQ(ErrorCodeFromStatus(InvalidArgumentError("x"), ErrorContext::kProduce),
            ErrorCode::kCorruptMessage);
  EXPECT_EQ(ErrorCodeFromStatus(DataLossError("x")), ErrorCode::kCorruptMessage);
  EXPECT_EQ(ErrorCodeFromStatus(UnavailableError("x")), ErrorCode::kLeaderNotAvailable);
  EXPECT_EQ(ErrorCodeFromStatus(UnavailableError("x"), ErrorContext::kProduce),
            ErrorCode::kRequestTimedOut);
  EXPECT_EQ(ErrorCodeFromStatus(UnavailableError("x"), ErrorContext::kGroup),
            ErrorCode::kCoordinatorNotAvailable);
  EXPECT_EQ(ErrorCodeFromStatus(AlreadyExistsError("x")), ErrorCode::kTopicAlreadyExists);
  EXPECT_EQ(ErrorCodeFromStatus(ResourceExhaustedError("x"), ErrorContext::kProduce),
            ErrorCode::kMessageTooLarge);
  EXPECT_EQ(ErrorCodeFromStatus(InternalError("x")), ErrorCode::kUnknownServerError);
  EXPECT_EQ(ErrorCodeName(ErrorCode::kNotLeaderOrFollower), "NOT_LEADER_OR_FOLLOWER");
  EXPECT_EQ(ToWire(ErrorCode::kFencedMemberEpoch), 110);
  // The codes the ACL APIs answer with.
  EXPECT_EQ(ToWire(ErrorCode::kClusterAuthorizationFailed), 31);
  EXPECT_EQ(ErrorCodeName(ErrorCode::kClusterAuthorizationFailed), "CLUSTER_AUTHORIZATION_FAILED");
  EXPECT_EQ(ToWire(ErrorCode::kSecurityDisabled), 54);
  EXPECT_EQ(ErrorCodeName(ErrorCode::kSecurityDisabled), "SECURITY_DISABLED");
  EXPECT_FALSE(IsRetriable(ErrorCode::kSecurityDisabled));
  EXPECT_TRUE(IsRetriable(ErrorCode::kNotLeaderOrFollower));
  EXPECT_FALSE(IsRetriable(ErrorCode::kTopicAlreadyExists));
}

}  // namespace
}  // namespace mink::kafka
