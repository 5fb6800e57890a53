// JSON -> Arrow -> IPC -> Arrow -> JSON round trips for every type, with nulls and nesting.

#include "cli/json_to_arrow.h"

#include <gtest/gtest.h>

#include "arrow_format/ipc.h"
#include "arrow_json/arrow_to_json.h"
#include "cli/tests/test_tables.h"

namespace mink::cli {
namespace {

using arrow_json::BatchToJsonLines;
using client::ParseTableDescription;
using arrow_json::RowFormatter;
using client::TableDescription;

// Converts `lines` with the table's converter, sends the batch through the IPC encoder and
// decoder (what DoPut and DoGet do on the wire) and formats it back as JSON lines.
std::string RoundTrip(const TableDescription& table, const std::vector<std::string>& lines) {
  auto converter = JsonRowConverter::Make(table, {});
  EXPECT_TRUE(converter.ok()) << converter.status();
  auto builder = BatchBuilder::Make(converter->schema(), converter->types());
  EXPECT_TRUE(builder.ok()) << builder.status();
  for (const auto& line : lines) {
    auto row = converter->ConvertLine(line);
    EXPECT_TRUE(row.ok()) << line << ": " << row.status();
    if (!row.ok()) return "";
    EXPECT_TRUE(builder->Append(*row).ok());
  }
  auto batch = builder->Finish();
  EXPECT_TRUE(batch.ok()) << batch.status();
  EXPECT_TRUE((*batch)->Validate().ok());
  arrow::IpcMessage schema = arrow::EncodeSchemaMessage(*(*batch)->schema());
  auto message = arrow::EncodeRecordBatchMessage(**batch);
  EXPECT_TRUE(message.ok());
  arrow::IpcDecoder decoder;
  EXPECT_TRUE(decoder.Decode(schema.metadata, nullptr).ok());
  auto decoded = decoder.Decode(message->metadata, arrow::Buffer::FromString(message->body));
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->batch->Validate().ok());
  auto text = BatchToJsonLines(*decoded->batch);
  EXPECT_TRUE(text.ok());
  return *text;
}

std::string Lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TableDescription Table(const std::string& columns_json) {
  auto d = ParseTableDescription(testing::DescribeJson("db.t", columns_json));
  EXPECT_TRUE(d.ok()) << d.status();
  return *d;
}

TEST(JsonArrowTest, QuickStartOrdersCanonicalOutput) {
  EXPECT_EQ(
      RoundTrip(testing::Orders(), {R"({"id": 1, "region": "us", "amount": "10.50"})",
                                    R"({"id": 2, "region": "eu", "amount": "3.00"})",
                                    R"({"id": 1, "region": "us", "amount": 11})"}),
      Lines({R"({"id":1,"region":"us","amount":10.50})", R"({"id":2,"region":"eu","amount":3.00})",
             R"({"id":1,"region":"us","amount":11.00})"}));
}

TEST(JsonArrowTest, ScalarTypesRoundTripWithNulls) {
  TableDescription t = Table(R"j([
      {"name": "b", "type": "BOOLEAN"}, {"name": "i8", "type": "TINYINT"},
      {"name": "i16", "type": "SMALLINT"}, {"name": "i32", "type": "INT"},
      {"name": "i64", "type": "BIGINT"}, {"name": "f", "type": "FLOAT"},
      {"name": "d", "type": "DOUBLE"}, {"name": "dec", "type": "DECIMAL(10,2)"},
      {"name": "dec0", "type": "DECIMAL(38,0)"}, {"name": "s", "type": "STRING"},
      {"name": "by", "type": "BYTES"}, {"name": "dt", "type": "DATE"}])j");
  std::vector<std::string> canonical = {
      R"({"b":true,"i8":-128,"i16":32767,"i32":-2147483648,"i64":9223372036854775807,"f":0.1,"d":0.1,"dec":-12345678.90,"dec0":99999999999999999999999999999999999999,"s":"h\u00e9llo \"q\"\n","by":"68656c6c6f","dt":"2024-02-29"})",
      R"({"b":false,"i8":127,"i16":-32768,"i32":0,"i64":-9223372036854775808,"f":-3.5,"d":1e+300,"dec":0.05,"dec0":-1,"s":"","by":"","dt":"1969-12-31"})",
      R"({"b":null,"i8":null,"i16":null,"i32":null,"i64":null,"f":null,"d":null,"dec":null,"dec0":null,"s":null,"by":null,"dt":null})",
      R"({"b":true,"i8":0,"i16":0,"i32":0,"i64":0,"f":"NaN","d":"-Infinity","dec":0.00,"dec0":0,"s":"\u0001","by":"00ff","dt":"1970-01-01"})",
  };
  std::string expected = Lines(canonical);
  // \u00e9 comes back as the UTF-8 character itself.
  size_t p = expected.find("\\u00e9");
  expected.replace(p, 6, "\xC3\xA9");
  EXPECT_EQ(RoundTrip(t, canonical), expected);
}

