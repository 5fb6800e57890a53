#include "object_store/file_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>

#include "base/clock.h"

namespace mink::object_store {
namespace {

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  std::string msg = what + " " + path + ": " + std::strerror(err);
  if (err == ENOENT) return NotFoundError(msg);
  if (err == ENOSPC || err == EDQUOT) return ResourceExhaustedError(msg);
  if (err == EINTR || err == EAGAIN || err == EIO) return UnavailableError(msg);
  return InternalError(msg);
}

Status FsyncPath(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open directory", path, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoStatus("fsync directory", path, err);
  return Status::Ok();
}

std::string ParentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

int64_t MtimeMillis(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int Release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes the descriptor held, if any, and holds `fd` instead.
  void Reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// Reads up to `length` bytes at `offset` into `out`; stops early at the end of the file (a short
// read: asking again there at an unaligned offset is what O_DIRECT refuses). On failure
// `failed_errno`, when given, gets the errno.
Result<size_t> PreadFully(int fd, uint64_t offset, size_t length, char* out,
                          const std::string& path, int* failed_errno = nullptr) {
  size_t done = 0;
  while (done < length) {
    const size_t want = length - done;
    ssize_t n = ::pread(fd, out + done, want, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (failed_errno != nullptr) *failed_errno = errno;
      return ErrnoStatus("read", path, errno);
    }
    done += static_cast<size_t>(n);
    if (static_cast<size_t>(n) < want) break;
  }
  return done;
}

Status ReadFully(int fd, uint64_t offset, size_t length, std::string* out, const std::string& path) {
  out->resize(length);
  MINK_ASSIGN_OR_RETURN(size_t done, PreadFully(fd, offset, length, out->data(), path));
  out->resize(done);
  return Status::Ok();
}

// Writes all of `data` to `fd`.
Status WriteFully(int fd, std::string_view data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write", path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Objects at least this large are written with O_DIRECT by PutUnpublished.
constexpr size_t kDirectMinBytes = 256 << 10;
// Ranges at least this large, read for the first time, are read with O_DIRECT by GetRangeBuffer.
constexpr size_t kDirectReadMinBytes = 64 << 10;
constexpr size_t kDirectAlign = 4096;
// Spare inodes kept ready: a few flush intervals' worth of WAL objects and compaction outputs.
constexpr size_t kSpareFiles = 32;

// How a large object is written with O_DIRECT.
enum class Pace {
  kAllAtOnce,  // PutUnpublished: an acknowledgement waits for the WAL's object
  // Put: kPieceBytes at a time, each write waiting for the device, so a large object never
  // fills the device's queue ahead of the WAL's puts (as one write, or a buffered write and its
  // fdatasync, did).
  kPieces,
  // PutInBackground (compaction outputs): pieces, each followed by a pause as long as its write
  // took, so the object has at most half of the device's time.
  kBackground,
};
constexpr size_t kPieceBytes = 1 << 20;

// Writes `data` to `fd`, opened with O_DIRECT, through an aligned copy, at the given pace: the
// last piece padded to the alignment, then the file cut back to its size. Skipping the page cache
// saves the copy into it and most of the writeback work, CPU time that the appends' own threads
// need on a busy node. Unimplemented when the file system refuses the write (EINVAL), so the
// caller writes without O_DIRECT.
Status WriteDirect(int fd, std::string_view data, const std::string& path, Pace pace) {
  const size_t padded = (data.size() + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
  const size_t piece = pace == Pace::kAllAtOnce ? padded : std::min(padded, kPieceBytes);
  void* raw = nullptr;
  if (::posix_memalign(&raw, kDirectAlign, piece) != 0) {
    return ResourceExhaustedError("no memory for an aligned copy of " + path);
  }
  std::unique_ptr<char, decltype(&std::free)> buffer(static_cast<char*>(raw), &std::free);
  for (size_t at = 0; at < padded; at += piece) {
    const size_t length = std::min(piece, padded - at);
    const size_t copied = std::min(length, data.size() - at);
    std::memcpy(buffer.get(), data.data() + at, copied);
    std::memset(buffer.get() + copied, 0, length - copied);
    size_t done = 0;
    const SteadyTime started = SteadyNow();
    while (done < length) {
      ssize_t n = ::write(fd, buffer.get() + done, length - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EINVAL && at + done == 0) return UnimplementedError("O_DIRECT refused: " + path);
        return ErrnoStatus("write", path, errno);
      }
      done += static_cast<size_t>(n);
    }
    if (pace == Pace::kBackground && at + length < padded) {
      std::this_thread::sleep_for(SteadyNow() - started);
    }
  }
  if (padded != data.size() && ::ftruncate(fd, static_cast<off_t>(data.size())) != 0) {
    return ErrnoStatus("truncate", path, errno);
  }
  return Status::Ok();
}

// Flags of a file written from its start: a failed earlier attempt may have left part of it.
constexpr int kWriteFlags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;

// Opens `path` to write it from its start, with O_DIRECT when `want_direct` and the file system
// allows it at open (tmpfs refuses it); `*direct` says which. The caller checks for -1.
int OpenToWrite(const std::string& path, bool want_direct, bool* direct) {
  int fd = want_direct ? ::open(path.c_str(), kWriteFlags | O_DIRECT, 0644) : -1;
  *direct = fd >= 0;
  return *direct ? fd : ::open(path.c_str(), kWriteFlags, 0644);
}

// Writes `data` into the file `fd` opened by OpenToWrite: O_DIRECT at `pace`, or again from the
// start through the page cache where the file system refuses O_DIRECT writes (some refuse them
// only at the first write).
Status WriteOpened(Fd& fd, bool direct, std::string_view data, const std::string& path,
                   Pace pace) {
  if (!direct) return WriteFully(fd.get(), data, path);
  Status s = WriteDirect(fd.get(), data, path, pace);
  if (s.code() != StatusCode::kUnimplemented) return s;
  fd.Reset(::open(path.c_str(), kWriteFlags, 0644));
  return fd.get() < 0 ? ErrnoStatus("create", path, errno) : WriteFully(fd.get(), data, path);
}

}  // namespace

Result<std::unique_ptr<FileStore>> FileStore::Open(const std::string& root_in) {
  std::string root = root_in;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (root.empty()) return InvalidArgumentError("file store root is empty");
  auto store = std::unique_ptr<FileStore>(new FileStore(root));
  MINK_RETURN_IF_ERROR(store->MakeParents(root + "/.tmp/x"));
  MINK_ASSIGN_OR_RETURN(store->spares_, SpareFiles::Shared(root + "/.spare", kSpareFiles));
  return store;
}

Status FileStore::MakeParents(const std::string& path) {
  std::string dir = ParentOf(path);
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return FailedPreconditionError(dir + " is not a directory");
    return Status::Ok();
  }
  MINK_RETURN_IF_ERROR(MakeParents(dir));
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return ErrnoStatus("mkdir", dir, errno);
  }
  return FsyncPath(ParentOf(dir));
}

