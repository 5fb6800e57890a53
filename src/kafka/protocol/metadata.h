#pragma once
// Metadata (key 3), versions 0-9 (flexible from 9).

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

constexpr int32_t kAuthorizedOperationsUnknown = INT32_MIN;

struct MetadataRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kMetadata, true);
  struct Topic {
    std::string name;
  };
  // null = all topics (v1+); in v0 an EMPTY list means all topics and null cannot be sent.
  std::optional<std::vector<Topic>> topics;
  bool allow_auto_topic_creation = true;              // v4+
  bool include_cluster_authorized_operations = false;  // v8+
  bool include_topic_authorized_operations = false;    // v8+
};

struct MetadataResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kMetadata, false);
  struct Broker {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;  // v1+
  };
  struct Partition {
    int16_t error_code = 0;
    int32_t partition_index = 0;
    int32_t leader_id = 0;
    int32_t leader_epoch = -1;  // v7+
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::vector<int32_t> offline_replicas;  // v5+
  };
  struct Topic {
    int16_t error_code = 0;
    std::string name;
    bool is_internal = false;  // v1+
    std::vector<Partition> partitions;
    int32_t topic_authorized_operations = kAuthorizedOperationsUnknown;  // v8+
  };
  int32_t throttle_time_ms = 0;  // v3+
  std::vector<Broker> brokers;
  std::optional<std::string> cluster_id;  // v2+
  int32_t controller_id = -1;             // v1+
  std::vector<Topic> topics;
  int32_t cluster_authorized_operations = kAuthorizedOperationsUnknown;  // v8+
};

// Every requested topic with `code` (no brokers).
MetadataResponse ErrorResponse(const MetadataRequest& request, int16_t version, ErrorCode code);

}  // namespace mink::kafka
