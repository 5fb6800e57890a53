#pragma once
// OffsetCommit (key 8), versions 0-8 (flexible from 8).

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct OffsetCommitRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kOffsetCommit, true);
  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;  // v6+
    int64_t commit_timestamp = -1;        // v1 only
    std::optional<std::string> committed_metadata;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  std::string group_id;
  int32_t generation_id_or_member_epoch = -1;    // v1+; -1 = standalone commit
  std::string member_id;                         // v1+
  std::optional<std::string> group_instance_id;  // v7+
  int64_t retention_time_ms = -1;                // v2-4
  std::vector<Topic> topics;
};

struct OffsetCommitResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kOffsetCommit, false);
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  int32_t throttle_time_ms = 0;  // v3+
  std::vector<Topic> topics;
};

OffsetCommitResponse ErrorResponse(const OffsetCommitRequest& request, int16_t version,
                                   ErrorCode code);

}  // namespace mink::kafka
