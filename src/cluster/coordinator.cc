#include "cluster/coordinator.h"

#include "base/log.h"
#include "cluster/membership.h"

namespace mink::cluster {

Coordinator::Coordinator(metadata::MetadataLog* meta, NodeProcess self,
                         std::chrono::milliseconds lease_ttl)
    : meta_(meta), self_(self), holder_(HolderName(self)), lease_ttl_(lease_ttl) {}

std::string Coordinator::HolderName(NodeProcess node) {
  return "node-" + std::to_string(node.node_id) + "-e" + std::to_string(node.node_epoch);
}

Status Coordinator::CheckLease(metadata::LogStore* store, int64_t lease_epoch) const {
  MINK_ASSIGN_OR_RETURN(auto lease, store->ReadLease(kCoordinatorLease));
  const int64_t now = meta_->liveness_clock()->NowMillis();
  if (!lease || lease->holder != holder_ || lease->epoch != lease_epoch ||
      lease->expires_ms <= now) {
    return FailedPreconditionError(
        "node " + std::to_string(self_.node_id) + " is not the coordinator: the lease is " +
        (lease ? "held by " + lease->holder + " at epoch " + std::to_string(lease->epoch)
               : std::string("not taken")));
  }
  return Status::Ok();
}

bool Coordinator::Supersedes(const std::string& holder) const {
  const std::string prefix = "node-" + std::to_string(self_.node_id) + "-e";
  if (holder.rfind(prefix, 0) != 0) return false;
  try {
    return std::stoll(holder.substr(prefix.size())) < self_.node_epoch;
  } catch (const std::exception&) {
    return false;
  }
}

Result<bool> Coordinator::Tick() {
  auto* store = meta_->liveness_store();
  const Clock* clock = meta_->liveness_clock();
  auto lease = store->TryAcquireLease(kCoordinatorLease, holder_, clock->NowMillis(),
                                      lease_ttl_.count());
  if (lease.ok() && lease->holder != holder_ && Supersedes(lease->holder)) {
    // An earlier start of this node holds it: that process is gone (this start registered a
    // newer epoch of the node), so the lease need not run out first.
    const std::string previous = lease->holder;
    lease = store->TakeOverLease(kCoordinatorLease, holder_, previous, clock->NowMillis(),
                                 lease_ttl_.count());
    if (lease.ok() && lease->holder == holder_) {
      MINK_LOG_INFO("cluster", "node {} took the coordinator lease over from {}, its earlier start",
                    self_.node_id, previous);
    }
  }
  if (!lease.ok()) {
    // The database is out of reach: a coordinator that cannot renew stops acting as one.
    lease_epoch_ = 0;
    return lease.status();
  }
  if (lease->holder != holder_) {
    if (lease_epoch_.exchange(0) != 0) {
      MINK_LOG_INFO("cluster", "node {} is no longer the coordinator: {} holds the lease",
                    self_.node_id, lease->holder);
    }
    return false;
  }
  const int64_t epoch = lease->epoch;
  const bool elected = meta_->Read([&](const metadata::State& s) {
    const auto& c = s.coordinator();
    return c.node_id == self_.node_id && c.node_epoch == self_.node_epoch &&
           c.lease_epoch == epoch;
  });
  if (!elected) {
    auto seq = meta_->AppendGuarded(
        [&](const metadata::State&) -> Result<metadata::Command> {
          return metadata::Command(
              metadata::ElectCoordinator{self_.node_id, self_.node_epoch, epoch});
        },
        [&](metadata::LogStore* store) { return CheckLease(store, epoch); });
    if (!seq.ok()) {
      lease_epoch_ = 0;
      return seq.status();
    }
    MINK_LOG_INFO("cluster", "node {} is the coordinator (lease epoch {})", self_.node_id, epoch);
  }
  lease_epoch_ = epoch;
  return true;
}

Result<int64_t> Coordinator::Append(const metadata::MetadataLog::Builder& build) {
  const int64_t epoch = lease_epoch_.load();
  if (epoch == 0) {
    return FailedPreconditionError("node " + std::to_string(self_.node_id) +
                                   " is not the coordinator");
  }
  return meta_->AppendGuarded(build,
                              [&](metadata::LogStore* store) { return CheckLease(store, epoch); });
}

Result<size_t> Coordinator::Balance(const std::set<int32_t>& live_nodes,
                                    const BalanceOptions& options) {
  const int64_t epoch = lease_epoch_.load();
  // Planned on this node's state first: a round with nothing to do takes no lock and writes
  // nothing (the plan is made again in the append, on the state it is checked against).
  const bool nothing = meta_->Read([&](const metadata::State& s) {
    return PlanAssignments(s, live_nodes, options).empty();
  });
  if (nothing) return size_t{0};
  size_t assigned = 0;
  auto seq = Append([&](const metadata::State& s) -> Result<metadata::Command> {
    metadata::AssignStreams c{self_.node_id, epoch, PlanAssignments(s, live_nodes, options)};
    assigned = c.assignments.size();
    if (assigned == 0) return AbortedError("nothing to assign");
    return metadata::Command(std::move(c));
  });
  if (!seq.ok()) return assigned == 0 ? Result<size_t>(size_t{0}) : Result<size_t>(seq.status());
  MINK_LOG_DEBUG("cluster", "coordinator {} assigned {} streams", self_.node_id, assigned);
  return assigned;
}

void Coordinator::Start() {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      auto held = Tick();
      if (!held.ok()) MINK_LOG_WARN("cluster", "coordinator lease: {}", held.status().ToString());
      lock.lock();
      cv_.wait_for(lock, kHeartbeatInterval, [&] { return stopping_; });
    }
  });
}

void Coordinator::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  // A node that stops hands the lease on at once rather than after its time to live: renewed
  // with none left, any other node takes it at its next round.
  if (lease_epoch_.exchange(0) != 0) {
    auto released = meta_->liveness_store()->TryAcquireLease(
        kCoordinatorLease, holder_, meta_->liveness_clock()->NowMillis(), 0);
    if (!released.ok()) {
      MINK_LOG_WARN("cluster", "releasing the coordinator lease: {}", released.status().ToString());
    }
  }
}

}  // namespace mink::cluster
