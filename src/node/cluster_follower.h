#pragma once
// ClusterFollower: what a node of a cluster does with the assignment. On a thread of its own
// it runs a round whenever a command that may change the placement of buckets was applied
// (State::placement_seq, not the data path's commits) and at least twice a second:
//   - if this node is the coordinator, runs an assignment round over the live nodes
//     (Coordinator::Balance), so new buckets get owners and a dead node's buckets move once its
//     heartbeat expires;
//   - follows the assignment (TableStore::FollowAssignment): releases the buckets assigned
//     elsewhere after their appends settled, opens the ones assigned here.
// Leave() is a graceful shutdown: the node announces it is leaving, the coordinator moves its
// buckets away one planned move at a time, and what is left is released at the end.
//
// Thread-safe.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "cluster/coordinator.h"
#include "cluster/membership.h"
#include "metadata/metadata_log.h"
#include "storage/stream_store.h"
#include "table/table_store.h"

namespace mink::node {

class ClusterFollower {
 public:
  ClusterFollower(metadata::MetadataLog* meta, table::TableStore* tables,
                  cluster::Membership* membership, cluster::Coordinator* coordinator,
                  storage::NodeIdentity self);
  ~ClusterFollower() { Stop(); }

  void Start();
  // Moves this node's buckets to other live nodes (at most `timeout`), then releases the rest.
  Status Leave(std::chrono::milliseconds timeout);
  void Stop();

  // How long a release waits for a bucket's appends to settle.
  static constexpr std::chrono::milliseconds kDrainTimeout{5'000};
  // A round at least this often.
  static constexpr std::chrono::milliseconds kLookInterval{500};
  // Rounds run so far (a benchmark counts them).
  int64_t rounds() const { return rounds_.load(); }

 private:
  void Loop();
  void Round();
  // Bucket streams this node process owns now.
  size_t OwnedHere() const;

  metadata::MetadataLog* const meta_;
  table::TableStore* const tables_;
  cluster::Membership* const membership_;
  cluster::Coordinator* const coordinator_;
  const storage::NodeIdentity self_;

  std::atomic<int64_t> rounds_{0};
  std::mutex mutex_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mink::node
