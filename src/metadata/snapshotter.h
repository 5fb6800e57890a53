#pragma once
// Snapshotter: writes the metadata state snapshots on its own thread from its own copy of the
// state. It is told every command the log applies (or skips) and applies it to that copy; at a
// multiple of `every` it serializes the copy, writes it, and prunes the log behind the oldest kept
// snapshot. Once the last snapshot is larger than kSmallSnapshotBytes, the next one also waits
// until the commands since add up to kLogBytesPerSnapshotByte times its size: that bounds the
// snapshot writes to half the bytes of the log itself, and the replay at a start to about two
// snapshots' worth of commands. A large state written every `every` commands wrote more than the
// log did, and each write slowed the commits running beside it. Serializing a large state and writing it then never holds the live state's lock or
// the append path: with thousands of WAL objects in the state, either took tens of milliseconds
// that every waiting append paid.
//
// Thread-safety: Applied, Skipped and Reset are called in seq order by the log (under its
// catch-up order); the rest of the work is on the snapshotter's thread, which takes the queued
// commands in batches.

#include <condition_variable>
#include <cstdint>
#include <deque>
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
  // Commands since the last snapshot, in bytes, per byte of that snapshot before the next one,
  // once snapshots are larger than kSmallSnapshotBytes (smaller ones cost little: one part).
  static constexpr uint64_t kLogBytesPerSnapshotByte = 2;
  static constexpr uint64_t kSmallSnapshotBytes = kSnapshotPartBytes;

  // Starts from `state` (a copy of the log's state as loaded, from a snapshot of
  // `loaded_snapshot_bytes` when there was one, else 0).
  Snapshotter(LogStore* store, int64_t every, int keep_snapshots, State state,
              uint64_t loaded_snapshot_bytes);
  // Applies what was queued, writes a snapshot that is due, then stops.
  ~Snapshotter();
  Snapshotter(const Snapshotter&) = delete;
  Snapshotter& operator=(const Snapshotter&) = delete;

  // The log applied `command` at `seq`; its stored body has `bytes` bytes.
  void Applied(Command command, int64_t seq, int64_t time_ms, uint64_t bytes);
  // The log skipped the invalid command at `seq`.
  void Skipped(int64_t seq, uint64_t bytes);
  // The log replaced its state with a loaded snapshot of `snapshot_bytes`: continue from a copy.
  void Reset(State state, uint64_t snapshot_bytes);

 private:
  struct Step {
    std::optional<Command> command;  // nullopt: skipped
    int64_t seq = 0;
    int64_t time_ms = 0;
    uint64_t bytes = 0;
  };
  bool IsSnapshotPoint(int64_t seq) const { return seq % every_ == 0; }
  // A snapshot point where the log has grown enough since the last snapshot.
  bool IsDue(int64_t seq) const {
    return IsSnapshotPoint(seq) &&
           (last_snapshot_bytes_ <= kSmallSnapshotBytes ||
            log_bytes_since_ >= kLogBytesPerSnapshotByte * last_snapshot_bytes_);
  }
  void Push(Step step);
  void Loop();
  void Write(int64_t seq);

  LogStore* const store_;
  const int64_t every_;
  const int keep_snapshots_;
  // Only the thread touches these after construction.
  State state_;
  uint64_t last_snapshot_bytes_;
  uint64_t log_bytes_since_ = 0;     // of the commands applied since the last snapshot
  std::deque<int64_t> kept_seqs_;    // of the snapshots kept, oldest first (the loaded one too)

  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<Step> queued_;
  struct Loaded {
    State state;
    uint64_t snapshot_bytes = 0;
  };
  std::optional<Loaded> reset_;  // applies before queued_
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mink::metadata
