#include "node/kafka_cluster_view.h"

#include <algorithm>

#include "base/strings.h"
#include "cluster/rendezvous.h"

namespace mink::node {

std::vector<kafka::BrokerAddress> KafkaClusterView::Brokers() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (now - read_at_ < std::chrono::milliseconds(500)) return brokers_;
  auto members = membership_->Members();
  if (!members.ok()) return brokers_;  // the last known, while the database is out of reach
  std::vector<kafka::BrokerAddress> brokers;
  for (const auto& m : *members) {
    if (!m.live || m.kafka_address.empty()) continue;
    const size_t colon = m.kafka_address.rfind(':');
    if (colon == std::string::npos) continue;
    auto port = ParseInt64(m.kafka_address.substr(colon + 1));
    if (!port.ok()) continue;
    brokers.push_back({m.node_id, m.kafka_address.substr(0, colon), static_cast<int32_t>(*port)});
  }
  brokers_ = std::move(brokers);
  read_at_ = now;
  return brokers_;
}

int32_t KafkaClusterView::Owner(uint64_t stream_id) const {
  const bool fenced = touch_ != nullptr && touch_->OutOfTouch();
  return meta_->Read([&](const metadata::State& s) {
    const metadata::StreamState* st = s.FindStream(stream_id);
    if (st == nullptr || st->owner_node == 0 ||
        st->owner_node_epoch != s.NodeEpoch(st->owner_node)) {
      return 0;
    }
    // Fenced, this node's view of its own partitions may be stale: it leads none of them.
    if (fenced && st->owner_node == self_) return 0;
    return st->owner_node;
  });
}

int32_t KafkaClusterView::GroupCoordinator(const std::string& group_id) const {
  std::vector<int32_t> nodes;
  for (const auto& b : Brokers()) nodes.push_back(b.node_id);
  // The holder of the group's slot; while none holds it, the node that will take it.
  const int32_t holder = groups_->Holder(group_id);
  if (holder != 0 && std::find(nodes.begin(), nodes.end(), holder) != nodes.end()) return holder;
  return cluster::RendezvousNode(
      cluster::GroupLeases::LeaseName(cluster::GroupLeases::SlotOf(group_id)), nodes);
}

std::optional<metadata::OffsetFence> KafkaClusterView::GroupFence(const std::string& group_id) const {
  return groups_->Fence(group_id);
}

int32_t KafkaClusterView::Controller() const {
  return meta_->Read([](const metadata::State& s) { return s.coordinator().node_id; });
}

}  // namespace mink::node
