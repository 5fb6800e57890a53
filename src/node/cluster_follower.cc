#include "node/cluster_follower.h"

#include <set>

#include "base/clock.h"
#include "base/log.h"
#include "cluster/balancer.h"

namespace mink::node {

ClusterFollower::ClusterFollower(metadata::MetadataLog* meta, table::TableStore* tables,
                                 cluster::Membership* membership,
                                 cluster::Coordinator* coordinator, storage::NodeIdentity self)
    : meta_(meta),
      tables_(tables),
      membership_(membership),
      coordinator_(coordinator),
      self_(self) {}

void ClusterFollower::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void ClusterFollower::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void ClusterFollower::Loop() {
  int64_t seen = 0;
  int64_t placed = -1;
  auto next_look = SteadyNow();
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_) return;
    }
    // A round when the placement of buckets may have changed, or every kLookInterval (who is
    // live, drains that finished): never for each of the data path's commits.
    const int64_t placement = meta_->Read([](const metadata::State& s) { return s.placement_seq(); });
    if (placement != placed || SteadyNow() >= next_look) {
      placed = placement;
      next_look = SteadyNow() + kLookInterval;
      Round();
      ++rounds_;
    }
    seen = meta_->WaitApplied(seen, kLookInterval);
  }
}

void ClusterFollower::Round() {
  if (coordinator_->is_coordinator()) {
    auto members = membership_->Members();
    if (members.ok()) {
      std::set<int32_t> live;
      for (const auto& m : *members) {
        if (m.live) live.insert(m.node_id);
      }
      auto assigned = coordinator_->Balance(live);
      if (!assigned.ok()) {
        MINK_LOG_WARN("cluster", "assignment round: {}", assigned.status().ToString());
      }
    } else {
      MINK_LOG_WARN("cluster", "listing the members: {}", members.status().ToString());
    }
  }
  auto moved = tables_->FollowAssignment(kDrainTimeout);
  if (!moved.ok()) MINK_LOG_WARN("cluster", "following the assignment: {}", moved.status().ToString());
}

size_t ClusterFollower::OwnedHere() const {
  return meta_->Read([&](const metadata::State& s) {
    size_t owned = 0;
    for (const auto& [table, id] : cluster::TableStreams(s)) {
      const metadata::StreamState* st = s.FindStream(id);
      if (st != nullptr && st->owner_node == self_.node_id &&
          st->owner_node_epoch == self_.node_epoch) {
        ++owned;
      }
    }
    return owned;
  });
}

Status ClusterFollower::Leave(std::chrono::milliseconds timeout) {
  auto left = meta_->Append(metadata::Command(metadata::LeaveCluster{self_.node_id, self_.node_epoch}));
  if (!left.ok()) return left.status();
  // Worth waiting only while another node can take the buckets.
  bool others = false;
  if (auto members = membership_->Members(); members.ok()) {
    for (const auto& m : *members) others |= m.live && m.node_id != self_.node_id;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (others && OwnedHere() > 0 && std::chrono::steady_clock::now() < deadline) {
    meta_->WaitApplied(meta_->applied_seq(), std::chrono::milliseconds(100));
  }
  const size_t rest = OwnedHere();
  if (rest > 0) {
    MINK_LOG_INFO("cluster", "node {} leaving: releasing the {} buckets nobody took",
                  self_.node_id, rest);
  }
  return tables_->ReleaseAll(kDrainTimeout);
}

}  // namespace mink::node
