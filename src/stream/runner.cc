#include "stream/runner.h"

#include <algorithm>
#include <vector>

#include "base/log.h"

namespace mink::stream {

void PipelineRunner::Start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void PipelineRunner::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  running_.clear();
}

std::map<std::string, PipelineStats> PipelineRunner::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

bool PipelineRunner::RunsHere(const std::string& name) const {
  auto owner = context_.tables->BucketOwner(OutputTableName(name), std::nullopt, 0);
  return owner.ok() && *owner == context_.node_id;
}

void PipelineRunner::Reconcile(std::chrono::steady_clock::time_point now) {
  // What should run: every stream and view whose output bucket this node writes.
  // A sink runs beside the stream or view it reads (bucket 0 of that one's output table).
  std::map<std::string, std::string> wanted;  // name -> version
  std::map<std::string, std::string> owner;   // name -> the object whose output bucket decides
  context_.meta->Read([&](const metadata::State& st) {
    for (const auto& [name, o] : st.continuous()) {
      if (o.kind == "source") continue;
      wanted[name] = o.statement + "@" + std::to_string(o.created_ms);
      owner[name] = o.kind == "sink" && !o.inputs.empty() ? o.inputs[0] : name;
    }
  });
  for (auto it = wanted.begin(); it != wanted.end();) {
    it = RunsHere(owner[it->first]) ? std::next(it) : wanted.erase(it);
  }
  for (auto it = running_.begin(); it != running_.end();) {
    auto w = wanted.find(it->first);
    if (w == wanted.end() || w->second != it->second.version) {
      MINK_LOG_INFO("stream", "pipeline {} stops here", it->first);
      it = running_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [name, version] : wanted) {
    if (running_.count(name)) continue;
    if (auto f = failed_.find(name); f != failed_.end() && f->second > now) continue;
    auto pipeline = Pipeline::Open(name, context_);
    if (!pipeline.ok()) {
      MINK_LOG_WARN("stream", "pipeline {} cannot start: {}", name, pipeline.status().ToString());
      failed_[name] = now + options_.retry_after;
      continue;
    }
    MINK_LOG_INFO("stream", "pipeline {} runs here from epoch {}", name, (*pipeline)->stats().epoch);
    failed_.erase(name);
    running_[name] = Running{std::move(*pipeline), version, now};
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = stats_.begin(); it != stats_.end();) it = running_.count(it->first) ? std::next(it) : stats_.erase(it);
}

void PipelineRunner::Loop() {
  auto last_reconcile = std::chrono::steady_clock::time_point();
  int64_t seen = context_.meta->applied_seq();
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
    }
    auto now = std::chrono::steady_clock::now();
    if (now - last_reconcile >= options_.reconcile_interval || running_.empty()) {
      Reconcile(now);
      last_reconcile = now;
    }
    seen = context_.meta->applied_seq();
    auto wake = now + options_.poll_interval;
    for (auto it = running_.begin(); it != running_.end();) {
      Running& r = it->second;
      if (std::chrono::steady_clock::now() < r.next_epoch) {
        wake = std::min(wake, r.next_epoch);
        ++it;
        continue;
      }
      auto ran = r.pipeline->RunEpoch();
      if (!ran.ok()) {
        // The pipeline is opened again from its last commit; the epoch is repeated.
        MINK_LOG_WARN("stream", "pipeline {} epoch {} failed: {}", it->first, r.pipeline->stats().epoch + 1,
                      ran.status().ToString());
        failed_[it->first] = std::chrono::steady_clock::now() + options_.retry_after;
        it = running_.erase(it);
        continue;
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        stats_[it->first] = r.pipeline->stats();
      }
      if (*ran) {
        r.next_epoch = std::chrono::steady_clock::now() + options_.epoch_interval;
        wake = std::min(wake, r.next_epoch);
      }
      ++it;
    }
    // Input arrives as metadata commits (a table's appends, a catalog change): wait for the
    // next one, or until a pipeline may run again.
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - std::chrono::steady_clock::now());
    if (wait.count() > 0) context_.meta->WaitApplied(seen, wait);
  }
}

}  // namespace mink::stream
