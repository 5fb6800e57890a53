#pragma once
// DeleteTopics (key 20), versions 0-6 (flexible from 4). v0-5 send topic_names; v6 sends topics
// (name and/or id; platformatic sends names with a zero id).

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct DeleteTopicsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kDeleteTopics, true);
  struct Topic {
    std::optional<std::string> name;
    Uuid topic_id{};
  };
  std::vector<Topic> topics;             // v6+
  std::vector<std::string> topic_names;  // v0-5
  int32_t timeout_ms = 0;
};

struct DeleteTopicsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kDeleteTopics, false);
  struct TopicResult {
    std::optional<std::string> name;  // null only from v6
    Uuid topic_id{};                  // v6+
    int16_t error_code = 0;
    std::optional<std::string> error_message;  // v5+
  };
  int32_t throttle_time_ms = 0;  // v1+
  std::vector<TopicResult> responses;
};

DeleteTopicsResponse ErrorResponse(const DeleteTopicsRequest& request, int16_t version,
                                   ErrorCode code);

}  // namespace mink::kafka
