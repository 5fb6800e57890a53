#pragma once
// LeaveGroup (key 13), versions 0-4 (flexible from 4). v0-2 name one member (member_id); v3+
// carry a list (members), in requests and responses alike.

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct LeaveGroupRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kLeaveGroup, true);
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
  };
  std::string group_id;
  std::string member_id;         // v0-2
  std::vector<Member> members;  // v3+
};

struct LeaveGroupResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kLeaveGroup, false);
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    int16_t error_code = 0;
  };
  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  std::vector<Member> members;  // v3+
};

LeaveGroupResponse ErrorResponse(const LeaveGroupRequest& request, int16_t version,
                                 ErrorCode code);

}  // namespace mink::kafka
