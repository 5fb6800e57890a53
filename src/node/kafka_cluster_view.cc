#include "node/kafka_cluster_view.h"

#include "base/strings.h"

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
  return meta_->Read([&](const metadata::State& s) {
    const metadata::StreamState* st = s.FindStream(stream_id);
    if (st == nullptr || st->owner_node == 0 ||
        st->owner_node_epoch != s.NodeEpoch(st->owner_node)) {
      return 0;
    }
    return st->owner_node;
  });
}

int32_t KafkaClusterView::GroupCoordinator(const std::string& group_id) const {
  std::vector<int32_t> nodes;
  for (const auto& b : Brokers()) nodes.push_back(b.node_id);
  return kafka::RendezvousNode(group_id, nodes);
}

int32_t KafkaClusterView::Controller() const {
  return meta_->Read([](const metadata::State& s) { return s.coordinator().node_id; });
}

}  // namespace mink::node
