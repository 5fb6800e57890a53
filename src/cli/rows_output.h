#pragma once
// RowsOutput: record batches printed the way `mink read` and `mink lookup` print them: JSON
// lines (one object per row) when piped, an aligned table on a terminal, or as --format says.

#include <optional>
#include <string>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "client/table_printer.h"

namespace mink::cli {

class RowsOutput {
 public:
  // `format`: "json", "table", or "" (a table on a terminal, JSON lines otherwise).
  explicit RowsOutput(const std::string& format);

  // The columns of the rows to come (a table needs them for its header).
  void Begin(const arrow::Schema& schema);
  // Prints a batch's rows (a table is printed in blocks, or at once when `flush`). False when
  // stdout is gone: the caller stops quietly.
  Result<bool> Add(const arrow::RecordBatch& batch, bool flush = false);
  // Prints what a table still holds.
  void Finish();

 private:
  const bool as_table_;
  std::optional<client::TablePrinter> printer_;
  std::string out_;
};

}  // namespace mink::cli
