#include "arrow_json/json_string.h"

#include <gtest/gtest.h>

namespace mink::arrow_json {
namespace {

TEST(JsonStringTest, StringsAreEscaped) {
  EXPECT_EQ(JsonQuote("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  EXPECT_EQ(JsonQuote("h\xC3\xA9llo \xE2\x82\xAC"), "\"h\xC3\xA9llo \xE2\x82\xAC\"");
  // Invalid UTF-8 (a lone continuation byte, a truncated sequence) becomes U+FFFD.
  EXPECT_EQ(JsonQuote("a\x80z"), "\"a\xEF\xBF\xBDz\"");
  EXPECT_EQ(JsonQuote("a\xE2\x82"), "\"a\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

}  // namespace
}  // namespace mink::arrow_json
