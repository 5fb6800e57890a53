#include "cli/line_reader.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace mink::cli {

Result<bool> LineReader::Next(std::string_view* line) {
  while (true) {
    size_t newline = buffer_.find('\n', position_);
    if (newline != std::string::npos || (eof_ && position_ < buffer_.size())) {
      size_t end = newline != std::string::npos ? newline : buffer_.size();
      bytes_read_ += static_cast<int64_t>(end - position_ + (newline != std::string::npos));
      std::string_view out(buffer_.data() + position_, end - position_);
      if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
      position_ = newline != std::string::npos ? newline + 1 : buffer_.size();
      *line = out;
      return true;
    }
    if (eof_) return false;
    buffer_.erase(0, position_);
    position_ = 0;
    size_t old_size = buffer_.size();
    buffer_.resize(old_size + block_size_);
    size_t n = std::fread(buffer_.data() + old_size, 1, block_size_, file_);
    buffer_.resize(old_size + n);
    if (n < block_size_) {
      if (std::ferror(file_)) {
        return UnavailableError(std::string("cannot read the input: ") + std::strerror(errno));
      }
      eof_ = std::feof(file_) != 0;
      if (!eof_ && n == 0) eof_ = true;
    }
  }
}

bool IsBlankLine(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ProgressLine::ProgressLine(std::string label)
    : label_(std::move(label)), enabled_(isatty(STDERR_FILENO) == 1), start_ns_(NowNs()) {}

void ProgressLine::Update(int64_t rows, const char* what) {
  if (!enabled_) return;
  int64_t now = NowNs();
  if (now - start_ns_ < 1'000'000'000 || now - last_ns_ < 250'000'000) return;
  last_ns_ = now;
  double seconds = static_cast<double>(now - start_ns_) / 1e9;
  std::string text = "\r" + label_ + ": " + std::to_string(rows) + " rows " + what + " (" +
                     std::to_string(static_cast<int64_t>(static_cast<double>(rows) / seconds)) +
                     " rows/s)\x1b[K";
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::Done() {
  if (!shown_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace mink::cli
