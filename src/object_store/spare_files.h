#pragma once
// SpareFiles: empty files kept ready in one directory (file://'s <root>/.spare), so that a new
// object takes an existing inode by rename instead of allocating one, and a deleted object's file
// joins them, emptied, instead of freeing its inode.
//
// Why: ext4 without a journal does not reuse an inode freed in the last 60 s (300 s while its
// inode-table block is dirty), and allocating one walks past every such inode. A node that writes
// and deletes objects steadily, or starts after a large delete, paid 0.3-1 ms for each create, up
// to 8 ms, on the put's critical path. Here a low-priority thread creates spares ahead of need,
// and deletes refill the pool too, so puts take inodes made off their path.
//
// Spares found at start are unlinked, never reused: after a crash on a file system without a
// journal, a spare's entry may still name the inode it was renamed to, now an object.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/result.h"
#include "base/status.h"

namespace mink::object_store {

class SpareFiles {
 public:
  // Creates `dir` if missing and unlinks what it holds. `target` spares are kept ready once the
  // first TakeAs asked for one (a process that only reads never creates any).
  static Result<std::unique_ptr<SpareFiles>> Open(std::string dir, size_t target);
  // The pool of `dir` in this process, opened by the first caller: every FileStore on one root
  // shares it (a node opens its data and WAL stores on one root), so that opening the second
  // does not unlink the first one's spares.
  static Result<std::shared_ptr<SpareFiles>> Shared(const std::string& dir, size_t target);
  ~SpareFiles();
  SpareFiles(const SpareFiles&) = delete;
  SpareFiles& operator=(const SpareFiles&) = delete;

  // Renames a spare to `path` (whose directory exists) and returns true; false when none is
  // ready or the rename failed, and the caller creates the file itself. The file at `path` is
  // then empty, with one link, and its entry still needs the caller's fsync of the directory.
  bool TakeAs(const std::string& path);
  // Moves the file at `path` into the pool, emptied, and returns true; false when the pool is
  // full or the move failed (`path` missing included), and the caller unlinks it as before.
  bool Recycle(const std::string& path);

  size_t ready() const;
  const std::string& dir() const { return dir_; }

 private:
  SpareFiles(std::string dir, size_t target);
  std::string NewNameLocked();
  void Refill();

  const std::string dir_;
  const size_t target_;
  const std::string prefix_;  // "<pid>-": names stay unique among processes sharing the root
  mutable std::mutex mutex_;
  std::condition_variable wanted_cv_;  // a spare was taken
  std::deque<std::string> ready_;      // paths of spares, oldest first
  uint64_t next_name_ = 0;
  bool stopping_ = false;
  std::thread refiller_;  // started by the first TakeAs
};

}  // namespace mink::object_store
