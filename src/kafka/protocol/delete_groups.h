#pragma once
// DeleteGroups (key 42), versions 0-2 (flexible from 2): forgets empty groups and their committed
// offsets.

#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct DeleteGroupsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kDeleteGroups, true);
  std::vector<std::string> groups_names;
};

struct DeleteGroupsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kDeleteGroups, false);
  struct Result {
    std::string group_id;
    int16_t error_code = 0;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
};

DeleteGroupsResponse ErrorResponse(const DeleteGroupsRequest& request, int16_t version,
                                   ErrorCode code);

}  // namespace mink::kafka
