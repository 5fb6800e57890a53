#pragma once
// GroupLeases: which node coordinates each Kafka consumer group, fenced like a bucket. Groups
// hash to kGroupSlots slots, and a slot is a lease row (`group-slot-<k>`) that one node process
// holds at a time, with an epoch that grows each time the slot changes hands. Every heartbeat
// a node takes or renews the slots that rendezvous hashing over the live nodes gives it and
// hands the others on. While it holds a slot it coordinates the slot's groups: FindCoordinator
// names it on every node, its in-memory groups and cached offsets belong to that epoch (a new
// epoch starts them afresh from the database), and each offset commit re-reads the lease in its
// own transaction (metadata::OffsetFence), so a coordinator that was paused while another took
// the slot over can no longer commit, nor serve what it cached.
//
// Thread-safe.

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "base/clock.h"
#include "cluster/coordinator.h"
#include "cluster/membership.h"
#include "metadata/group_offset_store.h"
#include "metadata/metadata_log.h"

namespace mink::cluster {

inline constexpr int kGroupSlots = 16;

class GroupLeases {
 public:
  // `ttl`: how long a slot stays with a node that stops renewing it (the session timeout).
  GroupLeases(metadata::MetadataLog* meta, const Membership* membership, NodeProcess self,
              std::chrono::milliseconds ttl);
  ~GroupLeases() { Stop(); }

  static int SlotOf(const std::string& group_id);
  static std::string LeaseName(int slot);

  // One round: takes or renews this node's slots, hands on the others, learns the holders.
  Status Tick();
  // Runs Tick every heartbeat interval on a thread of its own until Stop, which hands every
  // slot this node holds on at once.
  void Start();
  void Stop();

  // The fence of `group_id` while this node coordinates it: it holds the slot, renewed less
  // than the time to live ago by this process's steady clock (a paused process loses it).
  std::optional<metadata::OffsetFence> Fence(const std::string& group_id) const;
  // The node whose process holds the group's slot, as of the last round; 0 for none.
  int32_t Holder(const std::string& group_id) const;

 private:
  struct Slot {
    int64_t epoch = 0;          // this node's lease epoch; 0 when it does not hold the slot
    SteadyTime valid_until{};   // when this node's hold runs out unless renewed
    int32_t holder = 0;         // the node holding it (this one or another), 0 for none
  };
  static int32_t NodeOfHolder(const std::string& holder);

  metadata::MetadataLog* const meta_;
  const Membership* const membership_;
  const NodeProcess self_;
  const std::string holder_;
  const std::chrono::milliseconds ttl_;

  mutable std::mutex mutex_;  // guards slots_
  std::array<Slot, kGroupSlots> slots_{};

  std::mutex run_mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool started_ = false;
  std::thread thread_;
};

}  // namespace mink::cluster
