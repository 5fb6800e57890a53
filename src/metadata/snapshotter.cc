#include "metadata/snapshotter.h"

#include "base/log.h"
#include "base/thread_priority.h"

namespace mink::metadata {

Snapshotter::Snapshotter(LogStore* store, int64_t every, int keep_snapshots, State state)
    : store_(store), every_(every), keep_snapshots_(keep_snapshots), state_(std::move(state)) {
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

void Snapshotter::Applied(Command command, int64_t seq, int64_t time_ms) {
  Push(Step{std::move(command), seq, time_ms});
}

void Snapshotter::Skipped(int64_t seq) { Push(Step{std::nullopt, seq, 0}); }

void Snapshotter::Reset(State state) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queued_.clear();  // all older than the loaded state
    reset_ = std::move(state);
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
    std::optional<State> reset = std::move(reset_);
    reset_.reset();
    std::vector<Step> steps = std::move(queued_);
    queued_.clear();
    lock.unlock();
    if (reset) state_ = std::move(*reset);
    const int64_t last_seq = steps.empty() ? 0 : steps.back().seq;
    for (Step& step : steps) {
      if (step.seq != state_.applied_seq() + 1) continue;  // covered by a reset
      if (step.command) {
        state_.Apply(*step.command, step.seq, step.time_ms);
      } else {
        state_.Skip(step.seq);
      }
      // A snapshot point; when a later one is already queued, that one is written instead.
      if (IsSnapshotPoint(step.seq) && step.seq + every_ > last_seq) Write(step.seq);
    }
    lock.lock();
  }
}

void Snapshotter::Write(int64_t seq) {
  Status s = store_->WriteSnapshot(SnapshotRecord{seq, state_.Serialize()});
  if (s.ok()) {
    int64_t prune_to = seq - every_ * (keep_snapshots_ - 1);
    if (prune_to > 0) s = store_->Prune(prune_to, keep_snapshots_);
  }
  if (!s.ok()) MINK_LOG_WARN("metadata", "snapshot at seq={} failed: {}", seq, s.ToString());
}

}  // namespace mink::metadata