TEST(JsonArrowTest, MissingColumnsAreNull) {
  TableDescription t = Table(R"([{"name": "a", "type": "INT"}, {"name": "b", "type": "STRING"}])");
  EXPECT_EQ(RoundTrip(t, {"{}", R"({"b": "x"})"}),
            Lines({R"({"a":null,"b":null})", R"({"a":null,"b":"x"})"}));
}

TEST(JsonArrowTest, AlternativeInputFormsComeOutCanonical) {
  TableDescription t = Table(R"j([
      {"name": "i", "type": "BIGINT"}, {"name": "dec", "type": "DECIMAL(5,2)"},
      {"name": "by", "type": "BYTES"}, {"name": "dt", "type": "DATE"},
      {"name": "ts", "type": "TIMESTAMP(3)"}, {"name": "ltz", "type": "TIMESTAMP_LTZ(3)"},
      {"name": "d", "type": "DOUBLE"}])j");
  EXPECT_EQ(
      RoundTrip(t, {R"({"i": "42", "dec": 1.5, "by": "6F6B", "dt": 19782,
                             "ts": "2024-01-01 12:00:00.5", "ltz": "2024-01-01 14:00:00+02:00",
                             "d": "2.50"})",
                    R"({"i": 1e3, "dec": "-0.5e1", "dt": 0, "ts": 1704110400500,
                             "ltz": 1704110400500, "d": 3})",
                    // A TIMESTAMP given with an offset is that instant's UTC wall time.
                    R"({"ts": "2026-10-18T09:30:05Z"})",
                    R"({"ts": "2026-10-18T09:30:05.25+02:00"})"}),
      Lines(
          {R"({"i":42,"dec":1.50,"by":"6f6b","dt":"2024-02-29","ts":"2024-01-01T12:00:00.500","ltz":"2024-01-01T12:00:00.000Z","d":2.5})",
           R"({"i":1000,"dec":-5.00,"by":null,"dt":"1970-01-01","ts":"2024-01-01T12:00:00.500","ltz":"2024-01-01T12:00:00.500Z","d":3})",
           R"({"i":null,"dec":null,"by":null,"dt":null,"ts":"2026-10-18T09:30:05.000","ltz":null,"d":null})",
           R"({"i":null,"dec":null,"by":null,"dt":null,"ts":"2026-10-18T07:30:05.250","ltz":null,"d":null})"}));
}

TEST(JsonArrowTest, TimeTypesRoundTripAtEveryPrecision) {
  TableDescription t = Table(R"j([
      {"name": "t0", "type": "TIME(0)"}, {"name": "t3", "type": "TIME(3)"},
      {"name": "t6", "type": "TIME(6)"}, {"name": "t9", "type": "TIME(9)"},
      {"name": "ts0", "type": "TIMESTAMP(0)"}, {"name": "ts6", "type": "TIMESTAMP(6)"},
      {"name": "ts9", "type": "TIMESTAMP(9)"}, {"name": "l0", "type": "TIMESTAMP_LTZ(0)"},
      {"name": "l6", "type": "TIMESTAMP_LTZ(6)"}])j");
  std::vector<std::string> canonical = {
      R"({"t0":"23:59:59","t3":"12:30:05.250","t6":"00:00:00.000001","t9":"01:02:03.123456789","ts0":"1960-01-01T00:00:00","ts6":"2024-05-01T10:11:12.123456","ts9":"2262-04-11T23:47:16.854775807","l0":"2024-01-01T00:00:00Z","l6":"1969-12-31T23:59:59.999999Z"})",
      R"({"t0":null,"t3":null,"t6":null,"t9":null,"ts0":null,"ts6":null,"ts9":null,"l0":null,"l6":null})",
  };
  EXPECT_EQ(RoundTrip(t, canonical), Lines(canonical));
}

