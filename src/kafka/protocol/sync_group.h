#pragma once
// SyncGroup (key 14), versions 0-4 (flexible from 4). Assignments are the consumer's opaque
// Assignment blobs.

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct SyncGroupRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kSyncGroup, true);
  struct Assignment {
    std::string member_id;
    std::string assignment;
  };
  std::string group_id;
  int32_t generation_id = 0;
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v3+
  std::vector<Assignment> assignments;           // leader only
};

struct SyncGroupResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kSyncGroup, false);
  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  std::string assignment;
};

SyncGroupResponse ErrorResponse(const SyncGroupRequest& request, int16_t version,
                                ErrorCode code);

}  // namespace mink::kafka
