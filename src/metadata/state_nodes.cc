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

}  // namespace mink::metadata
