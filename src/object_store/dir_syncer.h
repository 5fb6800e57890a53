#pragma once
// DirSyncer: makes new directory entries durable with as few directory fsyncs as possible, on
// its own thread, so a caller can write and fdatasync a new file while its entry is synced.
// Request() asks for an fsync of a directory that starts after the call; Wait() blocks until that
// fsync is done. Requests that arrive while an fsync of the same directory runs are all served
// by the next one (group sync).

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "base/status.h"

namespace mink::object_store {

class DirSyncer {
 public:
  DirSyncer() = default;
  ~DirSyncer();
  DirSyncer(const DirSyncer&) = delete;
  DirSyncer& operator=(const DirSyncer&) = delete;

  // A ticket for Wait: an fsync of `dir` that starts after this call is queued.
  uint64_t Request(const std::string& dir);
  // The result of the fsync that served `ticket`.
  Status Wait(const std::string& dir, uint64_t ticket);

 private:
  struct Dir {
    uint64_t requested = 0;  // tickets handed out
    uint64_t started = 0;    // tickets covered by the fsync running or done
    uint64_t completed = 0;  // tickets whose fsync is done
    // Ticket ranges (first, last] whose fsync failed, newest last; a few are kept.
    std::deque<std::pair<std::pair<uint64_t, uint64_t>, Status>> failures;
    uint64_t forgotten_up_to = 0;  // tickets up to here may have failed in a range dropped
  };
  void Run();

  std::mutex mutex_;
  std::condition_variable work_cv_;  // a request arrived
  std::condition_variable done_cv_;  // an fsync finished
  std::map<std::string, Dir> dirs_;
  bool stopping_ = false;
  std::thread thread_;  // started by the first request
};

}  // namespace mink::object_store
