#pragma once
// The coordinator's plan for bucket streams, from the caught-up metadata state and the nodes
// that are live now. One round:
//
//   1. Every bucket stream gets a node that may serve it: a stream nobody was given yet goes to
//      its live owner if it has one (no move), otherwise - like a stream whose node died or is
//      leaving - to the eligible node with the fewest buckets of its table, then the fewest
//      buckets overall. When its owner is dead the assignment is a takeover (the owner is
//      cleared at once); a live owner releases it first.
//   2. A planned move whose owner died before releasing becomes a takeover.
//   3. Only when no move is in flight, up to `max_moves` streams move from the node with the
//      most buckets to the one with the fewest while they differ by more than one (a node
//      that joined gets its share gradually).
//
// A node is eligible while it is live and its process is not leaving (LeaveCluster).

#include <cstdint>
#include <set>
#include <vector>

#include "metadata/state.h"

namespace mink::cluster {

struct BalanceOptions {
  int max_moves = 2;  // per round, when nothing is in flight
};

// Every bucket stream of every table (and partition) of `state`, by table.
std::vector<std::pair<int64_t, uint64_t>> TableStreams(const metadata::State& state);

std::vector<metadata::StreamAssignment> PlanAssignments(const metadata::State& state,
                                                        const std::set<int32_t>& live_nodes,
                                                        const BalanceOptions& options = {});

}  // namespace mink::cluster
