// libFuzzer target: the envelope of continuous SQL statements (ParseStatements), which parses
// every statement a caller sends to POST /api/v1/sql, the continuous-sql Flight action and
// mink-query before DuckDB sees a query. It must refuse or parse, never crash or hang; a parsed
// statement must parse the same again from its own text.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "stream/statement.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view sql(reinterpret_cast<const char*>(data), size);
  auto statements = mink::stream::ParseStatements(sql);
  if (statements.ok()) {
    for (const auto& s : *statements) {
      (void)mink::stream::OptionOf(s, "topic");
      auto again = mink::stream::ParseStatement(s.text);
      if (!again.ok() || again->kind != s.kind || again->name != s.name || again->columns != s.columns) std::abort();
    }
  }
  (void)mink::stream::ParseStatement(sql);
  return 0;
}
