#pragma once
// Hex helpers for golden-byte tests.

#include <string>
#include <string_view>

namespace mink::kafka::testing {

// "00 12 | 0a" → bytes; spaces and '|' are ignored.
std::string FromHex(std::string_view hex);
std::string ToHex(std::string_view bytes);

}  // namespace mink::kafka::testing