Status FileStore::Put(std::string_view key, std::string_view data) {
  return PutAtPace(key, data, /*background=*/false);
}

Status FileStore::PutInBackground(std::string_view key, std::string_view data) {
  return PutAtPace(key, data, /*background=*/true);
}

Status FileStore::PutAtPace(std::string_view key, std::string_view data, bool background) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  MINK_RETURN_IF_ERROR(MakeParents(path));
  std::string tmp = root_ + "/.tmp/" + std::to_string(::getpid()) + "-" +
                    std::to_string(tmp_counter_.fetch_add(1));
  spares_->TakeAs(tmp);
  // Large objects go past the page cache, as in PutUnpublished, but a piece at a time.
  bool direct = false;
  Fd fd(OpenToWrite(tmp, direct_io_ && data.size() >= kDirectMinBytes, &direct));
  if (fd.get() < 0) return ErrnoStatus("create", tmp, errno);
  Status s = WriteOpened(fd, direct, data, tmp, background ? Pace::kBackground : Pace::kPieces);
  if (s.ok() && ::fdatasync(fd.get()) != 0) s = ErrnoStatus("fdatasync", tmp, errno);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  ::close(fd.Release());
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    s = ErrnoStatus("rename", tmp + " to " + path, errno);
    ::unlink(tmp.c_str());
    return s;
  }
  return FsyncPath(ParentOf(path));
}

Status FileStore::PutUnpublished(std::string_view key, std::string_view data) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  MINK_RETURN_IF_ERROR(MakeParents(path));
  // Large objects skip the page cache where the file system allows it (O_DIRECT), all at once:
  // the acknowledgement waits for them. O_DIRECT bypasses the cache, not the device's: the data
  // and the size are still flushed.
  spares_->TakeAs(path);  // else the open creates the file
  bool direct = false;
  Fd fd(OpenToWrite(path, direct_io_ && data.size() >= kDirectMinBytes, &direct));
  if (fd.get() < 0) return ErrnoStatus("create", path, errno);
  // The new entry becomes durable while the data is written and synced.
  const std::string dir = ParentOf(path);
  const uint64_t ticket = dir_syncer_.Request(dir);
  Status s = WriteOpened(fd, direct, data, path, Pace::kAllAtOnce);
  if (s.ok() && ::fdatasync(fd.get()) != 0) s = ErrnoStatus("fdatasync", path, errno);
  Status entry = dir_syncer_.Wait(dir, ticket);
  if (s.ok()) s = entry;
  if (!s.ok()) ::unlink(path.c_str());  // best effort; the orphan sweep removes it otherwise
  return s;
}

Result<std::string> FileStore::Get(std::string_view key) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus("open", path, errno);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus("stat", path, errno);
  std::string out;
  MINK_RETURN_IF_ERROR(ReadFully(fd.get(), 0, static_cast<size_t>(st.st_size), &out, path));
  return out;
}

