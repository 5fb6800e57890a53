#include "arrow_json/temporal.h"

#include <cstdio>
#include <limits>

namespace mink::arrow_json {
namespace {

constexpr int64_t kSecondsPerDay = 86'400;
constexpr int64_t kNanosPerSecond = 1'000'000'000;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` digits at *pos.
bool Digits(std::string_view s, size_t* pos, size_t n, int64_t* out) {
  if (*pos + n > s.size()) return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool Expect(std::string_view s, size_t* pos, char c) {
  if (*pos < s.size() && s[*pos] == c) {
    ++*pos;
    return true;
  }
  return false;
}

int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// Date at *pos: [+-]YYYY[Y...]-MM-DD.
Status ParseDateAt(std::string_view s, size_t* pos, int64_t* days) {
  bool negative = false;
  if (*pos < s.size() && (s[*pos] == '+' || s[*pos] == '-')) {
    negative = s[*pos] == '-';
    ++*pos;
  }
  size_t start = *pos;
  int64_t year = 0;
  while (*pos < s.size() && IsDigit(s[*pos]) && *pos - start < 7) {
    year = year * 10 + (s[*pos] - '0');
    ++*pos;
  }
  if (*pos - start < 4) return InvalidArgumentError("expected a date YYYY-MM-DD");
  if (negative) year = -year;
  int64_t month = 0, day = 0;
  if (!Expect(s, pos, '-') || !Digits(s, pos, 2, &month) || !Expect(s, pos, '-') ||
      !Digits(s, pos, 2, &day)) {
    return InvalidArgumentError("expected a date YYYY-MM-DD");
  }
  if (month < 1 || month > 12) return InvalidArgumentError("month " + std::to_string(month));
  if (day < 1 || day > DaysInMonth(year, static_cast<int>(month))) {
    return InvalidArgumentError("day " + std::to_string(day) + " of month " +
                                std::to_string(month));
  }
  *days = DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day));
  return Status::Ok();
}

// Time at *pos: HH:MM[:SS[.fffffffff]] (seconds required unless `seconds_optional`).
Status ParseTimeAt(std::string_view s, size_t* pos, bool seconds_optional, int64_t* nanos,
                   int* fraction_digits) {
  int64_t h = 0, m = 0, sec = 0, frac = 0;
  int digits = 0, significant = 0;
  if (!Digits(s, pos, 2, &h) || !Expect(s, pos, ':') || !Digits(s, pos, 2, &m)) {
    return InvalidArgumentError("expected a time HH:MM:SS[.fff]");
  }
  if (Expect(s, pos, ':')) {
    if (!Digits(s, pos, 2, &sec)) return InvalidArgumentError("expected a time HH:MM:SS[.fff]");
    if (Expect(s, pos, '.')) {
      while (*pos < s.size() && IsDigit(s[*pos])) {
        if (++digits > 9) return InvalidArgumentError("more than 9 fractional digits");
        int d = s[*pos] - '0';
        frac = frac * 10 + d;
        if (d != 0) significant = digits;
        ++*pos;
      }
      if (digits == 0) return InvalidArgumentError("expected digits after '.'");
    }
  } else if (!seconds_optional) {
    return InvalidArgumentError("expected a time HH:MM:SS[.fff]");
  }
  if (h > 23) return InvalidArgumentError("hour " + std::to_string(h));
  if (m > 59) return InvalidArgumentError("minute " + std::to_string(m));
  if (sec > 59) return InvalidArgumentError("second " + std::to_string(sec));
  *nanos = ((h * 60 + m) * 60 + sec) * kNanosPerSecond + frac * Pow10(9 - digits);
  *fraction_digits = significant;
  return Status::Ok();
}

void AppendPadded(int64_t v, int width, std::string* out) {
  std::string digits = std::to_string(v);
  if (static_cast<int>(digits.size()) < width) out->append(width - digits.size(), '0');
  out->append(digits);
}

}  // namespace

int64_t Pow10(int exponent) {
  int64_t v = 1;
  for (int i = 0; i < exponent; ++i) v *= 10;
  return v;
}

int64_t DaysFromCivil(int64_t year, int month, int day) {
  // Shift the year to start in March so that the leap day is the last day of the year.
  const int64_t y = month <= 2 ? year - 1 : year;
  const int64_t era = FloorDiv(y, 400);
  const int64_t year_of_era = y - era * 400;                               // [0, 399]
  const int64_t month_from_march = month > 2 ? month - 3 : month + 9;      // [0, 11]
  const int64_t day_of_year = (153 * month_from_march + 2) / 5 + day - 1;  // [0, 365]
  const int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;  // [0, 146096]
  return era * 146'097 + day_of_era - 719'468;  // 719468: days from 0000-03-01 to 1970-01-01
}

