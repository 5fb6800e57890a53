#pragma once
// Metadata commands of the nodes domain: node processes and their epochs.
// A command's `kKind` names it in the log; commands.h has the variant of every command and
// their JSON bodies; the state machine validates and applies them (state.h).

#include <cstdint>
#include <string>
#include <string_view>

namespace mink::metadata {

// A node process starts: node_epoch must be the node's previous epoch + 1, which fences every
// older process of the same node id.
struct RegisterNode {
  static constexpr std::string_view kKind = "node.register";
  int32_t node_id = 0;
  int64_t node_epoch = 0;

  bool operator==(const RegisterNode&) const = default;
};

// The holder of the coordinator lease (a row of the leases table, not a command) announces
// itself. lease_epoch must be higher than the last elected coordinator's, and the node process
// registered and current; from then on only this coordinator's assignments are valid.
struct ElectCoordinator {
  static constexpr std::string_view kKind = "coordinator.elect";
  int32_t node_id = 0;
  int64_t node_epoch = 0;
  int64_t lease_epoch = 0;

  bool operator==(const ElectCoordinator&) const = default;
};

// A node process is shutting down: the coordinator moves its buckets to other nodes (each
// released after its appends settled) and assigns it nothing more. A new process of the node
// id (RegisterNode) is a member again.
struct LeaveCluster {
  static constexpr std::string_view kKind = "node.leave";
  int32_t node_id = 0;
  int64_t node_epoch = 0;

  bool operator==(const LeaveCluster&) const = default;
};

}  // namespace mink::metadata
