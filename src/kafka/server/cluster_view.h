#pragma once
// What a broker of a cluster needs to know about the others: the live brokers, which node
// leads (owns) each partition's stream, and which node coordinates each consumer group. A
// broker without one is alone: it leads every partition and coordinates every group.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metadata/group_offset_store.h"

namespace mink::kafka {

struct BrokerAddress {
  int32_t node_id = 0;
  std::string host;
  int32_t port = 0;
};

class ClusterView {
 public:
  virtual ~ClusterView() = default;
  // The live brokers (nodes with a Kafka listener), by node id.
  virtual std::vector<BrokerAddress> Brokers() const = 0;
  // The node that owns the stream now; 0 when none does (it is moving).
  virtual int32_t Owner(uint64_t stream_id) const = 0;
  // The node that coordinates the group: the same answer on every node for the same live
  // brokers, and few groups move when one joins or leaves.
  virtual int32_t GroupCoordinator(const std::string& group_id) const = 0;
  // While this node coordinates the group: the fence its offset commits carry (the epoch of its
  // ownership; a new epoch starts the group's state afresh). nullopt: another node does.
  virtual std::optional<metadata::OffsetFence> GroupFence(const std::string& group_id) const = 0;
  // The node to name as the controller (the cluster's coordinator).
  virtual int32_t Controller() const = 0;
};

}  // namespace mink::kafka
