#pragma once
// MetadataLog: one node's view of the cluster metadata. It loads the newest state snapshot,
// replays the commands after it, tails the log in the background, and appends new commands
// optimistically: catch up to seq N, build and validate the command against that state, insert
// it as N + 1; if another writer took N + 1, catch up and try again.
//
// Thread-safety: all methods are thread-safe. Read() runs its callback under a shared lock of
// the state; callbacks must not call back into the MetadataLog.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "metadata/commands.h"
#include "metadata/database_clock.h"
#include "metadata/log_store.h"
#include "metadata/snapshotter.h"
#include "metadata/state.h"

namespace mink::metadata {

struct MetadataOptions {
  std::string node_label = "node";   // recorded with every appended command
  // A state snapshot at most every this many commands, and only once the commands since the
  // last one add up to twice its size (Snapshotter).
  int64_t snapshot_every = 1000;
  int keep_snapshots = 2;            // commands older than the oldest kept snapshot are deleted
  bool use_append_lock = true;       // queue appenders on the database's lock (else pure retry)
  std::chrono::milliseconds append_timeout{30'000};
  bool tail = true;                  // follow other writers in a background thread
  const Clock* clock = SystemClock::Get();
};

class MetadataLog {
 public:
  // Opens `url` (see OpenLogStore), migrates the schema, loads state, starts tailing.
  static Result<std::unique_ptr<MetadataLog>> Open(const std::string& url,
                                                   MetadataOptions options = {});
  static Result<std::unique_ptr<MetadataLog>> Open(std::unique_ptr<LogStore> store,
                                                   MetadataOptions options = {});
  ~MetadataLog();
  MetadataLog(const MetadataLog&) = delete;
  MetadataLog& operator=(const MetadataLog&) = delete;

  // Builds a command from the caught-up state and appends it. `build` may run several times (once
  // per attempt) and returns an error to give up (that error is returned). Returns the seq of the
  // command once it is durable in the log and applied to this node's state. When the database's
  // answer to a commit is lost, the next attempt reads the log to learn whether the command
  // landed (whichever thread applied it since); if that cannot be learnt before
  // append_timeout, the error IsOutcomeUnknown (status.h) and the command may be in the log.
  using Builder = std::function<Result<Command>(const State&)>;
  Result<int64_t> Append(const Builder& build);
  // As Append, with `guard` run in the same database transaction as the insert, under the
  // append lock, before it (a coordinator checks that it still holds its lease). A guard that
  // fails refuses the append with its error; the command is not written.
  using Guard = std::function<Status(LogStore*)>;
  Result<int64_t> AppendGuarded(const Builder& build, const Guard& guard);
  Result<int64_t> Append(const Command& command) {
    return Append([command](const State&) -> Result<Command> { return command; });
  }

  // Applies every command in the log that this node has not applied yet.
  Status CatchUp();

  template <typename F>
  auto Read(F&& f) const {
    std::shared_lock<std::shared_mutex> lock(state_mutex_);
    return f(state_);
  }
  int64_t applied_seq() const;
  // Blocks until the applied seq is greater than `seq` or `timeout` passes; returns it.
  int64_t WaitApplied(int64_t seq, std::chrono::milliseconds timeout);

  LogStore* store() { return store_.get(); }
  const Clock* clock() const { return options_.clock; }
  // Heartbeats and leases go through this store: on PostgreSQL a connection of their own, so an
  // append that waits (for the append lock, a slow commit) never holds them up; else store().
  LogStore* liveness_store() { return liveness_store_ ? liveness_store_.get() : store_.get(); }
  // The clock liveness is judged by (heartbeat times, lease expiry): on PostgreSQL the
  // database server's (DatabaseClock), the same for every node; else clock().
  const Clock* liveness_clock() const;
  // Measures the database clock's offset again (the heartbeater does, every beat).
  Status RefreshLivenessClock();
  // Whether this node is fenced off the cluster (cluster::DatabaseTouch): appends then fail at
  // once, Unavailable (or outcome unknown when an earlier attempt may have landed), instead of
  // waiting out append_timeout. Set before appends run concurrently.
  void SetFence(std::function<bool()> fenced) { fenced_ = std::move(fenced); }

 private:
  MetadataLog(std::unique_ptr<LogStore> store, MetadataOptions options);
  Status Load();
  // Reads and applies new commands; `our_id` (if not empty) reports whether it was among them.
  // The caller holds catch_up_mutex_.
  Status CatchUpLocked(const std::string& our_id, int64_t* our_seq);
  // For each seq in `uncertain` (an attempt of ours whose commit reply was lost) that the log has
  // reached, reads the log at that seq: returns it if our command `id` is there, else drops it
  // (another command holds it). The caller holds catch_up_mutex_ and has caught up. 0: not
  // found.
  Result<int64_t> FindUncertain(const std::string& id, std::vector<int64_t>* uncertain);
  void ApplyRecord(const CommandRecord& record);
  // Applies the command at `seq` unless applied already; an invalid one is skipped, as on every
  // node.
  // `body_bytes`: the size of the command's stored body (the snapshotter paces by it).
  void Apply(int64_t seq, int64_t time_ms, const std::string& kind, Result<Command> command,
             uint64_t body_bytes);
  void TailLoop();

  std::unique_ptr<LogStore> store_;
  std::unique_ptr<LogStore> liveness_store_;        // PostgreSQL only
  std::unique_ptr<DatabaseClock> database_clock_;   // with liveness_store_
  const MetadataOptions options_;

  std::mutex catch_up_mutex_;  // one reader of the log at a time
  mutable std::shared_mutex state_mutex_;
  State state_;
  std::mutex applied_mutex_;
  std::condition_variable applied_cv_;

  std::unique_ptr<Snapshotter> snapshotter_;  // none when snapshot_every is 0
  std::function<bool()> fenced_;               // set once, before concurrent appends

  std::atomic<bool> stopping_{false};
  std::thread tailer_;
};

}  // namespace mink::metadata
