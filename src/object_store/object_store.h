#pragma once
// ObjectStore: the one interface to durable bytes. Objects are immutable and written whole; a key
// is never reused by Mink. All calls are blocking and thread-safe; callers run them on their own
// threads (the storage layer's upload and read pools).
//
// Backends: file:// (file_store.h), s3:// (s3/s3_store.h), mem:// (memory_store.h, with faults).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace mink::object_store {

// Bytes read from a store: a string, or a window into memory a backend filled without
// initialising it first (file:// reads straight into it, saving the zero-fill a std::string needs,
// and with O_DIRECT into an aligned block around the range). Move-only.
class Buffer {
 public:
  using Free = void (*)(char*);
  Buffer() = default;
  explicit Buffer(std::string bytes)
      : string_(std::move(bytes)), data_(string_.data()), size_(string_.size()) {}
  // `size` bytes at `data`, inside the block `owner` holds and frees.
  Buffer(std::unique_ptr<char, Free> owner, const char* data, size_t size)
      : owner_(std::move(owner)), data_(data), size_(size) {}
  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    const bool in_string = other.owner_ == nullptr;
    string_ = std::move(other.string_);
    owner_ = std::move(other.owner_);
    data_ = in_string ? string_.data() : other.data_;  // a moved string may move its bytes
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
    return *this;
  }

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view view() const { return std::string_view(data_, size_); }

 private:
  std::string string_;
  std::unique_ptr<char, Free> owner_{nullptr, nullptr};
  const char* data_ = nullptr;
  size_t size_ = 0;
};

// How a reader expects to use a range it reads, so that a backend with an operating-system
// cache can choose whether the range should stay there (decision 0005).
enum class Reuse {
  kFirstRead,  // read once for now (a scan, a consumer, compaction): file:// reads large ranges
               // with O_DIRECT, past the page cache
  kRereading,  // read before, and likely again: file:// reads through the page cache, which
               // keeps it for the next time
};

struct ObjectInfo {
  std::string key;
  uint64_t size = 0;
  int64_t last_modified_ms = 0;  // wall clock of the write, as the backend reports it
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // Writes `data` under `key`; when it returns OK the object is durable and readable whole.
  // A failed Put may or may not have stored the object.
  virtual Status Put(std::string_view key, std::string_view data) = 0;

  // Writes an object that nobody reads before the caller publishes its key (the WAL commits the
  // key to the metadata log only after this returns), under a key never used before. Durable when
  // it returns OK, as Put; but while it runs a reader could see part of the object, and a crash
  // can leave part of it behind (the orphan sweep deletes unpublished objects). A backend that
  // has no cheaper way to do that does a Put.
  virtual Status PutUnpublished(std::string_view key, std::string_view data) {
    return Put(key, data);
  }

  // A Put that nobody waits for (compaction's outputs). A backend whose device the node's other
  // writes share may pace it, so that it takes only part of the device's time; the others do a
  // Put.
  virtual Status PutInBackground(std::string_view key, std::string_view data) {
    return Put(key, data);
  }

  // The whole object; NotFound when there is none.
  virtual Result<std::string> Get(std::string_view key) = 0;

  // Bytes [offset, offset + length) of the object, fewer if the object ends first. OutOfRange when
  // offset is at or beyond the end (and length > 0); NotFound when there is no object.
  virtual Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) = 0;

  // GetRange into a Buffer, with the same results and errors. The default wraps GetRange; a
  // backend overrides it when it can avoid initialising or copying the bytes, or use `reuse`.
  virtual Result<Buffer> GetRangeBuffer(std::string_view key, uint64_t offset, uint64_t length,
                                        Reuse reuse) {
    (void)reuse;
    MINK_ASSIGN_OR_RETURN(auto bytes, GetRange(key, offset, length));
    return Buffer(std::move(bytes));
  }

  // Size and time of one object; NotFound when there is none.
  virtual Result<ObjectInfo> Head(std::string_view key) = 0;

  // Every object whose key starts with `prefix`, in ascending key order.
  virtual Result<std::vector<ObjectInfo>> List(std::string_view prefix) = 0;

  // Removes the object; removing a missing object is OK.
  virtual Status Delete(std::string_view key) = 0;

  // The store's location for logs and errors, never with credentials.
  virtual std::string Describe() const = 0;
};

// Keys are relative paths of [A-Za-z0-9._=-] segments separated by '/', without "." or ".."
// segments and at most 1024 bytes. Every backend applies the same rule.
Status ValidateKey(std::string_view key);

}  // namespace mink::object_store
