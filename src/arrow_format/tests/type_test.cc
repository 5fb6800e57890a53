#include "arrow_format/type.h"

#include <gtest/gtest.h>

namespace mink::arrow {
namespace {

TEST(TypeTest, ToStringFollowsArrowConventions) {
  EXPECT_EQ(Null()->ToString(), "null");
  EXPECT_EQ(Bool()->ToString(), "bool");
  EXPECT_EQ(Int8()->ToString(), "int8");
  EXPECT_EQ(UInt64()->ToString(), "uint64");
  EXPECT_EQ(Float32()->ToString(), "float");
  EXPECT_EQ(Float64()->ToString(), "double");
  EXPECT_EQ(Decimal128(10, 2)->ToString(), "decimal128(10, 2)");
  EXPECT_EQ(Utf8()->ToString(), "string");
  EXPECT_EQ(Binary()->ToString(), "binary");
  EXPECT_EQ(Date32()->ToString(), "date32[day]");
  EXPECT_EQ(Time(TimeUnit::kSecond)->ToString(), "time32[s]");
  EXPECT_EQ(Time(TimeUnit::kMilli)->ToString(), "time32[ms]");
  EXPECT_EQ(Time(TimeUnit::kMicro)->ToString(), "time64[us]");
  EXPECT_EQ(Time(TimeUnit::kNano)->ToString(), "time64[ns]");
  EXPECT_EQ(Timestamp(TimeUnit::kMilli, "UTC")->ToString(), "timestamp[ms, tz=UTC]");
  EXPECT_EQ(Timestamp(TimeUnit::kNano)->ToString(), "timestamp[ns]");
  EXPECT_EQ(List(Int64())->ToString(), "list<item: int64>");
  EXPECT_EQ(Map(Utf8(), Int64())->ToString(), "map<string, int64>");
  EXPECT_EQ(Struct({Field("a", Int32()), Field("b", Utf8(), false)})->ToString(),
            "struct<a: int32, b: string not null>");
}

TEST(TypeTest, TimePicksWidthFromUnit) {
  EXPECT_EQ(Time(TimeUnit::kSecond)->id(), TypeId::kTime32);
  EXPECT_EQ(Time(TimeUnit::kMilli)->byte_width(), 4);
  EXPECT_EQ(Time(TimeUnit::kMicro)->id(), TypeId::kTime64);
  EXPECT_EQ(Time(TimeUnit::kNano)->byte_width(), 8);
}

TEST(TypeTest, EqualityComparesParameters) {
  EXPECT_EQ(*Int64(), *Int64());
  EXPECT_FALSE(Int64()->Equals(*UInt64()));
  EXPECT_TRUE(Decimal128(10, 2)->Equals(*Decimal128(10, 2)));
  EXPECT_FALSE(Decimal128(10, 2)->Equals(*Decimal128(10, 3)));
  EXPECT_FALSE(Decimal128(10, 2)->Equals(*Decimal128(11, 2)));
  EXPECT_FALSE(Timestamp(TimeUnit::kMilli, "UTC")->Equals(*Timestamp(TimeUnit::kMilli)));
  EXPECT_FALSE(Timestamp(TimeUnit::kMilli)->Equals(*Timestamp(TimeUnit::kMicro)));
  EXPECT_TRUE(List(Int32())->Equals(*List(Int32())));
  EXPECT_FALSE(List(Int32())->Equals(*List(Int64())));
  EXPECT_FALSE(List(Field("item", Int32(), false))->Equals(*List(Int32())));
  EXPECT_FALSE(List(Field("element", Int32()))->Equals(*List(Int32())));
  EXPECT_FALSE(Map(Utf8(), Int32())->Equals(*Map(Utf8(), Int32(), /*keys_sorted=*/true)));
  EXPECT_FALSE(Struct({Field("a", Int32())})->Equals(*Struct({Field("b", Int32())})));
}

TEST(TypeTest, MetadataTakesPartInEqualityUnlessIgnored) {
  Field plain("x", Int32());
  Field tagged = plain.WithMetadata({{"k", "v"}});
  EXPECT_FALSE(plain.Equals(tagged));
  EXPECT_TRUE(plain.Equals(tagged, /*check_metadata=*/false));
  auto s1 = Struct({plain});
  auto s2 = Struct({tagged});
  EXPECT_FALSE(s1->Equals(*s2));
  EXPECT_TRUE(s1->Equals(*s2, false));
}

TEST(TypeTest, MapHasCanonicalEntries) {
  auto map = Map(Utf8(), Float64());
  ASSERT_EQ(map->num_children(), 1);
  const Field& entries = map->child(0);
  EXPECT_EQ(entries.name(), "entries");
  EXPECT_FALSE(entries.nullable());
  ASSERT_EQ(entries.type()->id(), TypeId::kStruct);
  EXPECT_EQ(entries.type()->child(0).name(), "key");
  EXPECT_FALSE(entries.type()->child(0).nullable());
  EXPECT_EQ(entries.type()->child(1).name(), "value");
  EXPECT_TRUE(entries.type()->child(1).nullable());
}

TEST(TypeTest, CheckedFactoriesRejectBadParameters) {
  EXPECT_EQ(MakeDecimal128(0, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeDecimal128(39, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeDecimal128(5, 6).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(MakeDecimal128(38, 10).ok());
  EXPECT_FALSE(MakeMap(Field("entries", Int32()), false).ok());
  EXPECT_FALSE(MakeMap(Field("entries", Struct({Field("k", Int32())})), false).ok());
  EXPECT_TRUE(MakeMap(Field("e", Struct({Field("k", Int32()), Field("v", Int32())})), true).ok());
}

TEST(TypeTest, SchemaLooksUpFieldsAndCompares) {
  Schema schema({Field("a", Int32()), Field("b", Utf8(), false)}, {{"owner", "mink"}});
  EXPECT_EQ(schema.GetFieldIndex("b"), 1);
  EXPECT_EQ(schema.GetFieldIndex("zz"), -1);
  EXPECT_EQ(schema.ToString(), "a: int32\nb: string not null");
  Schema other({Field("a", Int32()), Field("b", Utf8(), false)});
  EXPECT_FALSE(schema.Equals(other));
  EXPECT_TRUE(schema.Equals(other, /*check_metadata=*/false));
}

}  // namespace
}  // namespace mink::arrow
