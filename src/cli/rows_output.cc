#include "cli/rows_output.h"

#include <unistd.h>

#include "cli/cli_common.h"
#include "arrow_json/arrow_to_json.h"

namespace mink::cli {
namespace {

// A table on a terminal is printed in blocks of this many rows (widths fixed by the first).
constexpr size_t kTableBlockRows = 1000;

}  // namespace

RowsOutput::RowsOutput(const std::string& format)
    : as_table_(format.empty() ? IsTerminal(STDOUT_FILENO) : format == "table") {}

void RowsOutput::Begin(const arrow::Schema& schema) {
  if (!as_table_ || printer_) return;
  std::vector<std::string> headers;
  std::vector<bool> right;
  for (const auto& f : schema.fields()) {
    headers.push_back(f.name());
    auto id = f.type()->id();
    right.push_back(id >= arrow::TypeId::kInt8 && id <= arrow::TypeId::kDecimal128);
  }
  printer_.emplace(std::move(headers), std::move(right));
}

Result<bool> RowsOutput::Add(const arrow::RecordBatch& batch, bool flush) {
  MINK_RETURN_IF_ERROR(batch.Validate().WithContext("bad data from the node"));
  MINK_ASSIGN_OR_RETURN(auto formatter, arrow_json::RowFormatter::Make(batch));
  out_.clear();
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    if (printer_) {
      std::vector<std::string> cells(formatter.columns().size());
      for (size_t c = 0; c < cells.size(); ++c) formatter.columns()[c].AppendText(r, &cells[c]);
      printer_->AddRow(std::move(cells));
      if (printer_->buffered_rows() >= kTableBlockRows) printer_->Render(&out_);
    } else {
      formatter.AppendJsonRow(r, &out_);
      out_.push_back('\n');
    }
  }
  if (printer_ && flush) printer_->Render(&out_);
  return WriteStdout(out_);
}

void RowsOutput::Finish() {
  if (!printer_) return;
  out_.clear();
  printer_->Render(&out_);
  WriteStdout(out_);
}

}  // namespace mink::cli
