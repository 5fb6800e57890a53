#pragma once
// SQL text for names and values spliced into the queries Mink builds: an identifier in double
// quotes and a string literal in single quotes, each with its quote doubled inside.

#include <string>
#include <string_view>

namespace mink::sql {

inline std::string Quoted(std::string_view text, char quote) {
  std::string out(1, quote);
  for (char c : text) {
    out += c;
    if (c == quote) out += quote;
  }
  return out + quote;
}

// "name" (a column or table name, any characters).
inline std::string QuoteIdentifier(std::string_view name) { return Quoted(name, '"'); }
// 'text'.
inline std::string QuoteLiteral(std::string_view text) { return Quoted(text, '\''); }

}  // namespace mink::sql
