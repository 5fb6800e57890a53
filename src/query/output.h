#pragma once
// How mink-query prints results: an aligned table (the `mink` CLI's TablePrinter), JSON lines
// and CSV (values formatted as `mink read` does: decimals with their scale, BYTES as hex, ISO
// dates and times), or an Arrow IPC stream.

#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "query/engine.h"

namespace mink::query {

enum class OutputFormat { kTable, kJson, kCsv, kArrow };

// "table", "json", "csv", "arrow".
Result<OutputFormat> ParseOutputFormat(std::string_view name);

// Returns false when the output is gone (a closed pipe); printing then stops.
using OutputSink = std::function<bool(std::string_view)>;

struct PrintStats {
  int64_t rows = 0;
};

// Prints every row of `result`. A table is buffered and printed at the end (with a row count
// line "(N rows)" when `row_count_footer`); the other formats stream batch by batch. EXPLAIN
// output (explain_key, explain_value) prints as its plan text in the table format.
Result<PrintStats> PrintResult(ResultStream& result, OutputFormat format, bool row_count_footer,
                               const OutputSink& out);

// One CSV field: quoted when it holds a comma, quote, line break or outer blanks.
std::string CsvField(std::string_view text);

}  // namespace mink::query
