#pragma once
// DescribeGroups (key 15), versions 0-5 (flexible from 5).

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct DescribeGroupsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kDescribeGroups, true);
  std::vector<std::string> groups;
  bool include_authorized_operations = false;  // v3+
};

struct DescribeGroupsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kDescribeGroups, false);
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;  // v4+
    std::string client_id;
    std::string client_host;
    std::string member_metadata;
    std::string member_assignment;
  };
  struct Group {
    int16_t error_code = 0;
    std::string group_id;
    std::string group_state;    // Empty, PreparingRebalance, CompletingRebalance, Stable, Dead
    std::string protocol_type;  // "consumer"
    std::string protocol_data;  // the chosen assignor
    std::vector<Member> members;
    int32_t authorized_operations = INT32_MIN;  // v3+
  };
  int32_t throttle_time_ms = 0;  // v1+
  std::vector<Group> groups;
};

DescribeGroupsResponse ErrorResponse(const DescribeGroupsRequest& request, int16_t version,
                                     ErrorCode code);

}  // namespace mink::kafka
