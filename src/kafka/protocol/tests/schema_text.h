#pragma once
// What schema_parser.cc (the notation) and schema_reader.cc (reading bodies) share.

#include <string>
#include <string_view>

#include "kafka/protocol/tests/schema_reader.h"

namespace mink::kafka::testing {

inline constexpr int kMaxVersion = 0x7fff;  // "N+": every version from N on

// A version number of at most 6 digits.
bool ParseInt(std::string_view s, int* out);
// "N", "N+", "N-M" or "none", as the notation writes a range.
std::string RangeText(VersionRange r);

}  // namespace mink::kafka::testing
