#pragma once
// Heartbeat (key 12), versions 0-4 (flexible from 4).

#include <optional>
#include <string>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct HeartbeatRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kHeartbeat, true);
  std::string group_id;
  int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+
};

struct HeartbeatResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kHeartbeat, false);
  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
};

HeartbeatResponse ErrorResponse(const HeartbeatRequest& request, int16_t version,
                                ErrorCode code);

}  // namespace mink::kafka
