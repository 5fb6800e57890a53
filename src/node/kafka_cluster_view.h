#pragma once
// The Kafka broker's view of the cluster (kafka::ClusterView) from the node's membership,
// metadata state and consumer-group slots (cluster::GroupLeases). The member list is read from the database at most every half second.
//
// Thread-safe.

#include <chrono>
#include <mutex>

#include "cluster/group_leases.h"
#include "cluster/membership.h"
#include "kafka/server/cluster_view.h"
#include "metadata/metadata_log.h"

namespace mink::node {

class KafkaClusterView final : public kafka::ClusterView {
 public:
  // `touch`: a node out of touch with the database names itself leader of nothing.
  KafkaClusterView(metadata::MetadataLog* meta, const cluster::Membership* membership,
                   const cluster::GroupLeases* groups, const cluster::DatabaseTouch* touch,
                   int32_t self)
      : meta_(meta), membership_(membership), groups_(groups), touch_(touch), self_(self) {}

  std::vector<kafka::BrokerAddress> Brokers() const override;
  int32_t Owner(uint64_t stream_id) const override;
  int32_t GroupCoordinator(const std::string& group_id) const override;
  std::optional<metadata::OffsetFence> GroupFence(const std::string& group_id) const override;
  int32_t Controller() const override;

 private:
  metadata::MetadataLog* const meta_;
  const cluster::Membership* const membership_;
  const cluster::GroupLeases* const groups_;
  const cluster::DatabaseTouch* const touch_;
  const int32_t self_;
  mutable std::mutex mutex_;
  mutable std::vector<kafka::BrokerAddress> brokers_;
  mutable std::chrono::steady_clock::time_point read_at_{};
};

}  // namespace mink::node
