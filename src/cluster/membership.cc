#include "cluster/membership.h"

#include "base/log.h"

namespace mink::cluster {

Result<std::vector<Member>> Membership::Members() const {
  MINK_ASSIGN_OR_RETURN(std::vector<metadata::Heartbeat> beats, meta_->store()->ListHeartbeats());
  const int64_t now = meta_->clock()->NowMillis();
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

Heartbeater::Heartbeater(metadata::MetadataLog* meta, metadata::Heartbeat self)
    : meta_(meta), self_(std::move(self)) {
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
    metadata::Heartbeat beat = self_;
    beat.updated_ms = meta_->clock()->NowMillis();
    Status s = meta_->store()->UpsertHeartbeat(beat);
    if (!s.ok()) MINK_LOG_WARN("cluster", "heartbeat failed: {}", s.ToString());
    lock.lock();
    cv_.wait_for(lock, kHeartbeatInterval, [&] { return stopping_; });
  }
}

}  // namespace mink::cluster
