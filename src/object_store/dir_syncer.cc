#include "object_store/dir_syncer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/thread_priority.h"

namespace mink::object_store {
namespace {

constexpr size_t kFailuresKept = 64;

Status FsyncDirectory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return UnavailableError("open directory " + dir + ": " + std::strerror(errno));
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return UnavailableError("fsync directory " + dir + ": " + std::strerror(err));
  return Status::Ok();
}

}  // namespace

DirSyncer::~DirSyncer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t DirSyncer::Request(const std::string& dir) {
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!thread_.joinable()) {
      thread_ = std::thread([this] {
        NameThisThread("dir-sync");
        Run();
      });
    }
    ticket = ++dirs_[dir].requested;
  }
  work_cv_.notify_one();
  return ticket;
}

Status DirSyncer::Wait(const std::string& dir, uint64_t ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  Dir& d = dirs_[dir];
  done_cv_.wait(lock, [&] { return d.completed >= ticket || stopping_; });
  if (d.completed < ticket) return UnavailableError("the file store is closing");
  for (const auto& [range, status] : d.failures) {
    if (ticket > range.first && ticket <= range.second) return status;
  }
  if (ticket <= d.forgotten_up_to) {
    return UnavailableError("fsync directory " + dir + ": its result is no longer known");
  }
  return Status::Ok();
}

void DirSyncer::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    Dir* next = nullptr;
    std::string name;
    for (auto& [dir, d] : dirs_) {
      if (d.requested > d.started) {
        next = &d;
        name = dir;
        break;
      }
    }
    if (next == nullptr) {
      if (stopping_) break;
      work_cv_.wait(lock);
      continue;
    }
    const uint64_t from = next->started, to = next->requested;
    next->started = to;
    lock.unlock();
    Status s = FsyncDirectory(name);
    lock.lock();
    if (!s.ok()) {
      next->failures.push_back({{from, to}, s});
      if (next->failures.size() > kFailuresKept) {
        next->forgotten_up_to = next->failures.front().first.second;
        next->failures.pop_front();
      }
    }
    next->completed = to;
    done_cv_.notify_all();
  }
  done_cv_.notify_all();
}

}  // namespace mink::object_store
