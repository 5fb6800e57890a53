#include "table/types.h"

#include <gtest/gtest.h>

#include "table/row_codec.h"

namespace mink::table {
namespace {

TEST(Types, ParsesEveryType) {
  const char* texts[] = {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
                         "DECIMAL(10,2)", "STRING", "BYTES", "DATE", "TIME(3)", "TIMESTAMP(3)",
                         "TIMESTAMP_LTZ(6)", "ARRAY<INT>", "MAP<STRING, BIGINT>",
                         "ROW<a INT, b STRING NOT NULL>", "ARRAY<ROW<x DOUBLE>>"};
  for (const char* text : texts) {
    auto t = ParseType(text);
    ASSERT_TRUE(t.ok()) << text << ": " << t.status();
    EXPECT_EQ(t->ToString(), text);
  }
  EXPECT_EQ(ParseType("decimal(5)")->ToString(), "DECIMAL(5,0)");
  EXPECT_EQ(ParseType("timestamp")->ToString(), "TIMESTAMP(6)");
  EXPECT_EQ(ParseType("TIMESTAMP(3) WITH LOCAL TIME ZONE")->ToString(), "TIMESTAMP_LTZ(3)");
}

TEST(Types, BadTypesNameTheProblem) {
  auto bad = ParseType("DECIMAL(50,2)");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("precision"), std::string::npos);
  EXPECT_FALSE(ParseType("FOO").ok());
  EXPECT_FALSE(ParseType("ARRAY<INT").ok());
  EXPECT_FALSE(ParseType("MAP<ARRAY<INT>, INT>").ok());
}

TEST(Types, ParsesColumns) {
  auto c = ParseColumn("id BIGINT NOT NULL");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->name, "id");
  EXPECT_TRUE(c->not_null);
  auto d = ParseColumn("amount DECIMAL(10,2)");
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->not_null);
  EXPECT_EQ(d->type.scale, 2);
  EXPECT_FALSE(ParseColumn("id").ok());
  EXPECT_FALSE(ParseColumn("id INT NOT").ok());
}

TEST(RowCodec, RoundTripsEveryType) {
  std::vector<LogicalType> types;
  for (const char* t : {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
                        "DECIMAL(38,4)", "STRING", "BYTES", "DATE", "TIME(3)", "TIMESTAMP(9)",
                        "ARRAY<INT>", "MAP<STRING, INT>", "ROW<a INT, b STRING>", "INT"}) {
    types.push_back(*ParseType(t));
  }
  int128 big = static_cast<int128>(-123456789012345678LL) * 1000000000000LL;
  Row row = {Value::Bool(true), Value::Int(-5), Value::Int(-300), Value::Int(-70000),
             Value::Int(INT64_MIN), Value::Double(1.5), Value::Double(-2.25), Value::Decimal(big),
             Value::Bytes("héllo"), Value::Bytes(std::string("\0\1", 2)), Value::Int(19000),
             Value::Int(3600000), Value::Int(1700000000123456789LL),
             Value::List({Value::Int(1), Value(), Value::Int(3)}),
             Value::List({Value::Bytes("k"), Value::Int(1), Value::Bytes("n"), Value()}),
             Value::List({Value::Int(7), Value()}), Value()};
  std::string bytes;
  EncodeRow(row, types, &bytes);
  auto back = DecodeRow(bytes, types);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == row);
  for (size_t len = 0; len < bytes.size(); ++len) {
    EXPECT_FALSE(DecodeRow(std::string_view(bytes).substr(0, len), types).ok()) << len;
  }
}

}  // namespace
}  // namespace mink::table
