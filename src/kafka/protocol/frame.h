#pragma once
// Kafka framing: every request and response is an int32 big-endian size followed by that many
// bytes. The size is checked against a maximum BEFORE anything is allocated for the frame.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace mink::kafka {

constexpr size_t kDefaultMaxFrameSize = 100u << 20;  // 100 MiB, Kafka's socket.request.max.bytes

// The payload size announced by a 4-byte frame prefix, checked: a negative size or one above
// `max_frame_size` is InvalidArgument (the connection should then be closed).
Result<size_t> ParseFrameSize(const char prefix[4], size_t max_frame_size = kDefaultMaxFrameSize);

// Splits a byte stream from a socket into frames. Feed it whatever arrives; Next() returns each
// complete payload in order. Memory follows the bytes actually received, never a declared size:
// nothing is reserved from a size prefix, and each prefix is checked as soon as its 4 bytes are
// there (Append fails then), so a hostile size is refused before its payload is buffered.
class FrameSplitter {
 public:
  explicit FrameSplitter(size_t max_frame_size = kDefaultMaxFrameSize)
      : max_frame_size_(max_frame_size) {}

  // Appends bytes received from the socket; fails (and stays failed) once a frame prefix
  // announces a negative or oversized frame.
  Status Append(std::string_view bytes);

  // The next complete frame payload (without the size prefix), std::nullopt if more bytes are
  // needed, or an error for a bad size (the splitter then stays failed).
  Result<std::optional<std::string>> Next();

  // Bytes buffered and not yet returned.
  size_t buffered() const { return buffer_.size() - consumed_; }
  // How many more bytes the frame in progress needs (0 if unknown: fewer than 4 bytes buffered).
  size_t missing() const;

 private:
  size_t max_frame_size_;
  std::string buffer_;
  size_t consumed_ = 0;
  Status error_;
};

// The payload of the first complete frame of `bytes`, or std::nullopt if incomplete. Sets
// `*frame_size` (4 + payload) when complete. Stateless variant of FrameSplitter.
Result<std::optional<std::string_view>> PeekFrame(std::string_view bytes, size_t* frame_size,
                                                  size_t max_frame_size = kDefaultMaxFrameSize);

}  // namespace mink::kafka
