#include "table/bucketing.h"

#include <gtest/gtest.h>

namespace mink::table {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

LogicalType T(const char* text) { return *ParseType(text); }

// The test vectors of docs/tables.md, Bucketing (from Fluss's own bucketing tests).
TEST(Bucketing, FlussTestVectors) {
  struct Case {
    std::string key;
    int n, native, paimon, iceberg;
  } cases[] = {
      {Bytes({0x00, 0x0a}), 7, 1, 1, 3},
      {Bytes({0x00, 0x0a, 0x0a, 0x0a}), 12, 0, 11, 4},
      {"2bb87d68-baf9-4e64-90f9-f80910419fa6", 16, 6, 12, 12},
      {"The quick brown fox jumps over the lazy dog", 8, 6, 0, 3},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(BucketOf(BucketFunction::kNative, c.key, c.n), c.native) << c.key;
    EXPECT_EQ(BucketOf(BucketFunction::kPaimon, c.key, c.n), c.paimon) << c.key;
    EXPECT_EQ(BucketOf(BucketFunction::kIceberg, c.key, c.n), c.iceberg) << c.key;
  }
}

TEST(Bucketing, HashIntermediates) {
  EXPECT_EQ(FlinkMurmur42(Bytes({0x00, 0x0a})), 1530214680);
  EXPECT_EQ(FlinkMurmur42(Bytes({0x00, 0x0a, 0x0a, 0x0a})), 1248044039);
  EXPECT_EQ(FlinkMurmur42("2bb87d68-baf9-4e64-90f9-f80910419fa6"), -1627959308);
  EXPECT_EQ(FlinkMurmur42("The quick brown fox jumps over the lazy dog"), 466024576);
  EXPECT_EQ(Murmur3x86("The quick brown fox jumps over the lazy dog", 0), 776992547);
  EXPECT_EQ(Murmur3x86(Bytes({0x00, 0x0a}), 0), -1435099420);
}

void ExpectNative(const std::vector<Value>& fields, const std::vector<LogicalType>& types,
                  const std::string& expected_bytes, std::vector<int> buckets) {
  auto key = EncodeCompactedKey(fields, types);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, expected_bytes);
  int ns[] = {1, 2, 3, 4, 8, 16, 128};
  for (size_t i = 0; i < buckets.size(); ++i) {
    EXPECT_EQ(BucketOf(BucketFunction::kNative, *key, ns[i]), buckets[i]) << "n=" << ns[i];
  }
}

TEST(Bucketing, CompactedKeyEncoderAndNativeBuckets) {
  ExpectNative({Value::Int(1)}, {T("INT")}, Bytes({0x01}), {0, 0, 0, 0, 4, 12, 108});
  ExpectNative({Value::Int(-1)}, {T("INT")}, Bytes({0xff, 0xff, 0xff, 0xff, 0x0f}),
               {0, 0, 0, 2, 2, 10, 10});
  ExpectNative({Value::Int(300)}, {T("BIGINT")}, Bytes({0xac, 0x02}), {0, 1, 1, 1, 5, 5, 21});
  ExpectNative({Value::Bytes("a")}, {T("STRING")}, Bytes({0x01, 0x61}), {0, 1, 1, 3, 3, 11, 123});
  ExpectNative({Value::Int(1), Value::Bytes("hello")}, {T("INT"), T("STRING")},
               Bytes({0x01, 0x05, 'h', 'e', 'l', 'l', 'o'}), {0, 0, 2, 0, 4, 4, 4});
}

TEST(Bucketing, PaimonBinaryRowKeys) {
  auto one = EncodePaimonKey({Value::Int(1)}, {T("INT")});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::string(8, '\0') + Bytes({1, 0, 0, 0, 0, 0, 0, 0}));
  int ns[] = {2, 3, 4, 8, 16};
  int int_buckets[] = {0, 1, 2, 6, 14};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(BucketOf(BucketFunction::kPaimon, *one, ns[i]), int_buckets[i]);
  auto abc = EncodePaimonKey({Value::Bytes("abc")}, {T("STRING")});
  ASSERT_TRUE(abc.ok());
  EXPECT_EQ(*abc, std::string(8, '\0') + Bytes({0x61, 0x62, 0x63, 0, 0, 0, 0, 0x83}));
  int abc_buckets[] = {1, 2, 3, 3, 3};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(BucketOf(BucketFunction::kPaimon, *abc, ns[i]), abc_buckets[i]);
}

TEST(Bucketing, IcebergSingleValueKeys) {
  // The Iceberg spec's hash examples: long 34 -> 2017239379, "iceberg" -> 1210000089.
  auto l34 = EncodeIcebergKey({Value::Int(34)}, {T("BIGINT")});
  ASSERT_TRUE(l34.ok());
  EXPECT_EQ(Murmur3x86(*l34, 0), 2017239379);
  auto ice = EncodeIcebergKey({Value::Bytes("iceberg")}, {T("STRING")});
  EXPECT_EQ(Murmur3x86(*ice, 0), 1210000089);
  struct Case {
    Value v;
    const char* type;
    int b4, b10, b16;
  } cases[] = {{Value::Int(1), "INT", 0, 6, 4},
               {Value::Int(42), "BIGINT", 2, 6, 14},
               {Value::Int(34), "INT", 3, 9, 3},
               {Value::Bytes("iceberg"), "STRING", 1, 9, 9}};
  for (const auto& c : cases) {
    auto key = EncodeIcebergKey({c.v}, {T(c.type)});
    ASSERT_TRUE(key.ok());
    EXPECT_EQ(BucketOf(BucketFunction::kIceberg, *key, 4), c.b4);
    EXPECT_EQ(BucketOf(BucketFunction::kIceberg, *key, 10), c.b10);
    EXPECT_EQ(BucketOf(BucketFunction::kIceberg, *key, 16), c.b16);
  }
  EXPECT_FALSE(EncodeIcebergKey({Value::Int(1), Value::Int(2)}, {T("INT"), T("INT")}).ok());
  EXPECT_FALSE(EncodeIcebergKey({Value::Bool(true)}, {T("BOOLEAN")}).ok());
}

TEST(Bucketing, NullKeyFieldsAreRejected) {
  auto r = EncodeCompactedKey({Value()}, {T("INT")});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mink::table