Result<FileStore::Range> FileStore::OpenRange(std::string_view key, uint64_t offset,
                                              uint64_t length) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  Range range;
  range.path = PathOf(key);
  range.fd = ::open(range.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (range.fd < 0) return ErrnoStatus("open", range.path, errno);
  Fd fd(range.fd);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoStatus("stat", range.path, errno);
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (length == 0) {
    range.length = 0;
  } else if (offset >= size) {
    return OutOfRangeError("range starts at " + std::to_string(offset) + " beyond the end (" +
                           std::to_string(size) + " bytes) of object " + std::string(key));
  } else {
    range.length = static_cast<size_t>(std::min(length, size - offset));
  }
  fd.Release();
  return range;
}

Result<std::string> FileStore::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  MINK_ASSIGN_OR_RETURN(Range range, OpenRange(key, offset, length));
  Fd fd(range.fd);
  std::string out;
  MINK_RETURN_IF_ERROR(ReadFully(fd.get(), offset, range.length, &out, range.path));
  return out;
}

Result<Buffer> FileStore::GetRangeBuffer(std::string_view key, uint64_t offset, uint64_t length,
                                         Reuse reuse) {
  MINK_ASSIGN_OR_RETURN(Range range, OpenRange(key, offset, length));
  Fd fd(range.fd);
  if (range.length == 0) return Buffer();
  // Large ranges read for the first time skip the page cache: filling it costs more than the
  // read, and a range read once would only push out what is read again. They are read from the
  // disk into an aligned block around the range.
  if (direct_io_ && reuse == Reuse::kFirstRead && range.length >= kDirectReadMinBytes &&
      ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) | O_DIRECT) == 0) {
    const uint64_t first = offset / kDirectAlign * kDirectAlign;
    const uint64_t last = (offset + range.length + kDirectAlign - 1) / kDirectAlign * kDirectAlign;
    const size_t block = static_cast<size_t>(last - first);
    std::unique_ptr<char, Buffer::Free> owner(
        static_cast<char*>(::operator new[](block, std::align_val_t{kDirectAlign})),
        [](char* p) { ::operator delete[](p, std::align_val_t{kDirectAlign}); });
    int err = 0;
    auto done = PreadFully(fd.get(), first, block, owner.get(), range.path, &err);
    if (done.ok()) {
      const size_t skip = static_cast<size_t>(offset - first);
      const size_t got = *done > skip ? std::min<size_t>(*done - skip, range.length) : 0;
      const char* data = owner.get() + skip;
      return Buffer(std::move(owner), data, got);
    }
    // EINVAL: the file system refused the O_DIRECT read; read through the page cache.
    if (err != EINVAL) return done.status();
    ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_DIRECT);
  }
  std::unique_ptr<char, Buffer::Free> owner(new char[range.length], [](char* p) { delete[] p; });
  MINK_ASSIGN_OR_RETURN(size_t done,
                        PreadFully(fd.get(), offset, range.length, owner.get(), range.path));
  const char* data = owner.get();
  return Buffer(std::move(owner), data, done);
}

Result<ObjectInfo> FileStore::Head(std::string_view key) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoStatus("stat", path, errno);
  if (!S_ISREG(st.st_mode)) return NotFoundError("no object " + std::string(key));
  return ObjectInfo{std::string(key), static_cast<uint64_t>(st.st_size), MtimeMillis(st)};
}

Result<std::vector<ObjectInfo>> FileStore::List(std::string_view prefix) {
  std::vector<ObjectInfo> out;
  // Only walk the directory that can hold the prefix.
  std::string base;
  size_t slash = prefix.rfind('/');
  if (slash != std::string_view::npos) base = std::string(prefix.substr(0, slash));
  std::function<Status(const std::string&)> walk = [&](const std::string& rel) -> Status {
    std::string dir = rel.empty() ? root_ : root_ + "/" + rel;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();
      return ErrnoStatus("opendir", dir, errno);
    }
    std::vector<std::string> names;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == ".." || (rel.empty() && (name == ".tmp" || name == ".spare"))) {
        continue;
      }
      names.push_back(std::move(name));
    }
    ::closedir(d);
    for (const std::string& name : names) {
      std::string key = rel.empty() ? name : rel + "/" + name;
      struct stat st;
      if (::stat((root_ + "/" + key).c_str(), &st) != 0) continue;  // deleted meanwhile
      if (S_ISDIR(st.st_mode)) {
        // Descend only where keys with the prefix can live.
        std::string as_dir = key + "/";
        if (as_dir.compare(0, std::min(as_dir.size(), prefix.size()), prefix, 0,
                           std::min(as_dir.size(), prefix.size())) == 0) {
          MINK_RETURN_IF_ERROR(walk(key));
        }
      } else if (S_ISREG(st.st_mode) && key.compare(0, prefix.size(), prefix) == 0) {
        out.push_back(ObjectInfo{key, static_cast<uint64_t>(st.st_size), MtimeMillis(st)});
      }
    }
    return Status::Ok();
  };
  MINK_RETURN_IF_ERROR(walk(base));
  std::sort(out.begin(), out.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  return out;
}

Status FileStore::Delete(std::string_view key) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  std::string path = PathOf(key);
  if (spares_->Recycle(path)) return Status::Ok();
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus("unlink", path, errno);
  return Status::Ok();
}

}  // namespace mink::object_store
