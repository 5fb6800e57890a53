#pragma once
// file:// — objects are files under a root directory; a key's '/' are subdirectories. A Put writes
// a temporary file under <root>/.tmp, fsyncs it, renames it into place and fsyncs the directory,
// so an object is either absent or complete and durable, even across a crash. PutUnpublished
// writes in place instead and fsyncs the directory while the data is written and fdatasynced
// (one flush on the critical path instead of two in a row). New files take a spare inode from
// <root>/.spare and deleted objects' files go back there (spare_files.h).

#include <atomic>
#include <memory>
#include <string>

#include "object_store/dir_syncer.h"
#include "object_store/object_store.h"
#include "object_store/spare_files.h"

namespace mink::object_store {

class FileStore final : public ObjectStore {
 public:
  // Creates the root directory if needed.
  static Result<std::unique_ptr<FileStore>> Open(const std::string& root);

  Status Put(std::string_view key, std::string_view data) override;
  Status PutUnpublished(std::string_view key, std::string_view data) override;
  // A Put whose large objects take at most half of the device's time (decision 0007).
  Status PutInBackground(std::string_view key, std::string_view data) override;
  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  // Reads into an uninitialised buffer (no zero-fill before the pread).
  // Ranges of 64 KiB or more read for the first time skip the page cache (O_DIRECT).
  Result<Buffer> GetRangeBuffer(std::string_view key, uint64_t offset, uint64_t length,
                                Reuse reuse) override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return "file://" + root_; }

  const std::string& root() const { return root_; }
  // Every put writes objects of 256 KiB or more with O_DIRECT (on by default) where the file
  // system allows it, Put and PutInBackground 1 MiB at a time; off writes through the page
  // cache, for comparison.
  void set_direct_io(bool on) { direct_io_ = on; }

 private:
  explicit FileStore(std::string root) : root_(std::move(root)) {}
  // An open object and how many bytes of [offset, offset + length) it holds; the caller closes fd.
  struct Range {
    int fd = -1;
    std::string path;
    size_t length = 0;
  };
  Result<Range> OpenRange(std::string_view key, uint64_t offset, uint64_t length);
  std::string PathOf(std::string_view key) const { return root_ + "/" + std::string(key); }
  // Put, with large objects written at `background`'s pace (file_store.cc's Pace).
  Status PutAtPace(std::string_view key, std::string_view data, bool background);
  // Creates the directories above `path` that are missing, fsyncing each new one's parent.
  Status MakeParents(const std::string& path);

  std::string root_;
  bool direct_io_ = true;
  std::atomic<uint64_t> tmp_counter_{0};
  DirSyncer dir_syncer_;
  std::shared_ptr<SpareFiles> spares_;  // shared by the stores on this root
};

}  // namespace mink::object_store
