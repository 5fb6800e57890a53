#include "client/table_printer.h"

#include <algorithm>

namespace mink::client {

TablePrinter::TablePrinter(std::vector<std::string> headers, std::vector<bool> right_align)
    : headers_(std::move(headers)), right_align_(std::move(right_align)) {
  right_align_.resize(headers_.size(), false);
  for (const auto& h : headers_) widths_.push_back(DisplayWidth(h));
}

size_t TablePrinter::DisplayWidth(const std::string& s) {
  size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

void TablePrinter::AddRow(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

void TablePrinter::AppendCell(const std::string& cell, size_t column, std::string* out) const {
  size_t pad = widths_[column] - std::min(widths_[column], DisplayWidth(cell));
  bool last = column + 1 == headers_.size();
  if (right_align_[column]) {
    out->append(pad, ' ');
    out->append(cell);
  } else {
    out->append(cell);
    if (!last) out->append(pad, ' ');  // no trailing blanks at the end of a line
  }
}

void TablePrinter::Render(std::string* out) {
  if (!header_written_) {
    // The first render sizes the columns for everything buffered so far.
    for (const auto& row : rows_) {
      for (size_t c = 0; c < row.size(); ++c)
        widths_[c] = std::max(widths_[c], DisplayWidth(row[c]));
    }
    for (size_t c = 0; c < headers_.size(); ++c) {
      if (c > 0) out->append(" | ");
      // Headers are left-aligned over text and right-aligned over numbers.
      AppendCell(headers_[c], c, out);
    }
    out->push_back('\n');
    for (size_t c = 0; c < headers_.size(); ++c) {
      if (c > 0) out->append("-+-");
      out->append(widths_[c], '-');
    }
    out->push_back('\n');
    header_written_ = true;
  } else {
    // Later renders widen columns when needed (earlier lines are already out).
    for (const auto& row : rows_) {
      for (size_t c = 0; c < row.size(); ++c)
        widths_[c] = std::max(widths_[c], DisplayWidth(row[c]));
    }
  }
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out->append(" | ");
      AppendCell(row[c], c, out);
    }
    out->push_back('\n');
  }
  rows_.clear();
}

}  // namespace mink::client
