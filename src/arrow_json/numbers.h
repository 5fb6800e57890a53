#pragma once
// Exact number text for Mink's clients: decimals without rounding, integers of every width,
// and the shortest round-trip form of floating-point values.

#include <string>
#include <string_view>

#include "base/result.h"

namespace mink::arrow_json {

__extension__ typedef __int128 Int128;

enum class DecimalError {
  kOk,
  kNotANumber,     // not [+-]digits[.digits][(e|E)[+-]digits]
  kTooManyPlaces,  // more significant fractional digits than the scale (no rounding)
  kDoesNotFit,     // more than precision - scale integer digits
};

// Parses decimal text into the unscaled value at `scale` (123.45 at scale 2 is 12345). Accepts
// an optional sign, an optional fraction and an optional exponent; trailing zeros beyond the
// scale are fine ("1.500" at scale 2), other digits beyond it are kTooManyPlaces.
DecimalError ParseDecimal(std::string_view text, int precision, int scale, Int128* unscaled);

// An integral value written as decimal text ("42", "-7", "1e3", "2.0"), within
// [min, max]. Errors: "is not an integer", "is out of range (min..max)".
Result<Int128> ParseIntegral(std::string_view text, Int128 min, Int128 max);

// JSON text of a double/float: the shortest text that reads back to the same value ("0.1",
// "1e+20", "-0"). NaN and infinities are not JSON numbers: "NaN", "Infinity", "-Infinity"
// (callers quote them).
std::string FormatDouble(double v);
std::string FormatFloat(float v);
bool IsFiniteNumberText(const std::string& formatted);

// Parses a double/float from JSON number text or "NaN" / "Infinity" / "-Infinity". Values out
// of range are errors (no silent infinity).
Result<double> ParseDoubleText(std::string_view text);
Result<float> ParseFloatText(std::string_view text);

}  // namespace mink::arrow_json
