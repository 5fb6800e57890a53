#include "kafka/protocol/frame.h"

#include "kafka/protocol/wire.h"

namespace mink::kafka {

Result<size_t> ParseFrameSize(const char prefix[4], size_t max_frame_size) {
  const int32_t size = static_cast<int32_t>(LoadBe32(prefix));
  if (size < 0) {
    return InvalidArgumentError("malformed frame: negative size " + std::to_string(size));
  }
  if (static_cast<size_t>(size) > max_frame_size) {
    return InvalidArgumentError("frame of " + std::to_string(size) +
                                " bytes exceeds the maximum of " +
                                std::to_string(max_frame_size));
  }
  return static_cast<size_t>(size);
}

Result<std::optional<std::string_view>> PeekFrame(std::string_view bytes, size_t* frame_size,
                                                  size_t max_frame_size) {
  if (bytes.size() < 4) return std::optional<std::string_view>();
  auto size = ParseFrameSize(bytes.data(), max_frame_size);
  if (!size.ok()) return size.status();
  if (bytes.size() - 4 < *size) return std::optional<std::string_view>();
  *frame_size = 4 + *size;
  return std::optional<std::string_view>(bytes.substr(4, *size));
}

Status FrameSplitter::Append(std::string_view bytes) {
  if (!error_.ok()) return error_;
  // Check the prefix of the frame in progress before buffering its payload.
  const size_t pending = buffer_.size() - consumed_;
  if (pending < 4 && pending + bytes.size() >= 4) {
    char prefix[4];
    for (size_t i = 0; i < 4; ++i) {
      prefix[i] = i < pending ? buffer_[consumed_ + i] : bytes[i - pending];
    }
    auto size = ParseFrameSize(prefix, max_frame_size_);
    if (!size.ok()) {
      error_ = size.status();
      return error_;
    }
  }
  buffer_.append(bytes);
  return Status::Ok();
}

Result<std::optional<std::string>> FrameSplitter::Next() {
  if (!error_.ok()) return error_;
  std::string_view pending(buffer_.data() + consumed_, buffer_.size() - consumed_);
  size_t frame_size = 0;
  auto frame = PeekFrame(pending, &frame_size, max_frame_size_);
  if (!frame.ok()) {
    error_ = frame.status();
    return error_;
  }
  if (!frame->has_value()) {
    // Compact so that the buffer never holds more than the frame in progress.
    if (consumed_ > 0) {
      buffer_.erase(0, consumed_);
      consumed_ = 0;
    }
    return std::optional<std::string>();
  }
  std::string payload(**frame);
  consumed_ += frame_size;
  if (consumed_ == buffer_.size()) {
    buffer_.clear();
    consumed_ = 0;
  }
  return std::optional<std::string>(std::move(payload));
}

size_t FrameSplitter::missing() const {
  const size_t have = buffer_.size() - consumed_;
  if (have < 4) return 0;
  const int32_t size = static_cast<int32_t>(LoadBe32(buffer_.data() + consumed_));
  if (size < 0) return 0;
  const size_t total = 4 + static_cast<size_t>(size);
  return total > have ? total - have : 0;
}

}  // namespace mink::kafka
