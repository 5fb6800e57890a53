#pragma once
// JoinGroup (key 11), versions 0-6 (flexible from 6). Protocol metadata is the consumer's
// Subscription blob, opaque to the broker.

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct JoinGroupRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kJoinGroup, true);
  struct Protocol {
    std::string name;
    std::string metadata;
  };
  std::string group_id;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = -1;  // v1+
  std::string member_id;
  std::optional<std::string> group_instance_id;  // v5+
  std::string protocol_type;
  std::vector<Protocol> protocols;
};

struct JoinGroupResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kJoinGroup, false);
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v5+
    std::string metadata;
  };
  int32_t throttle_time_ms = 0;  // v2+
  int16_t error_code = 0;
  int32_t generation_id = -1;
  std::string protocol_name;
  std::string leader;
  std::string member_id;
  std::vector<Member> members;  // only the leader gets them
};

JoinGroupResponse ErrorResponse(const JoinGroupRequest& request, int16_t version,
                                ErrorCode code);

}  // namespace mink::kafka
