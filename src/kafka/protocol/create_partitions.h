#pragma once
// CreatePartitions (key 37), versions 0-1 (identical layouts; flexible from 2, not supported).

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct CreatePartitionsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kCreatePartitions, true);
  struct Assignment {
    std::vector<int32_t> broker_ids;
  };
  struct Topic {
    std::string name;
    int32_t count = 0;  // the new total number of partitions
    std::optional<std::vector<Assignment>> assignments;
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 0;
  bool validate_only = false;
};

struct CreatePartitionsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kCreatePartitions, false);
  struct TopicResult {
    std::string name;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
  };
  int32_t throttle_time_ms = 0;
  std::vector<TopicResult> results;
};

CreatePartitionsResponse ErrorResponse(const CreatePartitionsRequest& request, int16_t version,
                                       ErrorCode code);

}  // namespace mink::kafka
