#pragma once
// ListGroups (key 16), versions 0-4 (flexible from 3).

#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct ListGroupsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kListGroups, true);
  std::vector<std::string> states_filter;  // v4+; empty = all
};

struct ListGroupsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kListGroups, false);
  struct Group {
    std::string group_id;
    std::string protocol_type;
    std::string group_state;  // v4+
  };
  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;
  std::vector<Group> groups;
};

ListGroupsResponse ErrorResponse(const ListGroupsRequest& request, int16_t version,
                                 ErrorCode code);

}  // namespace mink::kafka
