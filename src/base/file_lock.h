#pragma once
// FileLock: an exclusive advisory lock (flock) on a file, held until the FileLock is destroyed.
// The kernel drops it when the process ends in any way (kill -9 too), so a lock is never left
// behind by a crash, and two processes that try at the same moment cannot both get it.

#include <memory>
#include <string>

#include "base/result.h"

namespace mink {

class FileLock {
 public:
  // Creates `path` if needed and locks it without waiting. FailedPrecondition when another
  // process holds it (the message names that process's pid, which the holder writes into it).
  static Result<std::unique_ptr<FileLock>> TryAcquire(const std::string& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  FileLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}

  const std::string path_;
  const int fd_;
};

}  // namespace mink
