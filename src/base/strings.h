#pragma once
// String helpers that several layers need: splitting, strict number parsing, hex, durations.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace mink {

std::vector<std::string> Split(std::string_view text, char sep);
std::string_view Trim(std::string_view text);

// Whole-string parses: "12x" and "" are errors that name the text.
Result<int64_t> ParseInt64(std::string_view text);
Result<uint64_t> ParseUint64(std::string_view text);
Result<double> ParseDouble(std::string_view text);
Result<bool> ParseBool(std::string_view text);

// Durations like "250ms", "5s", "3m", "1h", "7d"; a bare number is milliseconds.
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);
// Sizes like "8MiB", "512KiB", "1GiB", "4096"; a bare number is bytes.
Result<uint64_t> ParseByteSize(std::string_view text);

std::string HexEncode(std::string_view bytes);
// RFC 4648 base64 with padding ("Zm9v" for "foo").
std::string Base64Encode(std::string_view bytes);
Result<std::string> HexDecode(std::string_view hex);

}  // namespace mink
