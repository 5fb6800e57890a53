#include "cluster/rendezvous.h"

namespace mink::cluster {

namespace {

// FNV-1a, 64 bits: stable across processes and builds, unlike std::hash.
uint64_t Fnv1a(const std::string& key, int32_t node) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (unsigned char c : key) mix(c);
  for (int i = 0; i < 4; ++i) mix(static_cast<unsigned char>((static_cast<uint32_t>(node) >> (8 * i)) & 0xff));
  // A final avalanche so nodes with close ids spread.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

}  // namespace

int32_t RendezvousNode(const std::string& key, const std::vector<int32_t>& nodes) {
  int32_t best = 0;
  uint64_t best_hash = 0;
  for (int32_t n : nodes) {
    const uint64_t h = Fnv1a(key, n);
    if (best == 0 || h > best_hash) {
      best = n;
      best_hash = h;
    }
  }
  return best;
}

}  // namespace mink::cluster
