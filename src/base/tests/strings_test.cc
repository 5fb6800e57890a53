#include "base/strings.h"

#include <gtest/gtest.h>

namespace mink {
namespace {

TEST(Strings, ParseInt64RejectsTrailingGarbage) {
  EXPECT_EQ(*ParseInt64("-42"), -42);
  EXPECT_FALSE(ParseInt64("42x").ok());
  EXPECT_FALSE(ParseInt64("").ok());
}

TEST(Strings, ParseDurationUnits) {
  EXPECT_EQ(ParseDuration("250ms")->count(), 250);
  EXPECT_EQ(ParseDuration("5s")->count(), 5000);
  EXPECT_EQ(ParseDuration("3m")->count(), 180000);
  EXPECT_EQ(ParseDuration("7d")->count(), 7LL * 86400000);
  EXPECT_EQ(ParseDuration("20")->count(), 20);
  EXPECT_FALSE(ParseDuration("5 parsecs").ok());
}

TEST(Strings, ParseByteSizeUnits) {
  EXPECT_EQ(*ParseByteSize("8MiB"), 8u << 20);
  EXPECT_EQ(*ParseByteSize("4096"), 4096u);
  EXPECT_FALSE(ParseByteSize("MiB").ok());
}

TEST(Strings, HexRoundTrip) {
  EXPECT_EQ(HexEncode("hello"), "68656c6c6f");
  EXPECT_EQ(*HexDecode("68656C6c6f"), "hello");
  EXPECT_FALSE(HexDecode("6").ok());
  EXPECT_FALSE(HexDecode("zz").ok());
}

TEST(Strings, SplitKeepsEmptyParts) {
  auto parts = Split("a,,b", ',');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1], "");
}

}  // namespace
}  // namespace mink
