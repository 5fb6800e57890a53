#include "arrow_json/temporal.h"

#include <gtest/gtest.h>

namespace mink::arrow_json {
namespace {

TEST(TemporalTest, CivilDaysBothWays) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(DaysFromCivil(2024, 2, 29), 19782);
  for (int64_t days = -800'000; days <= 800'000; days += 997) {
    int64_t y;
    int m, d;
    CivilFromDays(days, &y, &m, &d);
    EXPECT_EQ(DaysFromCivil(y, m, d), days);
  }
}

TEST(TemporalTest, Dates) {
  EXPECT_EQ(*ParseDate("2024-02-29"), 19782);
  EXPECT_EQ(FormatDate(19782), "2024-02-29");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(DaysFromCivil(12345, 1, 1)), "+12345-01-01");
  EXPECT_EQ(FormatDate(DaysFromCivil(-1, 1, 1)), "-0001-01-01");
  EXPECT_EQ(*ParseDate("-0001-01-01"), DaysFromCivil(-1, 1, 1));
  EXPECT_EQ(ParseDate("2023-02-29").status().message(), "day 29 of month 2");
  EXPECT_EQ(ParseDate("2023-13-01").status().message(), "month 13");
  EXPECT_FALSE(ParseDate("2023-1-01").ok());
  EXPECT_FALSE(ParseDate("2023-01-01x").ok());
}

TEST(TemporalTest, TimesOfDay) {
  int digits = -1;
  EXPECT_EQ(*ParseTimeOfDay("12:30:05", &digits), (12 * 3600 + 30 * 60 + 5) * 1'000'000'000LL);
  EXPECT_EQ(digits, 0);
  EXPECT_EQ(*ParseTimeOfDay("00:00:00.250", &digits), 250'000'000);
  EXPECT_EQ(digits, 2);  // trailing zeros do not count
  EXPECT_EQ(*ParseTimeOfDay("23:59:59.999999999", &digits), 86'399'999'999'999LL);
  EXPECT_EQ(digits, 9);
  EXPECT_FALSE(ParseTimeOfDay("24:00:00", &digits).ok());
  EXPECT_FALSE(ParseTimeOfDay("12:60:00", &digits).ok());
  EXPECT_FALSE(ParseTimeOfDay("12:00", &digits).ok());
  EXPECT_FALSE(ParseTimeOfDay("12:00:00.", &digits).ok());
  EXPECT_FALSE(ParseTimeOfDay("12:00:00.1234567890", &digits).ok());
  EXPECT_EQ(FormatTimeOfDay(45'005, 0), "12:30:05");
  EXPECT_EQ(FormatTimeOfDay(45'005'250, 3), "12:30:05.250");
  EXPECT_EQ(FormatTimeOfDay(1, 9), "00:00:00.000000001");
}

TEST(TemporalTest, DateTimesWithSeparatorsAndOffsets) {
  auto a = ParseDateTime("2024-01-01 12:00:00.5");
  auto b = ParseDateTime("2024-01-01T12:00:00.500");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*ToUnits(*a, 3), *ToUnits(*b, 3));
  EXPECT_EQ(*ToUnits(*a, 3), 1'704'110'400'500LL);
  EXPECT_FALSE(a->has_offset);
  auto z = ParseDateTime("2024-01-01T14:00:00+02:00");
  ASSERT_TRUE(z.ok());
  EXPECT_TRUE(z->has_offset);
  EXPECT_EQ(*ToUnits(*z, 0), 1'704'110'400);
  EXPECT_EQ(*ToUnits(*ParseDateTime("2024-01-01T12:00:00Z"), 0), 1'704'110'400);
  EXPECT_EQ(*ToUnits(*ParseDateTime("2024-01-01T07:30-0430"), 0), 1'704'110'400);
  EXPECT_EQ(*ToUnits(*ParseDateTime("2024-01-01"), 0), 1'704'067'200);
  EXPECT_FALSE(ParseDateTime("2024-01-01X12:00:00").ok());
  EXPECT_FALSE(ParseDateTime("2024-01-01T12:00:00+25:00").ok());
  // More digits than the unit holds is an error, not truncation.
  EXPECT_FALSE(ToUnits(*ParseDateTime("2024-01-01T12:00:00.1234"), 3).ok());
  // Nanoseconds overflow int64 after 2262.
  EXPECT_FALSE(ToUnits(*ParseDateTime("2300-01-01T00:00:00"), 9).ok());
}

TEST(TemporalTest, FormatTimestamps) {
  EXPECT_EQ(FormatTimestamp(1'704'110'400'500LL, 3, false), "2024-01-01T12:00:00.500");
  EXPECT_EQ(FormatTimestamp(1'704'110'400LL, 0, true), "2024-01-01T12:00:00Z");
  EXPECT_EQ(FormatTimestamp(-1, 3, false), "1969-12-31T23:59:59.999");
  EXPECT_EQ(FormatTimestamp(-1, 9, true), "1969-12-31T23:59:59.999999999Z");
}

TEST(TemporalTest, InstantMillis) {
  EXPECT_EQ(*ParseInstantMillis("1704110400500"), 1'704'110'400'500LL);
  EXPECT_EQ(*ParseInstantMillis("2024-01-01T12:00:00.5Z"), 1'704'110'400'500LL);
  EXPECT_EQ(*ParseInstantMillis("2024-01-01 12:00:00.5"), 1'704'110'400'500LL);
  EXPECT_EQ(*ParseInstantMillis("-1"), -1);
  auto bad = ParseInstantMillis("yesterday");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("neither epoch milliseconds nor an ISO-8601"),
            std::string::npos);
}

}  // namespace
}  // namespace mink::arrow_json
