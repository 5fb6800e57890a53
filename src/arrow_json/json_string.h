#pragma once
// JSON string literals, for every client that writes JSON text: quotes, escapes for '"', '\\'
// and control characters; bytes that are not valid UTF-8 become U+FFFD.

#include <string>
#include <string_view>

namespace mink::arrow_json {

// Appends `s` as a JSON string literal.
void AppendJsonString(std::string_view s, std::string* out);
std::string JsonQuote(std::string_view s);

}  // namespace mink::arrow_json
