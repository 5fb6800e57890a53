#pragma once
// ApiVersions (key 18), versions 0-3 (flexible from 3). Responses always use response header v0.

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct ApiVersionsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kApiVersions, true);
  std::string client_software_name;     // v3+
  std::string client_software_version;  // v3+
};

struct ApiVersionsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kApiVersions, false);
  struct ApiVersion {
    int16_t api_key = 0;
    int16_t min_version = 0;
    int16_t max_version = 0;
  };
  struct SupportedFeature {
    std::string name;
    int16_t min_version = 0;
    int16_t max_version = 0;
  };
  struct FinalizedFeature {
    std::string name;
    int16_t max_version_level = 0;
    int16_t min_version_level = 0;
  };
  int16_t error_code = 0;
  std::vector<ApiVersion> api_keys;
  int32_t throttle_time_ms = 0;                                   // v1+
  std::optional<std::vector<SupportedFeature>> supported_features;  // v3+ tag 0
  int64_t finalized_features_epoch = -1;                          // v3+ tag 1
  std::optional<std::vector<FinalizedFeature>> finalized_features;  // v3+ tag 2
  bool zk_migration_ready = false;                                // v3+ tag 3
};

// The response Mink sends: every advertised API with its version range (api.h).
ApiVersionsResponse MakeApiVersionsResponse();

// The answer to an ApiVersions request of a version we do not support: error 35
// UNSUPPORTED_VERSION and the full api_keys list, ENCODED AS v0 (what clients parse then).
std::string EncodeUnsupportedApiVersionsBody();

}  // namespace mink::kafka
