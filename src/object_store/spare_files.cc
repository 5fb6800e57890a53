#include "object_store/spare_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <vector>

#include "base/thread_priority.h"

namespace mink::object_store {
namespace {

// Recycled files beyond `target` are kept up to this multiple of it: deletes come in bursts (a
// compaction replaces many WAL objects at once) and creates follow steadily.
constexpr size_t kKeptPerTarget = 4;

}  // namespace

Result<std::unique_ptr<SpareFiles>> SpareFiles::Open(std::string dir, size_t target) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return InternalError("mkdir " + dir + ": " + std::strerror(errno));
  }
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return InternalError("opendir " + dir + ": " + std::strerror(errno));
  std::vector<std::string> leftovers;
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") leftovers.push_back(dir + "/" + name);
  }
  ::closedir(d);
  // Unlinking a name that still shares its inode with an object only drops that name.
  for (const std::string& path : leftovers) ::unlink(path.c_str());
  return std::unique_ptr<SpareFiles>(new SpareFiles(std::move(dir), target));
}

Result<std::shared_ptr<SpareFiles>> SpareFiles::Shared(const std::string& dir, size_t target) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<SpareFiles>> pools;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto live = pools[dir].lock()) return live;
  MINK_ASSIGN_OR_RETURN(std::unique_ptr<SpareFiles> opened, Open(dir, target));
  std::shared_ptr<SpareFiles> pool = std::move(opened);
  pools[dir] = pool;
  return pool;
}

SpareFiles::SpareFiles(std::string dir, size_t target)
    : dir_(std::move(dir)), target_(target), prefix_(std::to_string(::getpid()) + "-") {}

SpareFiles::~SpareFiles() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wanted_cv_.notify_all();
  if (refiller_.joinable()) refiller_.join();
}

size_t SpareFiles::ready() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ready_.size();
}

std::string SpareFiles::NewNameLocked() {
  return dir_ + "/" + prefix_ + std::to_string(next_name_++);
}

bool SpareFiles::TakeAs(const std::string& path) {
  std::string spare;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (target_ == 0) return false;
    if (!refiller_.joinable()) {
      refiller_ = std::thread([this] {
        NameThisThread("file-spares");
        LowerThreadPriority();  // creating ahead must not delay the puts it serves
        Refill();
      });
    }
    if (!ready_.empty()) {
      spare = std::move(ready_.front());
      ready_.pop_front();
    }
  }
  wanted_cv_.notify_one();
  // A spare that another process sharing the root unlinked at its start fails here with ENOENT.
  return !spare.empty() && ::rename(spare.c_str(), path.c_str()) == 0;
}

bool SpareFiles::Recycle(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  std::string spare;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (target_ == 0 || ready_.size() >= target_ * kKeptPerTarget) return false;
    spare = NewNameLocked();
  }
  if (::rename(path.c_str(), spare.c_str()) != 0) return false;
  // The object is gone from its key now; emptying the file frees its space as unlink would.
  if (::truncate(spare.c_str(), 0) != 0) {
    ::unlink(spare.c_str());
    return true;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ready_.push_back(spare);
  return true;
}

void SpareFiles::Refill() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wanted_cv_.wait(lock, [&] { return stopping_ || ready_.size() < target_; });
    if (stopping_) break;
    const std::string spare = NewNameLocked();
    lock.unlock();
    const int fd = ::open(spare.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    const bool made = fd >= 0;
    if (made) ::close(fd);
    lock.lock();
    if (made) {
      ready_.push_back(spare);
    } else {
      // Out of inodes or space, or the directory is gone: the puts create their own files.
      wanted_cv_.wait_for(lock, std::chrono::seconds(1), [&] { return stopping_; });
    }
  }
}

}  // namespace mink::object_store
