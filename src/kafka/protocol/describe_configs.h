#pragma once
// DescribeConfigs (key 32), versions 0-2 (flexible from 4, not supported).

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

// resource_type values.
constexpr int8_t kResourceTopic = 2;
constexpr int8_t kResourceBroker = 4;
// config_source values.
constexpr int8_t kConfigSourceTopic = 1;
constexpr int8_t kConfigSourceStaticBroker = 4;
constexpr int8_t kConfigSourceDefault = 5;

struct DescribeConfigsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kDescribeConfigs, true);
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::optional<std::vector<std::string>> configuration_keys;  // null = all
  };
  std::vector<Resource> resources;
  bool include_synonyms = false;  // v1+
};

struct DescribeConfigsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kDescribeConfigs, false);
  struct Synonym {
    std::string name;
    std::optional<std::string> value;
    int8_t source = 0;
  };
  struct Config {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    bool is_default = false;    // v0 only
    int8_t config_source = -1;  // v1+
    bool is_sensitive = false;
    std::vector<Synonym> synonyms;  // v1+
  };
  struct ResourceResult {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
  };
  int32_t throttle_time_ms = 0;
  std::vector<ResourceResult> results;
};

DescribeConfigsResponse ErrorResponse(const DescribeConfigsRequest& request, int16_t version,
                                      ErrorCode code);

}  // namespace mink::kafka
