#pragma once
// OffsetFetch (key 9), versions 0-8 (flexible from 6). Versions 0-7 carry one group (group_id,
// topics); version 8 carries a list of groups (`groups`), in requests and responses alike.

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct OffsetFetchRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kOffsetFetch, true);
  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
  };
  struct Group {
    std::string group_id;
    std::optional<std::vector<Topic>> topics;  // null = all topics
  };
  // v0-7
  std::string group_id;
  std::optional<std::vector<Topic>> topics;  // null = all (v2+)
  // v8+
  std::vector<Group> groups;
  bool require_stable = false;  // v7+
};

struct OffsetFetchResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kOffsetFetch, false);
  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = -1;
    int32_t committed_leader_epoch = -1;  // v5+
    std::optional<std::string> metadata;
    int16_t error_code = 0;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  struct Group {
    std::string group_id;
    std::vector<Topic> topics;
    int16_t error_code = 0;
  };
  int32_t throttle_time_ms = 0;  // v3+
  // v0-7
  std::vector<Topic> topics;
  int16_t error_code = 0;  // v2-7
  // v8+
  std::vector<Group> groups;
};

OffsetFetchResponse ErrorResponse(const OffsetFetchRequest& request, int16_t version,
                                  ErrorCode code);

}  // namespace mink::kafka
