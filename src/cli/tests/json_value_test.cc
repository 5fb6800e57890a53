#include "cli/json_value.h"

#include <gtest/gtest.h>

namespace mink::cli {
namespace {

TEST(JsonValueTest, KeepsNumberTextAndMemberOrder) {
  auto v = ParseJson(R"({"b": 10.50, "a": 123456789012345678901234567890, "c": -7, "d": 1e3})");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_TRUE(v->is_object());
  EXPECT_EQ(v->keys(), (std::vector<std::string>{"b", "a", "c", "d"}));
  EXPECT_EQ(v->Find("b")->text(), "10.50");
  EXPECT_EQ(v->Find("a")->text(), "123456789012345678901234567890");
  EXPECT_EQ(v->Find("c")->text(), "-7");
  EXPECT_EQ(v->Find("d")->text(), "1e3");
  EXPECT_EQ(v->Find("x"), nullptr);
}

TEST(JsonValueTest, ParsesEveryKind) {
  auto v = ParseJson(R"([null, true, false, "s\u00e9\n", [], {}, [1, [2]]])");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_EQ(v->items().size(), 7u);
  EXPECT_TRUE(v->items()[0].is_null());
  EXPECT_TRUE(v->items()[1].bool_value());
  EXPECT_FALSE(v->items()[2].bool_value());
  EXPECT_EQ(v->items()[3].text(), "s\xC3\xA9\n");
  EXPECT_EQ(v->ToString(), "[null,true,false,\"s\xC3\xA9\\n\",[],{},[1,[2]]]");
}

TEST(JsonValueTest, MalformedJsonNamesTheColumn) {
  auto v = ParseJson(R"({"id": 1, "x})");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(v.status().message().rfind("malformed JSON at column ", 0), 0u) << v.status();
  EXPECT_FALSE(ParseJson("{} {}").ok());
  EXPECT_FALSE(ParseJson("").ok());
  EXPECT_FALSE(ParseJson("{\"a\": 01}").ok());
}

TEST(JsonValueTest, DuplicateKeysAreRefused) {
  auto v = ParseJson(R"({"id": 1, "id": 2})");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "duplicate key \"id\"");
}

TEST(JsonValueTest, DeepNestingIsRefused) {
  std::string deep(100, '[');
  deep += std::string(100, ']');
  auto v = ParseJson(deep);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "nesting deeper than 64");
}

TEST(JsonValueTest, ShortStringCutsLongValues) {
  JsonValue v = JsonValue::String(std::string(100, 'x'));
  std::string s = v.ToShortString(20);
  EXPECT_EQ(s, "\"" + std::string(19, 'x') + "...");
}

}  // namespace
}  // namespace mink::cli
