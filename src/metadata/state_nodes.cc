// The nodes domain of the state machine: node processes and their epochs (fencing of older
// processes of a node id).

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "metadata/state.h"

namespace mink::metadata {

Status State::CheckCommand(const RegisterNode& c) const {
    if (c.node_id <= 0) return InvalidArgumentError("node id must be positive");
    int64_t current = NodeEpoch(c.node_id);
    if (c.node_epoch != current + 1) {
      return AbortedError("node " + std::to_string(c.node_id) + " is at epoch " +
                          std::to_string(current) + ", cannot register epoch " +
                          std::to_string(c.node_epoch));
    }
    return Status::Ok();
  }

void State::ApplyCommand(const RegisterNode& c, int64_t /*time_ms*/) {
    nodes_[c.node_id] = NodeState{c.node_id, c.node_epoch};
  }

Status State::CheckCommand(const ElectCoordinator& c) const {
  if (c.node_id <= 0) return InvalidArgumentError("node id must be positive");
  if (NodeEpoch(c.node_id) != c.node_epoch) {
    return AbortedError("node " + std::to_string(c.node_id) + " epoch " +
                        std::to_string(c.node_epoch) + " is fenced (current " +
                        std::to_string(NodeEpoch(c.node_id)) + ")");
  }
  if (c.lease_epoch <= coordinator_.lease_epoch) {
    return AbortedError("coordinator lease epoch " + std::to_string(c.lease_epoch) +
                        " is not newer than the elected one's " +
                        std::to_string(coordinator_.lease_epoch));
  }
  return Status::Ok();
}

Status State::CheckCommand(const LeaveCluster& c) const {
  if (c.node_id <= 0) return InvalidArgumentError("node id must be positive");
  if (NodeEpoch(c.node_id) != c.node_epoch) {
    return AbortedError("node " + std::to_string(c.node_id) + " epoch " +
                        std::to_string(c.node_epoch) + " is fenced (current " +
                        std::to_string(NodeEpoch(c.node_id)) + ")");
  }
  return Status::Ok();
}

void State::ApplyCommand(const LeaveCluster& c, int64_t /*time_ms*/) {
  nodes_[c.node_id].leaving = true;
}

void State::ApplyCommand(const ElectCoordinator& c, int64_t /*time_ms*/) {
  coordinator_ = CoordinatorState{c.node_id, c.node_epoch, c.lease_epoch};
}

}  // namespace mink::metadata
