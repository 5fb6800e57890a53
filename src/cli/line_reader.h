#pragma once
// LineReader: lines of a FILE* (stdin), read in large blocks. A line ends at '\n'; a '\r'
// before it is dropped; the last line may lack its '\n'.

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "base/result.h"

namespace mink::cli {

class LineReader {
 public:
  explicit LineReader(std::FILE* file, size_t block_size = 1 << 20)
      : file_(file), block_size_(block_size) {}

  // The next line in *line (valid until the next call): true, or false at the end of input.
  Result<bool> Next(std::string_view* line);
  // Bytes handed out so far, line ends included.
  int64_t bytes_read() const { return bytes_read_; }

 private:
  std::FILE* file_;
  size_t block_size_;
  std::string buffer_;
  size_t position_ = 0;
  bool eof_ = false;
  int64_t bytes_read_ = 0;
};

// True when the line holds only blanks (spaces, tabs).
bool IsBlankLine(std::string_view line);

// A progress line on stderr for long operations on a terminal: "\r<label>: <n> rows (<r>
// rows/s)", first shown after a second, refreshed at most four times a second, erased by Done().
// Does nothing when stderr is not a terminal.
class ProgressLine {
 public:
  explicit ProgressLine(std::string label);
  ~ProgressLine() { Done(); }
  void Update(int64_t rows, const char* what);
  void Done();

 private:
  std::string label_;
  bool enabled_;
  bool shown_ = false;
  int64_t start_ns_;
  int64_t last_ns_ = 0;
};

}  // namespace mink::cli
