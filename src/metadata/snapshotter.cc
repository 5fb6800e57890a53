#include "metadata/snapshotter.h"

#include "base/log.h"
#include "base/thread_priority.h"

namespace mink::metadata {

Snapshotter::Snapshotter(LogStore* store, int64_t every, int keep_snapshots, State state,
                         uint64_t loaded_snapshot_bytes)
    : store_(store),
      every_(every),
      keep_snapshots_(keep_snapshots),
      state_(std::move(state)),
      last_snapshot_bytes_(loaded_snapshot_bytes) {
  if (loaded_snapshot_bytes > 0) kept_seqs_.push_back(state_.applied_seq());
  thread_ = std::thread([this] { Loop(); });
}

Snapshotter::~Snapshotter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Snapshotter::Applied(Command command, int64_t seq, int64_t time_ms, uint64_t bytes) {
  Push(Step{std::move(command), seq, time_ms, bytes});
}

void Snapshotter::Skipped(int64_t seq, uint64_t bytes) { Push(Step{std::nullopt, seq, 0, bytes}); }

void Snapshotter::Reset(State state, uint64_t snapshot_bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queued_.clear();  // all older than the loaded state
    reset_ = Loaded{std::move(state), snapshot_bytes};
  }
  cv_.notify_one();
}

void Snapshotter::Push(Step step) {
  // The thread is woken at snapshot points and every kApplyBatch commands, not per command: a
  // wake-up per append cost the appending threads CPU time on a busy machine.
  constexpr size_t kApplyBatch = 256;
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wake = IsSnapshotPoint(step.seq) || queued_.size() + 1 >= kApplyBatch;
    queued_.push_back(std::move(step));
  }
  if (wake) cv_.notify_one();
}

void Snapshotter::Loop() {
  NameThisThread("meta-snapshot");
  LowerThreadPriority();  // serializing a large state takes CPU time appends need more
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    cv_.wait(lock, [&] { return !queued_.empty() || reset_.has_value() || stopping_; });
    if (queued_.empty() && !reset_ && stopping_) return;
    std::optional<Loaded> reset = std::move(reset_);
    reset_.reset();
    std::vector<Step> steps = std::move(queued_);
    queued_.clear();
    lock.unlock();
    if (reset) {
      state_ = std::move(reset->state);
      last_snapshot_bytes_ = reset->snapshot_bytes;
      log_bytes_since_ = 0;
      kept_seqs_.push_back(state_.applied_seq());
    }
    const int64_t last_seq = steps.empty() ? 0 : steps.back().seq;
    for (Step& step : steps) {
      if (step.seq != state_.applied_seq() + 1) continue;  // covered by a reset
      if (step.command) {
        state_.Apply(*step.command, step.seq, step.time_ms);
      } else {
        state_.Skip(step.seq);
      }
      log_bytes_since_ += step.bytes;
      // Due; when a later snapshot point is already queued, that one is written instead.
      if (IsDue(step.seq) && step.seq + every_ > last_seq) Write(step.seq);
    }
    lock.lock();
  }
}

void Snapshotter::Write(int64_t seq) {
  std::string body = state_.Serialize();
  const uint64_t bytes = body.size();
  Status s = store_->WriteSnapshot(SnapshotRecord{seq, std::move(body)});
  if (s.ok()) {
    last_snapshot_bytes_ = bytes;
    log_bytes_since_ = 0;
    kept_seqs_.push_back(seq);
    while (kept_seqs_.size() > static_cast<size_t>(std::max(1, keep_snapshots_))) {
      kept_seqs_.pop_front();
    }
    // Commands up to the oldest snapshot kept are covered by it.
    if (kept_seqs_.size() == static_cast<size_t>(std::max(1, keep_snapshots_))) {
      s = store_->Prune(kept_seqs_.front(), keep_snapshots_);
    }
  }
  if (!s.ok()) MINK_LOG_WARN("metadata", "snapshot at seq={} failed: {}", seq, s.ToString());
}

}  // namespace mink::metadata
