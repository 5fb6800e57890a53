#pragma once
// TablePrinter: aligned text tables for a terminal.
//
//   id | region | amount
//   ---+--------+-------
//    1 | us     |  11.00
//    2 | eu     |   3.00
//
// Column widths count UTF-8 code points. Right-aligned columns (numbers) pad on the left. Rows
// are buffered until Render(); a streaming caller (a follow read) renders after every batch:
// the header is written once, and widths only grow, so earlier lines stay as they were.

#include <string>
#include <vector>

namespace mink::client {

class TablePrinter {
 public:
  TablePrinter(std::vector<std::string> headers, std::vector<bool> right_align);

  void AddRow(std::vector<std::string> cells);
  size_t buffered_rows() const { return rows_.size(); }
  // Appends the header (the first time) and the buffered rows to *out, then forgets the rows.
  void Render(std::string* out);

  // Code points of a UTF-8 string (continuation bytes are not counted).
  static size_t DisplayWidth(const std::string& s);

 private:
  void AppendCell(const std::string& cell, size_t column, std::string* out) const;

  std::vector<std::string> headers_;
  std::vector<bool> right_align_;
  std::vector<size_t> widths_;
  std::vector<std::vector<std::string>> rows_;
  bool header_written_ = false;
};

}  // namespace mink::client
