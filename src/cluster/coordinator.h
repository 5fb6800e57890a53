#pragma once
// Coordinator: at most one node at a time coordinates the cluster (assigns buckets to nodes,
// runs garbage collection). It is the holder of the `coordinator` lease row, taken and renewed
// every heartbeat by a conditional update (LogStore::TryAcquireLease) with the session timeout
// as its time to live, so a dead coordinator is replaced once its lease expires, or at once by
// its own next start (a newer epoch of the same node id takes the lease over). A node that
// takes the lease announces itself in the command log (coordinator.elect, with the lease's
// epoch); every write of a coordinator goes through Append, which re-reads the lease row in the
// insert's own transaction, and the state machine accepts coordinator commands only from the
// elected one. A coordinator whose lease was taken can neither win the row again nor append.
//
// Thread-safe.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "base/result.h"
#include "cluster/balancer.h"
#include "metadata/metadata_log.h"

namespace mink::cluster {

inline constexpr char kCoordinatorLease[] = "coordinator";

struct NodeProcess {
  int32_t node_id = 0;
  int64_t node_epoch = 0;
};

class Coordinator {
 public:
  Coordinator(metadata::MetadataLog* meta, NodeProcess self, std::chrono::milliseconds lease_ttl);
  ~Coordinator() { Stop(); }

  // One round: takes or renews the lease, and elects this node when it has just taken it.
  // Whether this node is the coordinator afterwards.
  Result<bool> Tick();
  // Runs Tick every heartbeat interval on a thread of its own until Stop, which releases the
  // lease if this node holds it (the next node takes it at its next round).
  void Start();
  void Stop();

  bool is_coordinator() const { return lease_epoch_.load() != 0; }
  // The epoch of the lease this node holds; 0 when it is not the coordinator.
  int64_t lease_epoch() const { return lease_epoch_.load(); }
  // Appends `build`'s command while this node holds the lease: the lease row is read again in
  // the transaction that inserts the command. FailedPrecondition when it does not hold it.
  Result<int64_t> Append(const metadata::MetadataLog::Builder& build);
  // One assignment round (PlanAssignments on the caught-up state) appended while this node
  // holds the lease; how many streams it assigned.
  Result<size_t> Balance(const std::set<int32_t>& live_nodes, const BalanceOptions& options = {});

  // The holder name of a node process in the lease row.
  static std::string HolderName(NodeProcess node);

 private:
  Status CheckLease(metadata::LogStore* store, int64_t lease_epoch) const;
  // Whether `holder` is an earlier start (a lower node epoch) of this node.
  bool Supersedes(const std::string& holder) const;

  metadata::MetadataLog* const meta_;
  const NodeProcess self_;
  const std::string holder_;
  const std::chrono::milliseconds lease_ttl_;
  std::atomic<int64_t> lease_epoch_{0};

  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mink::cluster
