#include "cluster/group_leases.h"

#include <vector>

#include "base/log.h"
#include "cluster/rendezvous.h"

namespace mink::cluster {

GroupLeases::GroupLeases(metadata::MetadataLog* meta, const Membership* membership,
                         NodeProcess self, std::chrono::milliseconds ttl)
    : meta_(meta),
      membership_(membership),
      self_(self),
      holder_(Coordinator::HolderName(self)),
      ttl_(ttl) {}

int GroupLeases::SlotOf(const std::string& group_id) {
  // FNV-1a: the same slot on every node and build.
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : group_id) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return static_cast<int>(h % kGroupSlots);
}

std::string GroupLeases::LeaseName(int slot) { return "group-slot-" + std::to_string(slot); }

int32_t GroupLeases::NodeOfHolder(const std::string& holder) {
  // Coordinator::HolderName: "node-<id>-e<epoch>".
  if (holder.rfind("node-", 0) != 0) return 0;
  try {
    return static_cast<int32_t>(std::stol(holder.substr(5)));
  } catch (const std::exception&) {
    return 0;
  }
}

Status GroupLeases::Tick() {
  MINK_ASSIGN_OR_RETURN(std::vector<Member> members, membership_->Members());
  std::vector<int32_t> live;
  for (const Member& m : members) {
    if (m.live) live.push_back(m.node_id);
  }
  auto* store = meta_->liveness_store();
  Status failure;
  for (int slot = 0; slot < kGroupSlots; ++slot) {
    const std::string name = LeaseName(slot);
    const bool mine = RendezvousNode(name, live) == self_.node_id;
    const auto sent = SteadyNow();
    const int64_t now = meta_->liveness_clock()->NowMillis();
    Slot next;
    Result<std::optional<metadata::Lease>> lease = std::optional<metadata::Lease>();
    if (mine) {
      auto taken = store->TryAcquireLease(name, holder_, now, ttl_.count());
      if (taken.ok()) {
        lease = std::optional<metadata::Lease>(*taken);
      } else {
        lease = taken.status();
      }
    } else {
      bool held;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        held = slots_[static_cast<size_t>(slot)].epoch != 0;
      }
      if (held) {
        // Another live node is the slot's home now: hand it on (no time to live left).
        auto released = store->TryAcquireLease(name, holder_, now, 0);
        if (!released.ok()) failure = released.status();
        MINK_LOG_INFO("cluster", "node {} hands consumer-group slot {} on", self_.node_id, slot);
      }
      lease = store->ReadLease(name);
    }
    if (!lease.ok()) {
      // Out of reach of the database: keep what we know; a hold runs out by itself.
      failure = lease.status();
      continue;
    }
    if (lease->has_value() && (*lease)->expires_ms > now) {
      next.holder = NodeOfHolder((*lease)->holder);
      if ((*lease)->holder == holder_) {
        next.epoch = (*lease)->epoch;
        // A heartbeat interval short of the time to live, as Heartbeater::OutOfTouch.
        next.valid_until = sent + ttl_ - kHeartbeatInterval;
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    Slot& current = slots_[static_cast<size_t>(slot)];
    if (next.epoch != current.epoch) {
      if (next.epoch != 0) {
        MINK_LOG_INFO("cluster", "node {} coordinates consumer-group slot {} (epoch {})",
                      self_.node_id, slot, next.epoch);
      } else if (current.epoch != 0) {
        MINK_LOG_INFO("cluster", "node {} no longer coordinates consumer-group slot {}",
                      self_.node_id, slot);
      }
    }
    current = next;
  }
  return failure;
}

std::optional<metadata::OffsetFence> GroupLeases::Fence(const std::string& group_id) const {
  const int slot = SlotOf(group_id);
  std::lock_guard<std::mutex> lock(mutex_);
  const Slot& s = slots_[static_cast<size_t>(slot)];
  if (s.epoch == 0 || SteadyNow() >= s.valid_until) return std::nullopt;
  return metadata::OffsetFence{LeaseName(slot), holder_, s.epoch};
}

int32_t GroupLeases::Holder(const std::string& group_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return slots_[static_cast<size_t>(SlotOf(group_id))].holder;
}

void GroupLeases::Start() {
  std::lock_guard<std::mutex> lock(run_mutex_);
  started_ = true;
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> run(run_mutex_);
    while (!stopping_) {
      run.unlock();
      Status s = Tick();
      if (!s.ok()) MINK_LOG_WARN("cluster", "consumer-group slots: {}", s.ToString());
      run.lock();
      cv_.wait_for(run, kHeartbeatInterval, [&] { return stopping_; });
    }
  });
}

void GroupLeases::Stop() {
  {
    std::lock_guard<std::mutex> lock(run_mutex_);
    if (stopping_ || !started_) {
      stopping_ = true;
      return;
    }
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Hand every slot on at once rather than after its time to live.
  for (int slot = 0; slot < kGroupSlots; ++slot) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      Slot& s = slots_[static_cast<size_t>(slot)];
      if (s.epoch == 0) continue;
      s = Slot{};
    }
    auto released = meta_->liveness_store()->TryAcquireLease(
        LeaseName(slot), holder_, meta_->liveness_clock()->NowMillis(), 0);
    if (!released.ok()) {
      MINK_LOG_WARN("cluster", "handing consumer-group slot {} on: {}", slot,
                    released.status().ToString());
    }
  }
}

}  // namespace mink::cluster