TEST(JsonArrowTest, NestedTypesRoundTripWithNulls) {
  TableDescription t = Table(R"([
      {"name": "arr", "type": "ARRAY<INT>"},
      {"name": "tags", "type": "ARRAY<STRING NOT NULL>"},
      {"name": "m", "type": "MAP<STRING, INT>"},
      {"name": "mi", "type": "MAP<INT, STRING>"},
      {"name": "r", "type": "ROW<x INT, y STRING>"},
      {"name": "deep", "type": "ARRAY<ROW<k STRING, v ARRAY<DECIMAL(5,2)>, w MAP<STRING, ARRAY<BIGINT>>>>"},
      {"name": "rr", "type": "ROW<inner ROW<d DATE, b BYTES>, n DOUBLE>"}])");
  std::vector<std::string> canonical = {
      R"({"arr":[1,null,3],"tags":["a","b"],"m":{"a":1,"b":null},"mi":[[1,"x"],[2,null]],"r":{"x":1,"y":"s"},"deep":[{"k":"k1","v":[1.50,null],"w":{"z":[9223372036854775807,null]}},null,{"k":null,"v":null,"w":null}],"rr":{"inner":{"d":"2024-01-01","b":"ff"},"n":0.5}})",
      R"({"arr":[],"tags":[],"m":{},"mi":[],"r":{"x":null,"y":null},"deep":[],"rr":{"inner":null,"n":null}})",
      R"({"arr":null,"tags":null,"m":null,"mi":null,"r":null,"deep":null,"rr":null})",
  };
  EXPECT_EQ(RoundTrip(t, canonical), Lines(canonical));
  // MAP from an array of pairs with string keys, ROW with missing fields.
  EXPECT_EQ(
      RoundTrip(t, {R"({"m": [["a", 1]], "mi": {"7": "seven"}, "r": {"y": "only"}})"}),
      Lines(
          {R"({"arr":null,"tags":null,"m":{"a":1},"mi":[[7,"seven"]],"r":{"x":null,"y":"only"},"deep":null,"rr":null})"}));
}

TEST(JsonArrowTest, PartialUpdateSendsListedColumnsAndTheKey) {
  auto converter = JsonRowConverter::Make(testing::Orders(), {false, {"amount"}});
  ASSERT_TRUE(converter.ok()) << converter.status();
  EXPECT_EQ(converter->descriptor_columns(), (std::vector<std::string>{"id", "region", "amount"}));
  ASSERT_EQ(converter->schema()->num_fields(), 3);
  auto two = JsonRowConverter::Make(
      *ParseTableDescription(testing::DescribeJson(
          "db.t",
          R"([{"name": "k", "type": "INT", "not_null": true}, {"name": "a", "type": "INT"},
              {"name": "b", "type": "INT"}])",
          R"(["k"])")),
      {false, {"b"}});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->descriptor_columns(), (std::vector<std::string>{"k", "b"}));
  EXPECT_EQ(two->schema()->field(0).name(), "k");
  EXPECT_EQ(two->schema()->field(1).name(), "b");
  EXPECT_TRUE(two->ConvertLine(R"({"k": 1, "b": 2})").ok());
}

TEST(JsonArrowTest, DeleteNeedsOnlyTheKey) {
  auto converter = JsonRowConverter::Make(testing::Orders(), {true, {}});
  ASSERT_TRUE(converter.ok());
  EXPECT_TRUE(converter->ConvertLine(R"({"id": 1, "region": "us"})").ok());
  EXPECT_TRUE(converter->descriptor_columns().empty());
}

TEST(JsonArrowTest, FormatterTextForTableCells) {
  TableDescription t = Table(R"j([{"name": "s", "type": "STRING"}, {"name": "n", "type": "INT"},
                                 {"name": "ts", "type": "TIMESTAMP_LTZ(3)"},
                                 {"name": "a", "type": "ARRAY<STRING>"}])j");
  auto converter = JsonRowConverter::Make(t, {});
  auto builder = BatchBuilder::Make(converter->schema(), converter->types());
  ASSERT_TRUE(
      builder
          ->Append(*converter->ConvertLine(R"({"s": "say \"hi\"\n", "n": 5, "ts": 0, "a": ["x"]})"))
          .ok());
  ASSERT_TRUE(builder->Append(*converter->ConvertLine("{}")).ok());
  auto batch = builder->Finish();
  ASSERT_TRUE(batch.ok());
  auto f = RowFormatter::Make(**batch);
  ASSERT_TRUE(f.ok());
  std::vector<std::string> cells(4);
  for (size_t c = 0; c < 4; ++c) f->columns()[c].AppendText(0, &cells[c]);
  EXPECT_EQ(cells, (std::vector<std::string>{"say \"hi\"\\n", "5", "1970-01-01T00:00:00.000Z",
                                             "[\"x\"]"}));
  std::string null_cell;
  f->columns()[0].AppendText(1, &null_cell);
  EXPECT_EQ(null_cell, "null");
  EXPECT_FALSE(f->columns()[0].is_numeric());
  EXPECT_TRUE(f->columns()[1].is_numeric());
}

}  // namespace
}  // namespace mink::cli
