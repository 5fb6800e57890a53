#include "arrow_json/numbers.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

#include "arrow_format/array.h"

namespace mink::arrow_json {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The exponent is clamped: beyond this, any non-zero value neither fits nor has few enough
// decimal places, whatever the precision.
constexpr int64_t kMaxExponent = 100'000;

template <typename T>
Result<T> ParseFloating(std::string_view text, const char* type_name) {
  if (text == "NaN") return std::numeric_limits<T>::quiet_NaN();
  if (text == "Infinity") return std::numeric_limits<T>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<T>::infinity();
  size_t digit = !text.empty() && text[0] == '-' ? 1 : 0;
  if (digit >= text.size() || !IsDigit(text[digit])) return InvalidArgumentError("is not a number");
  T value{};
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    return InvalidArgumentError(std::string("is out of range for ") + type_name);
  }
  if (ec != std::errc() || end != text.data() + text.size()) {
    return InvalidArgumentError("is not a number");
  }
  return value;
}

template <typename T>
std::string FormatFloating(T v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  if (ec != std::errc()) return "NaN";  // cannot happen with 64 bytes
  return std::string(buf, end);
}

}  // namespace

DecimalError ParseDecimal(std::string_view text, int precision, int scale, Int128* unscaled) {
  size_t pos = 0;
  bool negative = false;
  if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
    negative = text[pos] == '-';
    ++pos;
  }
  std::string digits;  // integer and fraction digits, without the point
  int64_t fraction_digits = 0;
  bool any_digit = false;
  while (pos < text.size() && IsDigit(text[pos])) {
    digits.push_back(text[pos++]);
    any_digit = true;
  }
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && IsDigit(text[pos])) {
      digits.push_back(text[pos++]);
      ++fraction_digits;
      any_digit = true;
    }
  }
  if (!any_digit) return DecimalError::kNotANumber;
  int64_t exponent = 0;
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    ++pos;
    bool exp_negative = false;
    if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
      exp_negative = text[pos] == '-';
      ++pos;
    }
    if (pos >= text.size() || !IsDigit(text[pos])) return DecimalError::kNotANumber;
    while (pos < text.size() && IsDigit(text[pos])) {
      if (exponent < kMaxExponent) exponent = exponent * 10 + (text[pos] - '0');
      ++pos;
    }
    if (exp_negative) exponent = -exponent;
  }
  if (pos != text.size()) return DecimalError::kNotANumber;

  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    *unscaled = 0;
    return DecimalError::kOk;
  }
  digits.erase(0, first);
  // value = digits * 10^-effective_scale
  int64_t effective_scale = fraction_digits - exponent;
  while (effective_scale > scale && !digits.empty() && digits.back() == '0') {
    digits.pop_back();
    --effective_scale;
  }
  if (effective_scale > scale) return DecimalError::kTooManyPlaces;
  int64_t total_digits = static_cast<int64_t>(digits.size()) + (scale - effective_scale);
  if (total_digits > precision || total_digits > 38) return DecimalError::kDoesNotFit;
  Int128 v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  for (int64_t i = effective_scale; i < scale; ++i) v *= 10;
  *unscaled = negative ? -v : v;
  return DecimalError::kOk;
}

Result<Int128> ParseIntegral(std::string_view text, Int128 min, Int128 max) {
  Int128 v = 0;
  DecimalError e = ParseDecimal(text, 38, 0, &v);
  if (e == DecimalError::kNotANumber || e == DecimalError::kTooManyPlaces) {
    return InvalidArgumentError("is not an integer");
  }
  if (e == DecimalError::kDoesNotFit || v < min || v > max) {
    return InvalidArgumentError("is out of range (" + arrow::Int128ToString(min) + ".." +
                                arrow::Int128ToString(max) + ")");
  }
  return v;
}

std::string FormatDouble(double v) { return FormatFloating(v); }
std::string FormatFloat(float v) { return FormatFloating(v); }

bool IsFiniteNumberText(const std::string& formatted) {
  return formatted != "NaN" && formatted != "Infinity" && formatted != "-Infinity";
}

Result<double> ParseDoubleText(std::string_view text) {
  return ParseFloating<double>(text, "DOUBLE");
}
Result<float> ParseFloatText(std::string_view text) { return ParseFloating<float>(text, "FLOAT"); }

}  // namespace mink::arrow_json