void CivilFromDays(int64_t days, int64_t* year, int* month, int* day) {
  const int64_t z = days + 719'468;
  const int64_t era = FloorDiv(z, 146'097);
  const int64_t day_of_era = z - era * 146'097;
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1'460 + day_of_era / 36'524 - day_of_era / 146'096) / 365;
  const int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_from_march = (5 * day_of_year + 2) / 153;
  *day = static_cast<int>(day_of_year - (153 * month_from_march + 2) / 5 + 1);
  *month = static_cast<int>(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
  *year = year_of_era + era * 400 + (*month <= 2 ? 1 : 0);
}

Result<int32_t> ParseDate(std::string_view text) {
  size_t pos = 0;
  int64_t days = 0;
  MINK_RETURN_IF_ERROR(ParseDateAt(text, &pos, &days));
  if (pos != text.size()) return InvalidArgumentError("expected a date YYYY-MM-DD");
  if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
    return InvalidArgumentError("out of range");
  }
  return static_cast<int32_t>(days);
}

Result<int64_t> ParseTimeOfDay(std::string_view text, int* fraction_digits) {
  size_t pos = 0;
  int64_t nanos = 0;
  MINK_RETURN_IF_ERROR(ParseTimeAt(text, &pos, false, &nanos, fraction_digits));
  if (pos != text.size()) return InvalidArgumentError("expected a time HH:MM:SS[.fff]");
  return nanos;
}

Result<DateTime> ParseDateTime(std::string_view text) {
  DateTime dt;
  size_t pos = 0;
  MINK_RETURN_IF_ERROR(ParseDateAt(text, &pos, &dt.days));
  if (pos < text.size() && (text[pos] == ' ' || text[pos] == 'T' || text[pos] == 't')) {
    ++pos;
    MINK_RETURN_IF_ERROR(ParseTimeAt(text, &pos, true, &dt.nanos_of_day, &dt.fraction_digits));
  }
  if (pos < text.size()) {
    char c = text[pos];
    if (c == 'Z' || c == 'z') {
      ++pos;
      dt.has_offset = true;
    } else if (c == '+' || c == '-') {
      ++pos;
      int64_t h = 0, m = 0;
      if (!Digits(text, &pos, 2, &h)) return InvalidArgumentError("expected an offset +HH:MM");
      if (Expect(text, &pos, ':')) {
        if (!Digits(text, &pos, 2, &m)) return InvalidArgumentError("expected an offset +HH:MM");
      } else if (pos < text.size()) {
        if (!Digits(text, &pos, 2, &m)) return InvalidArgumentError("expected an offset +HH:MM");
      }
      if (h > 18 || m > 59) return InvalidArgumentError("offset out of range");
      dt.has_offset = true;
      dt.offset_seconds = static_cast<int32_t>((h * 60 + m) * 60 * (c == '-' ? -1 : 1));
    }
  }
  if (pos != text.size()) {
    return InvalidArgumentError("unexpected '" + std::string(text.substr(pos)) + "'");
  }
  return dt;
}

Result<int64_t> ToUnits(const DateTime& dt, int digits) {
  if (dt.fraction_digits > digits) {
    return InvalidArgumentError("more than " + std::to_string(digits) + " fractional digits");
  }
  __int128 seconds = static_cast<__int128>(dt.days) * kSecondsPerDay +
                     dt.nanos_of_day / kNanosPerSecond - dt.offset_seconds;
  __int128 value =
      seconds * Pow10(digits) + (dt.nanos_of_day % kNanosPerSecond) / Pow10(9 - digits);
  if (value < std::numeric_limits<int64_t>::min() || value > std::numeric_limits<int64_t>::max()) {
    return InvalidArgumentError("out of range");
  }
  return static_cast<int64_t>(value);
}

Result<int64_t> ParseInstantMillis(std::string_view text) {
  bool numeric = !text.empty();
  for (size_t i = 0; i < text.size(); ++i) {
    if (!IsDigit(text[i]) && !(i == 0 && text[i] == '-' && text.size() > 1)) numeric = false;
  }
  if (numeric) {
    int64_t v = 0;
    bool negative = text[0] == '-';
    for (size_t i = negative ? 1 : 0; i < text.size(); ++i) {
      if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) {
        return InvalidArgumentError("'" + std::string(text) + "' is out of range");
      }
      v = v * 10 + (text[i] - '0');
    }
    return negative ? -v : v;
  }
  auto dt = ParseDateTime(text);
  if (!dt.ok()) {
    return InvalidArgumentError("'" + std::string(text) +
                                "' is neither epoch milliseconds nor an ISO-8601 timestamp (" +
                                dt.status().message() + ")");
  }
  auto ms = ToUnits(*dt, 3);
  if (!ms.ok()) {
    return InvalidArgumentError("'" + std::string(text) + "': " + ms.status().message());
  }
  return *ms;
}

std::string FormatDate(int64_t days) {
  int64_t year;
  int month, day;
  CivilFromDays(days, &year, &month, &day);
  std::string out;
  if (year < 0) {
    out.push_back('-');
    AppendPadded(-year, 4, &out);
  } else {
    if (year > 9999) out.push_back('+');
    AppendPadded(year, 4, &out);
  }
  out.push_back('-');
  AppendPadded(month, 2, &out);
  out.push_back('-');
  AppendPadded(day, 2, &out);
  return out;
}

std::string FormatTimeOfDay(int64_t value, int digits) {
  const int64_t per_second = Pow10(digits);
  int64_t seconds = FloorDiv(value, per_second);
  int64_t fraction = value - seconds * per_second;
  std::string out;
  AppendPadded(seconds / 3600, 2, &out);
  out.push_back(':');
  AppendPadded(seconds / 60 % 60, 2, &out);
  out.push_back(':');
  AppendPadded(seconds % 60, 2, &out);
  if (digits > 0) {
    out.push_back('.');
    AppendPadded(fraction, digits, &out);
  }
  return out;
}

std::string FormatTimestamp(int64_t value, int digits, bool utc) {
  const int64_t per_second = Pow10(digits);
  int64_t seconds = FloorDiv(value, per_second);
  int64_t fraction = value - seconds * per_second;
  int64_t days = FloorDiv(seconds, kSecondsPerDay);
  int64_t second_of_day = seconds - days * kSecondsPerDay;
  std::string out = FormatDate(days);
  out.push_back('T');
  out += FormatTimeOfDay(second_of_day * per_second + fraction, digits);
  if (utc) out.push_back('Z');
  return out;
}

}  // namespace mink::arrow_json
