#pragma once
// Rendezvous (highest random weight) hashing: every node that knows the same candidates picks
// the same one for a key, and when a candidate joins or leaves only the keys it wins or held
// move.

#include <cstdint>
#include <string>
#include <vector>

namespace mink::cluster {

// The node of `nodes` with the highest hash of (key, node). 0 if none.
int32_t RendezvousNode(const std::string& key, const std::vector<int32_t>& nodes);

}  // namespace mink::cluster
