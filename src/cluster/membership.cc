#include "cluster/membership.h"

#include "base/log.h"

namespace mink::cluster {

Result<std::vector<Member>> Membership::Members() const {
  MINK_ASSIGN_OR_RETURN(std::vector<metadata::Heartbeat> beats,
                        meta_->liveness_store()->ListHeartbeats());
  const int64_t now = meta_->liveness_clock()->NowMillis();
  std::vector<Member> members;
  for (const auto& b : beats) {
    Member m{b.node_id, b.node_epoch, b.address, b.kafka_address, b.updated_ms, false};
    // A row of an older process (the newest registered epoch is higher) is not a live node.
    meta_->Read([&](const metadata::State& s) {
      m.live = b.node_epoch == s.NodeEpoch(b.node_id) &&
               now - b.updated_ms < session_timeout_.count();
      m.coordinator = s.coordinator().node_id == b.node_id &&
                      s.coordinator().node_epoch == b.node_epoch;
    });
    members.push_back(std::move(m));
  }
  return members;
}

bool DatabaseTouch::OutOfTouch() const {
  const int64_t last = last_ns_.load();
  if (last == 0) return false;
  const auto since = SteadyNow().time_since_epoch() - std::chrono::nanoseconds(last);
  return since >= session_timeout_ - kHeartbeatInterval;
}

Heartbeater::Heartbeater(metadata::MetadataLog* meta, metadata::Heartbeat self,
                         DatabaseTouch* touch)
    : meta_(meta), self_(std::move(self)), touch_(touch) {
  thread_ = std::thread([this] { Loop(); });
}

void Heartbeater::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Heartbeater::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    // On a connection of its own and with the database's time, taken just before the write: a
    // stalled append does not delay it, and every node's rows and judgements share one clock.
    const SteadyTime sent = SteadyNow();
    Status s = meta_->RefreshLivenessClock();
    if (s.ok()) {
      metadata::Heartbeat beat = self_;
      beat.updated_ms = meta_->liveness_clock()->NowMillis();
      s = meta_->liveness_store()->UpsertHeartbeat(beat);
    }
    if (s.ok()) {
      if (touch_ != nullptr) touch_->Reached(sent);
    } else {
      MINK_LOG_WARN("cluster", "heartbeat failed: {}", s.ToString());
    }
    lock.lock();
    cv_.wait_for(lock, kHeartbeatInterval, [&] { return stopping_; });
  }
}

}  // namespace mink::cluster
