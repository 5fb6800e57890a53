#pragma once
// Buffer: an immutable run of bytes, shared between arrays as shared_ptr<const Buffer>. A buffer
// either owns its bytes or views bytes kept alive by an owner (a slice of an IPC input, say), so
// arrays can reference their input without copying.
//
// BufferBuilder: the growable byte store builders append to. Growth is amortised (doubling) and
// Finish() hands the allocation over to a Buffer without copying.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace mink::arrow {

class Buffer;
using BufferPtr = std::shared_ptr<const Buffer>;

class Buffer {
 public:
  // Views `size` bytes at `data`, kept alive by `owner` (which may be null for static data).
  Buffer(const void* data, int64_t size, std::shared_ptr<const void> owner);

  // Takes over memory allocated with std::malloc/std::realloc.
  static BufferPtr FromMalloc(uint8_t* data, int64_t size);
  static BufferPtr FromString(std::string bytes);
  static BufferPtr Copy(const void* data, int64_t size);
  // Bytes [offset, offset + size) of `parent`, sharing it. The caller checks the range.
  static BufferPtr Slice(const BufferPtr& parent, int64_t offset, int64_t size);
  // A shared empty buffer whose data() points at 64 zero bytes.
  static const BufferPtr& Empty();
  // `size` (at most 64) zero bytes, shared.
  static BufferPtr Zeros(int64_t size);

  // Never null, even when size() is 0.
  const uint8_t* data() const { return data_; }
  int64_t size() const { return size_; }
  std::string_view view() const {
    return std::string_view(reinterpret_cast<const char*>(data_), static_cast<size_t>(size_));
  }
  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data_);
  }

 private:
  const uint8_t* data_;
  int64_t size_;
  std::shared_ptr<const void> owner_;
};

class BufferBuilder {
 public:
  BufferBuilder() = default;
  ~BufferBuilder() { std::free(data_); }
  BufferBuilder(const BufferBuilder&) = delete;
  BufferBuilder& operator=(const BufferBuilder&) = delete;
  BufferBuilder(BufferBuilder&& other) noexcept;
  BufferBuilder& operator=(BufferBuilder&& other) noexcept;

  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  uint8_t* mutable_data() { return data_; }
  const uint8_t* data() const { return data_; }

  // Makes room for `additional` more bytes.
  void Reserve(int64_t additional) {
    if (size_ + additional > capacity_) Grow(size_ + additional);
  }
  void Append(const void* bytes, int64_t n) {
    Reserve(n);
    if (n > 0) std::memcpy(data_ + size_, bytes, static_cast<size_t>(n));
    size_ += n;
  }
  template <typename T>
  void Append(T value) {
    Reserve(sizeof(T));
    UnsafeAppend(value);
  }
  // The caller reserved the room. Short runs are copied inline (no memcpy call).
  void UnsafeAppendBytes(const void* bytes, int64_t n) {
    uint8_t* dst = data_ + size_;
    const auto* src = static_cast<const uint8_t*>(bytes);
    if (n >= 8 && n <= 16) {
      std::memcpy(dst, src, 8);
      std::memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 4 && n < 8) {
      std::memcpy(dst, src, 4);
      std::memcpy(dst + n - 4, src + n - 4, 4);
    } else if (n < 4) {
      for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
    } else {
      std::memcpy(dst, src, static_cast<size_t>(n));
    }
    size_ += n;
  }
  template <typename T>
  void UnsafeAppend(T value) {
    std::memcpy(data_ + size_, &value, sizeof(T));
    size_ += sizeof(T);
  }
  void AppendZeros(int64_t n);
  void Resize(int64_t new_size);  // new bytes are zero

  // Hands the bytes over (no copy) and leaves the builder empty.
  BufferPtr Finish();
  void Reset();

 private:
  void Grow(int64_t min_capacity);

  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
  int64_t capacity_ = 0;
};

}  // namespace mink::arrow
