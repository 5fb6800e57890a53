// Every kind of bad input line gets one message naming the column and the problem.
// (`mink write` puts "line N: " in front; the end-to-end test checks that part.)

#include <gtest/gtest.h>

#include "cli/json_to_arrow.h"
#include "cli/tests/test_tables.h"

namespace mink::cli {
namespace {

using client::ParseTableDescription;
using client::TableDescription;

class WriteErrorsTest : public ::testing::Test {
 protected:
  std::string Error(const TableDescription& table, const std::string& line, WriteShape shape = {}) {
    auto converter = JsonRowConverter::Make(table, shape);
    if (!converter.ok()) return "make: " + converter.status().message();
    auto row = converter->ConvertLine(line);
    if (row.ok()) return "ok";
    EXPECT_EQ(row.status().code(), StatusCode::kInvalidArgument);
    return row.status().message();
  }
  std::string Error(const std::string& columns_json, const std::string& line) {
    auto table = ParseTableDescription(testing::DescribeJson("db.t", columns_json));
    EXPECT_TRUE(table.ok()) << table.status();
    return Error(*table, line);
  }
  std::string Column(const std::string& type, const std::string& value_json) {
    return Error(R"([{"name": "c", "type": ")" + type + R"("}])", R"({"c": )" + value_json + "}");
  }
};

TEST_F(WriteErrorsTest, SeedExamples) {
  TableDescription orders = testing::Orders();
  EXPECT_EQ(Error(orders, R"({"id": 3, "region": "us", "amount": "abc"})"),
            "column 'amount': DECIMAL(10,2) value \"abc\" is not a number");
  EXPECT_EQ(Error(orders, R"({"id": 3, "amount": "1.00"})"),
            "column 'region' is NOT NULL but missing");
  EXPECT_EQ(Error(orders, R"({"id": 3, "region": null})"), "column 'region' is NOT NULL but null");
  EXPECT_EQ(Error(orders, R"({"id": 3, "region": "us", "nope": 1})"),
            "unknown column 'nope' in shop.orders");
  EXPECT_EQ(Error(orders, R"({"id": 3, "region": "us", "amount": "123456789.00"})"),
            "column 'amount': DECIMAL(10,2) value \"123456789.00\" does not fit DECIMAL(10,2)");
  EXPECT_EQ(Error(orders, R"({"id": 3, "region": "us", "amount": 1.234})"),
            "column 'amount': DECIMAL(10,2) value 1.234 has more decimal places than the scale 2 "
            "(no rounding)");
}

TEST_F(WriteErrorsTest, MalformedLines) {
  TableDescription orders = testing::Orders();
  std::string e = Error(orders, R"({"id": 1, "region": "us")");
  EXPECT_EQ(e.rfind("malformed JSON at column ", 0), 0u) << e;
  EXPECT_EQ(Error(orders, "[1, 2]"), "expected a JSON object, not [1,2]");
  EXPECT_EQ(Error(orders, "42"), "expected a JSON object, not 42");
  EXPECT_EQ(Error(orders, R"({"id": 1, "id": 2})"), "duplicate key \"id\"");
}

TEST_F(WriteErrorsTest, Integers) {
  EXPECT_EQ(Column("TINYINT", "128"), "column 'c': TINYINT value 128 is out of range (-128..127)");
  EXPECT_EQ(Column("SMALLINT", "-32769"),
            "column 'c': SMALLINT value -32769 is out of range (-32768..32767)");
  EXPECT_EQ(Column("INT", "1.5"), "column 'c': INT value 1.5 is not an integer");
  EXPECT_EQ(Column("INT", "\"x\""), "column 'c': INT value \"x\" is not an integer");
  EXPECT_EQ(Column("INT", "true"), "column 'c': INT value true is not an integer");
  EXPECT_EQ(Column("BIGINT", "9223372036854775808"),
            "column 'c': BIGINT value 9223372036854775808 is out of range "
            "(-9223372036854775808..9223372036854775807)");
}

TEST_F(WriteErrorsTest, OtherScalars) {
  EXPECT_EQ(Column("BOOLEAN", "\"yes\""), "column 'c': BOOLEAN value \"yes\" is not true or false");
  EXPECT_EQ(Column("DOUBLE", "\"abc\""), "column 'c': DOUBLE value \"abc\" is not a number");
  EXPECT_EQ(Column("FLOAT", "1e39"), "column 'c': FLOAT value 1e39 is out of range for FLOAT");
  EXPECT_EQ(Column("STRING", "5"), "column 'c': STRING value 5 is not a string");
  EXPECT_EQ(Column("BYTES", "\"xyz\""),
            "column 'c': BYTES value \"xyz\" is not a hex string (hex string has an odd length)");
  EXPECT_EQ(Column("BYTES", "\"zz\""),
            "column 'c': BYTES value \"zz\" is not a hex string (not a hex digit at position 0)");
  EXPECT_EQ(Column("DECIMAL(5,0)", "\"1.5\""),
            "column 'c': DECIMAL(5,0) value \"1.5\" has more decimal places than the scale 0 "
            "(no rounding)");
  EXPECT_EQ(Column("DECIMAL(10,2)", "[1]"), "column 'c': DECIMAL(10,2) value [1] is not a number");
}

TEST_F(WriteErrorsTest, DatesAndTimes) {
  EXPECT_EQ(Column("DATE", "\"2023-02-30\""),
            "column 'c': DATE value \"2023-02-30\" is not a date (YYYY-MM-DD): day 30 of month 2");
  EXPECT_EQ(Column("DATE", "1.5"), "column 'c': DATE value 1.5 (days) is not an integer");
  EXPECT_EQ(Column("TIME(0)", "\"25:00:00\""),
            "column 'c': TIME(0) value \"25:00:00\" is not a time (HH:MM:SS[.fff]): hour 25");
  EXPECT_EQ(Column("TIME(3)", "\"12:00:00.1234\""),
            "column 'c': TIME(3) value \"12:00:00.1234\" has more than 3 fractional digits "
            "(no rounding)");
  EXPECT_EQ(Column("TIMESTAMP(0)", "1500"),
            "column 'c': TIMESTAMP(0) value 1500 has more than 0 fractional digits (no rounding)");
  EXPECT_EQ(Column("TIMESTAMP(3)", "\"soon\""),
            "column 'c': TIMESTAMP(3) value \"soon\" is not a timestamp (YYYY-MM-DD "
            "HH:MM:SS[.fff][Z|+HH:MM]): expected a date YYYY-MM-DD");
  EXPECT_EQ(Column("TIMESTAMP_LTZ(3)", "\"2024-01-01 12:00 +99\""),
            "column 'c': TIMESTAMP_LTZ(3) value \"2024-01-01 12:00 +99\" is not a timestamp "
            "(YYYY-MM-DD HH:MM:SS[.fff][Z|+HH:MM]): unexpected ' +99'");
  EXPECT_EQ(Column("TIMESTAMP(9)", "\"2300-01-01 00:00:00\""),
            "column 'c': TIMESTAMP(9) value \"2300-01-01 00:00:00\" is out of range");
}

TEST_F(WriteErrorsTest, NestedValuesNameTheirPath) {
  EXPECT_EQ(Column("ARRAY<INT>", "[1, \"x\"]"), "column 'c[1]': INT value \"x\" is not an integer");
  EXPECT_EQ(Column("ARRAY<INT NOT NULL>", "[1, null]"), "column 'c[1]' is NOT NULL but null");
  EXPECT_EQ(Column("ARRAY<INT>", "{}"), "column 'c': ARRAY<INT> value {} is not an array");
  EXPECT_EQ(Column("MAP<STRING, INT>", "{\"k\": true}"),
            "column 'c[\"k\"]': INT value true is not an integer");
  EXPECT_EQ(Column("MAP<INT, STRING>", "{\"x\": \"v\"}"),
            "column 'c key': INT value \"x\" is not an integer");
  EXPECT_EQ(Column("MAP<INT, STRING>", "[[1]]"),
            "column 'c': MAP<INT, STRING> value [[1]] entry 0 is not a [key, value] pair");
  EXPECT_EQ(Column("MAP<INT, STRING>", "[[null, \"v\"]]"), "column 'c': a map key is null");
  EXPECT_EQ(Column("ROW<x INT, y STRING>", "{\"x\": 1, \"z\": 2}"),
            "column 'c': ROW<x INT, y STRING> value {\"x\":1,\"z\":2} has an unknown field \"z\"");
  EXPECT_EQ(Column("ROW<x INT NOT NULL, y STRING>", "{\"y\": \"a\"}"),
            "column 'c.x' is NOT NULL but missing");
  EXPECT_EQ(Column("ARRAY<ROW<v ARRAY<DECIMAL(5,2)>>>", "[{\"v\": [1, \"1.001\"]}]"),
            "column 'c[0].v[1]': DECIMAL(5,2) value \"1.001\" has more decimal places than the "
            "scale 2 (no rounding)");
}

TEST_F(WriteErrorsTest, ShapeOfTheWrite) {
  TableDescription orders = testing::Orders();
  EXPECT_EQ(Error(orders, R"({"id": 1, "region": "us", "amount": 1})", {false, {"region"}}),
            "column 'amount' is not in --columns region (a partial update writes only those and "
            "the primary key)");
  EXPECT_EQ(Error(orders, R"({"id": 1, "region": "us"})", {false, {"amount"}}), "ok");
  TableDescription wide = *ParseTableDescription(testing::DescribeJson(
      "db.t",
      R"([{"name": "k", "type": "INT", "not_null": true}, {"name": "a", "type": "INT"},
          {"name": "b", "type": "INT", "not_null": true}])",
      R"(["k"])"));
  EXPECT_EQ(Error(wide, R"({"k": 1, "a": 2, "b": 3})", {false, {"a"}}),
            "column 'b' is not in --columns a (a partial update writes only those and the "
            "primary key)");
  // A partial update need not carry the NOT NULL columns it does not write.
  EXPECT_EQ(Error(wide, R"({"k": 1, "a": 2})", {false, {"a"}}), "ok");
  EXPECT_EQ(Error(wide, R"({"a": 2})", {false, {"a"}}), "column 'k' is NOT NULL but missing");
  EXPECT_EQ(Error(wide, R"({"k": 1})", {true, {}}), "ok");
  EXPECT_EQ(Error(wide, R"({"k": 1})", {false, {"nope"}}),
            "make: --columns: unknown column 'nope' in db.t");
  TableDescription log =
      *ParseTableDescription(testing::DescribeJson("db.log", R"([{"name": "a", "type": "INT"}])"));
  EXPECT_EQ(Error(log, "{}", {true, {}}),
            "make: --delete needs a primary-key table; db.log is a log table");
  EXPECT_EQ(Error(log, "{}", {false, {"a"}}),
            "make: --columns (a partial update) needs a primary-key table; db.log is a log table");
}

}  // namespace
}  // namespace mink::cli
