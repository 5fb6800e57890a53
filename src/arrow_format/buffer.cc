#include "arrow_format/buffer.h"

#include <cstdio>
#include <utility>

namespace mink::arrow {
namespace {

alignas(64) const uint8_t kZeros[64] = {};

void AbortOutOfMemory(int64_t bytes) {
  std::fprintf(stderr, "mink::arrow: out of memory allocating %lld bytes\n",
               static_cast<long long>(bytes));
  std::abort();
}

}  // namespace

Buffer::Buffer(const void* data, int64_t size, std::shared_ptr<const void> owner)
    : data_(data != nullptr ? static_cast<const uint8_t*>(data) : kZeros),
      size_(size),
      owner_(std::move(owner)) {}

BufferPtr Buffer::FromMalloc(uint8_t* data, int64_t size) {
  std::shared_ptr<const void> owner(data, [](const void* p) { std::free(const_cast<void*>(p)); });
  return std::make_shared<const Buffer>(data, size, std::move(owner));
}

BufferPtr Buffer::FromString(std::string bytes) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  const std::string& s = *owner;
  return std::make_shared<const Buffer>(s.data(), static_cast<int64_t>(s.size()), owner);
}

BufferPtr Buffer::Copy(const void* data, int64_t size) {
  if (size <= 0) return Empty();
  auto* copy = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(size)));
  if (copy == nullptr) AbortOutOfMemory(size);
  std::memcpy(copy, data, static_cast<size_t>(size));
  return FromMalloc(copy, size);
}

BufferPtr Buffer::Slice(const BufferPtr& parent, int64_t offset, int64_t size) {
  return std::make_shared<const Buffer>(parent->data() + offset, size, parent);
}

const BufferPtr& Buffer::Empty() {
  static const BufferPtr empty = std::make_shared<const Buffer>(kZeros, 0, nullptr);
  return empty;
}

BufferPtr Buffer::Zeros(int64_t size) {
  if (size > static_cast<int64_t>(sizeof(kZeros))) return nullptr;
  return std::make_shared<const Buffer>(kZeros, size, nullptr);
}

BufferBuilder::BufferBuilder(BufferBuilder&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

BufferBuilder& BufferBuilder::operator=(BufferBuilder&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void BufferBuilder::Grow(int64_t min_capacity) {
  int64_t new_capacity = capacity_ < 64 ? 64 : capacity_;
  while (new_capacity < min_capacity) new_capacity *= 2;
  auto* grown = static_cast<uint8_t*>(std::realloc(data_, static_cast<size_t>(new_capacity)));
  if (grown == nullptr) AbortOutOfMemory(new_capacity);
  data_ = grown;
  capacity_ = new_capacity;
}

void BufferBuilder::AppendZeros(int64_t n) {
  Reserve(n);
  if (n > 0) std::memset(data_ + size_, 0, static_cast<size_t>(n));
  size_ += n;
}

void BufferBuilder::Resize(int64_t new_size) {
  if (new_size > size_) {
    AppendZeros(new_size - size_);
  } else {
    size_ = new_size;
  }
}

BufferPtr BufferBuilder::Finish() {
  if (data_ == nullptr) return Buffer::Empty();
  BufferPtr out = Buffer::FromMalloc(data_, size_);
  data_ = nullptr;
  size_ = 0;
  capacity_ = 0;
  return out;
}

void BufferBuilder::Reset() {
  std::free(data_);
  data_ = nullptr;
  size_ = 0;
  capacity_ = 0;
}

}  // namespace mink::arrow
