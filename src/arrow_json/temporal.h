#pragma once
// Dates and times as Mink's clients read and print them (proleptic Gregorian calendar, UTC):
//   DATE          "2024-03-01"                      days since 1970-01-01
//   TIME          "12:30:05", "12:30:05.250"        units since midnight
//   TIMESTAMP     "2024-03-01 12:30:05.250" or with 'T'; printed with 'T'
//   TIMESTAMP_LTZ the same with an optional "Z" or "+02:00" offset; printed in UTC with "Z"
// Values are integers in a unit of 10^-digits seconds (digits 0, 3, 6 or 9 for s, ms, us, ns).

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace mink::arrow_json {

// Days since 1970-01-01 of a civil date, and back. Valid for any int32 day count.
int64_t DaysFromCivil(int64_t year, int month, int day);
void CivilFromDays(int64_t days, int64_t* year, int* month, int* day);

// Powers of ten up to 10^18.
int64_t Pow10(int exponent);

// "YYYY-MM-DD" -> days. Errors are InvalidArgument with a short reason ("month 13").
Result<int32_t> ParseDate(std::string_view text);

// A parsed date-time.
struct DateTime {
  int64_t days = 0;            // the date, days since 1970-01-01
  int64_t nanos_of_day = 0;    // time of day in nanoseconds
  int fraction_digits = 0;     // significant fractional digits written (trailing zeros dropped)
  bool has_offset = false;     // "Z" or an offset was given
  int32_t offset_seconds = 0;  // east of UTC
};

// "HH:MM:SS[.f{1,9}]" -> nanoseconds since midnight; *fraction_digits as in DateTime.
Result<int64_t> ParseTimeOfDay(std::string_view text, int* fraction_digits);
// "YYYY-MM-DD[( |T)HH:MM[:SS[.f{1,9}]]][Z|(+|-)HH[:MM]]".
Result<DateTime> ParseDateTime(std::string_view text);
// The instant (or wall-clock value, when no offset was given) in units of 10^-digits seconds.
// Fails when it does not fit an int64 or needs more than `digits` fractional digits.
Result<int64_t> ToUnits(const DateTime& dt, int digits);

// ISO-8601 timestamp or epoch milliseconds -> epoch milliseconds (no offset means UTC).
Result<int64_t> ParseInstantMillis(std::string_view text);

// "YYYY-MM-DD" (years outside 0..9999 get a sign and at least four digits).
std::string FormatDate(int64_t days);
// "HH:MM:SS" plus `digits` fractional digits; `value` is in 10^-digits seconds.
std::string FormatTimeOfDay(int64_t value, int digits);
// "YYYY-MM-DDTHH:MM:SS[.fff]" plus "Z" when `utc`.
std::string FormatTimestamp(int64_t value, int digits, bool utc);

}  // namespace mink::arrow_json
