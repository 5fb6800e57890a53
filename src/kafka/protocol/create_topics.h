#pragma once
// CreateTopics (key 19), versions 0-7 (flexible from 5).

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct CreateTopicsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kCreateTopics, true);
  struct Assignment {
    int32_t partition_index = 0;
    std::vector<int32_t> broker_ids;
  };
  struct Config {
    std::string name;
    std::optional<std::string> value;
  };
  struct Topic {
    std::string name;
    int32_t num_partitions = -1;      // -1 = broker default (v4+)
    int16_t replication_factor = -1;  // -1 = broker default (v4+)
    std::vector<Assignment> assignments;
    std::vector<Config> configs;
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 60000;
  bool validate_only = false;  // v1+
};

struct CreateTopicsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kCreateTopics, false);
  struct Config {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    int8_t config_source = -1;
    bool is_sensitive = false;
  };
  struct Topic {
    std::string name;
    Uuid topic_id{};  // v7+
    int16_t error_code = 0;
    std::optional<std::string> error_message;  // v1+
    int16_t topic_config_error_code = 0;       // v5+ tag 0
    int32_t num_partitions = -1;               // v5+
    int16_t replication_factor = -1;           // v5+
    std::optional<std::vector<Config>> configs;  // v5+
  };
  int32_t throttle_time_ms = 0;  // v2+
  std::vector<Topic> topics;
};

CreateTopicsResponse ErrorResponse(const CreateTopicsRequest& request, int16_t version,
                                   ErrorCode code);

}  // namespace mink::kafka
