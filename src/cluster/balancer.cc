#include "cluster/balancer.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace mink::cluster {

using metadata::State;
using metadata::StreamAssignment;
using metadata::StreamState;

std::vector<std::pair<int64_t, uint64_t>> TableStreams(const State& state) {
  std::vector<std::pair<int64_t, uint64_t>> streams;
  for (const auto& [id, t] : state.tables()) {
    for (uint64_t s : t.streams) streams.emplace_back(id, s);
    for (const auto& [name, p] : t.partitions) {
      for (uint64_t s : p.streams) streams.emplace_back(id, s);
    }
  }
  return streams;
}

namespace {

class Plan {
 public:
  Plan(const State& state, const std::set<int32_t>& live) : state_(state) {
    for (int32_t n : live) {
      auto node = state.nodes().find(n);
      if (node != state.nodes().end() && !node->second.leaving) {
        eligible_.insert(n);
        load_[n] = 0;
      }
    }
    for (int32_t n : live) {
      auto node = state.nodes().find(n);
      if (node != state.nodes().end()) live_.insert(n);
    }
  }

  bool Eligible(int32_t node) const { return eligible_.count(node) > 0; }
  // The owner's process is the node's current one and the node is live.
  bool OwnerLive(const StreamState& st) const {
    return st.owner_node != 0 && live_.count(st.owner_node) &&
           state_.NodeEpoch(st.owner_node) == st.owner_node_epoch;
  }
  // Assigned to a node that does not serve it yet.
  bool InFlight(const StreamState& st) const {
    return st.assigned_node != 0 && (st.owner_node != st.assigned_node ||
                                     st.owner_node_epoch != state_.NodeEpoch(st.assigned_node));
  }

  void Count(int64_t table, int32_t node) {
    ++load_[node];
    ++table_load_[{table, node}];
  }
  void Uncount(int64_t table, int32_t node) {
    --load_[node];
    --table_load_[{table, node}];
  }
  // The eligible node with the fewest buckets of `table`, then overall, then the lowest id.
  int32_t LeastLoaded(int64_t table) const {
    int32_t best = 0;
    std::tuple<int64_t, int64_t, int32_t> best_key{};
    for (int32_t n : eligible_) {
      auto tl = table_load_.find({table, n});
      std::tuple<int64_t, int64_t, int32_t> key{tl == table_load_.end() ? 0 : tl->second,
                                                load_.at(n), n};
      if (best == 0 || key < best_key) {
        best = n;
        best_key = key;
      }
    }
    return best;
  }
  int64_t TableLoad(int64_t table, int32_t node) const {
    auto tl = table_load_.find({table, node});
    return tl == table_load_.end() ? 0 : tl->second;
  }
  const std::map<int32_t, int64_t>& load() const { return load_; }
  bool empty() const { return eligible_.empty(); }

 private:
  const State& state_;
  std::set<int32_t> live_, eligible_;
  std::map<int32_t, int64_t> load_;
  std::map<std::pair<int64_t, int32_t>, int64_t> table_load_;
};

}  // namespace

std::vector<StreamAssignment> PlanAssignments(const State& state,
                                              const std::set<int32_t>& live_nodes,
                                              const BalanceOptions& options) {
  std::vector<StreamAssignment> out;
  Plan plan(state, live_nodes);
  if (plan.empty()) return out;
  const auto streams = TableStreams(state);
  std::vector<std::pair<int64_t, const StreamState*>> homeless;
  bool in_flight = false;
  for (const auto& [table, id] : streams) {
    const StreamState* st = state.FindStream(id);
    if (st == nullptr) continue;
    if (plan.Eligible(st->assigned_node)) {
      plan.Count(table, st->assigned_node);
      if (plan.InFlight(*st)) {
        in_flight = true;
        // A planned move whose owner died before it released the stream.
        if (st->owner_node != 0 && st->owner_node != st->assigned_node && !plan.OwnerLive(*st)) {
          out.push_back(StreamAssignment{id, st->assigned_node, true});
        }
      }
    } else if (st->assigned_node == 0 && plan.Eligible(st->owner_node) && plan.OwnerLive(*st)) {
      // Served before any coordinator assigned it (created by a node alone): it stays.
      plan.Count(table, st->owner_node);
      out.push_back(StreamAssignment{id, st->owner_node, false});
    } else {
      homeless.emplace_back(table, st);
    }
  }
  for (const auto& [table, st] : homeless) {
    const int32_t node = plan.LeastLoaded(table);
    plan.Count(table, node);
    const bool takeover = st->owner_node != 0 && !plan.OwnerLive(*st);
    out.push_back(StreamAssignment{st->stream_id, node, takeover});
    if (st->owner_node != node || takeover) in_flight = true;
  }
  if (in_flight || !out.empty()) return out;

  // Balance: move from the fullest node to the emptiest, a few streams per round.
  std::map<uint64_t, int32_t> assigned;
  for (const auto& [table, id] : streams) {
    const StreamState* st = state.FindStream(id);
    if (st != nullptr) assigned[id] = st->assigned_node;
  }
  for (int moves = 0; moves < options.max_moves; ++moves) {
    auto [lo, hi] = std::minmax_element(
        plan.load().begin(), plan.load().end(),
        [](const auto& a, const auto& b) { return std::tie(a.second, a.first) < std::tie(b.second, b.first); });
    if (hi->second - lo->second <= 1) break;
    const int32_t from = hi->first, to = lo->first;
    // The stream of the table the move evens out most.
    int64_t best_table = 0;
    uint64_t best_stream = 0;
    int64_t best_gain = INT64_MIN;
    bool found = false;
    for (const auto& [table, id] : streams) {
      if (assigned[id] != from) continue;
      const int64_t gain = plan.TableLoad(table, from) - plan.TableLoad(table, to);
      if (!found || gain > best_gain) {
        found = true;
        best_gain = gain;
        best_table = table;
        best_stream = id;
      }
    }
    if (!found) break;
    plan.Uncount(best_table, from);
    plan.Count(best_table, to);
    assigned[best_stream] = to;
    out.push_back(StreamAssignment{best_stream, to, false});
  }
  return out;
}

}  // namespace mink::cluster
