#include "arrow_json/numbers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "arrow_format/array.h"

namespace mink::arrow_json {
namespace {

std::string Parse(std::string_view text, int precision, int scale) {
  Int128 v = 0;
  switch (ParseDecimal(text, precision, scale, &v)) {
    case DecimalError::kOk:
      return arrow::FormatDecimal(v, scale);
    case DecimalError::kNotANumber:
      return "not a number";
    case DecimalError::kTooManyPlaces:
      return "too many places";
    case DecimalError::kDoesNotFit:
      return "does not fit";
  }
  return "?";
}

TEST(DecimalTest, ParsesStringsAndNumbersAtTheScale) {
  EXPECT_EQ(Parse("10.50", 10, 2), "10.50");
  EXPECT_EQ(Parse("10.5", 10, 2), "10.50");
  EXPECT_EQ(Parse("3", 10, 2), "3.00");
  EXPECT_EQ(Parse("+3.", 10, 2), "3.00");
  EXPECT_EQ(Parse(".5", 10, 2), "0.50");
  EXPECT_EQ(Parse("0", 10, 2), "0.00");
  EXPECT_EQ(Parse("000123.40", 10, 2), "123.40");
}

TEST(DecimalTest, Negative) {
  EXPECT_EQ(Parse("-0.05", 10, 2), "-0.05");
  EXPECT_EQ(Parse("-12345678.99", 10, 2), "-12345678.99");
  EXPECT_EQ(Parse("-0", 10, 2), "0.00");
  EXPECT_EQ(Parse("-0.00", 10, 2), "0.00");
}

TEST(DecimalTest, ScaleZero) {
  EXPECT_EQ(Parse("42", 5, 0), "42");
  EXPECT_EQ(Parse("-99999", 5, 0), "-99999");
  EXPECT_EQ(Parse("42.0", 5, 0), "42");
  EXPECT_EQ(Parse("42.5", 5, 0), "too many places");
  EXPECT_EQ(Parse("100000", 5, 0), "does not fit");
}

TEST(DecimalTest, TooManyDigitsDoesNotFit) {
  EXPECT_EQ(Parse("99999999.99", 10, 2), "99999999.99");
  EXPECT_EQ(Parse("100000000", 10, 2), "does not fit");
  EXPECT_EQ(Parse("123456789.5", 10, 2), "does not fit");
  EXPECT_EQ(Parse(std::string(39, '9'), 38, 0), "does not fit");
  EXPECT_EQ(Parse(std::string(38, '9'), 38, 0), std::string(38, '9'));
  EXPECT_EQ(Parse("-" + std::string(38, '9'), 38, 0), "-" + std::string(38, '9'));
  EXPECT_EQ(Parse("0.5", 1, 1), "0.5");
  EXPECT_EQ(Parse("1.5", 1, 1), "does not fit");
}

TEST(DecimalTest, TooManyDecimalsIsAnErrorNotRounding) {
  EXPECT_EQ(Parse("1.234", 10, 2), "too many places");
  EXPECT_EQ(Parse("1.001", 10, 2), "too many places");
  EXPECT_EQ(Parse("0.001", 10, 2), "too many places");
  // Zeros beyond the scale lose nothing.
  EXPECT_EQ(Parse("1.2300000", 10, 2), "1.23");
}

TEST(DecimalTest, Exponents) {
  EXPECT_EQ(Parse("1e2", 10, 2), "100.00");
  EXPECT_EQ(Parse("1.5E-1", 10, 2), "0.15");
  EXPECT_EQ(Parse("15e-3", 10, 2), "too many places");
  EXPECT_EQ(Parse("1e9", 10, 2), "does not fit");
  EXPECT_EQ(Parse("1e999999999", 10, 2), "does not fit");
  EXPECT_EQ(Parse("1e-999999999", 10, 2), "too many places");
  EXPECT_EQ(Parse("0e999999999", 10, 2), "0.00");
}

TEST(DecimalTest, NotANumber) {
  for (const char* text : {"abc", "", "-", ".", "1.2.3", "1e", "1e+", "0x10", " 1", "1 ", "1,5",
                           "NaN", "Infinity", "--1"}) {
    EXPECT_EQ(Parse(text, 10, 2), "not a number") << text;
  }
}

TEST(IntegralTest, RangesAndIntegrality) {
  EXPECT_EQ(*ParseIntegral("127", -128, 127), 127);
  EXPECT_EQ(*ParseIntegral("-128", -128, 127), -128);
  EXPECT_EQ(*ParseIntegral("1e2", -128, 127), 100);
  EXPECT_EQ(*ParseIntegral("2.0", -128, 127), 2);
  EXPECT_EQ(ParseIntegral("128", -128, 127).status().message(), "is out of range (-128..127)");
  EXPECT_EQ(ParseIntegral("1.5", -128, 127).status().message(), "is not an integer");
  EXPECT_EQ(ParseIntegral("x", -128, 127).status().message(), "is not an integer");
  Int128 min = std::numeric_limits<int64_t>::min(), max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(*ParseIntegral("9223372036854775807", min, max), max);
  EXPECT_EQ(*ParseIntegral("-9223372036854775808", min, max), min);
  EXPECT_FALSE(ParseIntegral("9223372036854775808", min, max).ok());
  EXPECT_FALSE(ParseIntegral(std::string(50, '9'), min, max).ok());
}

TEST(FloatingTest, ShortestRoundTrip) {
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(3.0), "3");
  EXPECT_EQ(FormatDouble(-2.5), "-2.5");
  EXPECT_EQ(FormatDouble(1e300), "1e+300");
  EXPECT_EQ(FormatDouble(5e-324), "5e-324");
  EXPECT_EQ(FormatFloat(0.1f), "0.1");
  EXPECT_EQ(FormatFloat(16777216.0f), "16777216");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::infinity()), "-Infinity");
  for (double v : {0.1, 1.0 / 3, 123456789.123456789, -1e-300, 2.2250738585072014e-308}) {
    EXPECT_EQ(*ParseDoubleText(FormatDouble(v)), v);
  }
  EXPECT_EQ(*ParseFloatText(FormatFloat(1.0f / 3)), 1.0f / 3);
}

TEST(FloatingTest, ParseErrors) {
  EXPECT_EQ(ParseDoubleText("1e999").status().message(), "is out of range for DOUBLE");
  EXPECT_EQ(ParseFloatText("1e39").status().message(), "is out of range for FLOAT");
  EXPECT_EQ(ParseDoubleText("abc").status().message(), "is not a number");
  EXPECT_EQ(ParseDoubleText("inf").status().message(), "is not a number");
  EXPECT_EQ(ParseDoubleText("1.5x").status().message(), "is not a number");
  EXPECT_TRUE(std::isnan(*ParseDoubleText("NaN")));
  EXPECT_EQ(*ParseDoubleText("-Infinity"), -std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace mink::arrow_json
