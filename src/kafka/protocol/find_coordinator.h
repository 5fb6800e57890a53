#pragma once
// FindCoordinator (key 10), versions 0-4 (flexible from 3). v0-3 ask for one key and get one
// coordinator; v4 asks for `coordinator_keys` and gets `coordinators`.

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct FindCoordinatorRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kFindCoordinator, true);
  std::string key;                            // v0-3
  int8_t key_type = 0;                        // v1+; 0 group, 1 transaction
  std::vector<std::string> coordinator_keys;  // v4+
};

struct FindCoordinatorResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kFindCoordinator, false);
  struct Coordinator {
    std::string key;
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
  };
  int32_t throttle_time_ms = 0;  // v1+
  // v0-3
  int16_t error_code = 0;
  std::optional<std::string> error_message;  // v1-3
  int32_t node_id = 0;
  std::string host;
  int32_t port = 0;
  // v4+
  std::vector<Coordinator> coordinators;
};

FindCoordinatorResponse ErrorResponse(const FindCoordinatorRequest& request, int16_t version,
                                      ErrorCode code);

}  // namespace mink::kafka
