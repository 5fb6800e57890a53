#pragma once
// AlterConfigs (key 33), versions 0-1 (identical layouts; flexible from 2, not supported).

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct AlterConfigsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kAlterConfigs, true);
  struct Config {
    std::string name;
    std::optional<std::string> value;
  };
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
  };
  std::vector<Resource> resources;
  bool validate_only = false;
};

struct AlterConfigsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kAlterConfigs, false);
  struct ResourceResult {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
  };
  int32_t throttle_time_ms = 0;
  std::vector<ResourceResult> responses;
};

AlterConfigsResponse ErrorResponse(const AlterConfigsRequest& request, int16_t version,
                                   ErrorCode code);

}  // namespace mink::kafka
