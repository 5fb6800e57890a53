#pragma once
// Snapshotter: writes the metadata state snapshots on its own thread from its own copy of the
// state. It is told every command the log applies (or skips) and applies it to that copy; at each
// multiple of `every` it serializes the copy, writes it, and prunes the log behind the oldest kept
// snapshot. Serializing a large state and writing it then never holds the live state's lock or
// the append path: with thousands of WAL objects in the state, either took tens of milliseconds
// that every waiting append paid.
//
// Thread-safety: Applied, Skipped and Reset are called in seq order by the log (under its
// catch-up order); the rest of the work is on the snapshotter's thread, which takes the queued
// commands in batches.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "metadata/commands.h"
#include "metadata/log_store.h"
#include "metadata/state.h"

namespace mink::metadata {

class Snapshotter {
 public:
  // Starts from `state` (a copy of the log's state as loaded).
  Snapshotter(LogStore* store, int64_t every, int keep_snapshots, State state);
  // Applies what was queued, writes a snapshot that is due, then stops.
  ~Snapshotter();
  Snapshotter(const Snapshotter&) = delete;
  Snapshotter& operator=(const Snapshotter&) = delete;

  // The log applied `command` at `seq`.
  void Applied(Command command, int64_t seq, int64_t time_ms);
  // The log skipped the invalid command at `seq`.
  void Skipped(int64_t seq);
  // The log replaced its state with a loaded snapshot: continue from a copy of it.
  void Reset(State state);

 private:
  struct Step {
    std::optional<Command> command;  // nullopt: skipped
    int64_t seq = 0;
    int64_t time_ms = 0;
  };
  bool IsSnapshotPoint(int64_t seq) const { return seq % every_ == 0; }
  void Push(Step step);
  void Loop();
  void Write(int64_t seq);

  LogStore* const store_;
  const int64_t every_;
  const int keep_snapshots_;
  State state_;  // only the thread touches it after construction

  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Step> queued_;
  std::optional<State> reset_;  // applies before queued_
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mink::metadata
