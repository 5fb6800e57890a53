#pragma once
// ListOffsets (key 2), versions 0-5 (flexible from 6, not supported).

#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

constexpr int64_t kListOffsetsLatest = -1;
constexpr int64_t kListOffsetsEarliest = -2;

struct ListOffsetsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kListOffsets, true);
  struct Partition {
    int32_t partition_index = 0;
    int32_t current_leader_epoch = -1;  // v4+
    int64_t timestamp = 0;              // -1 latest, -2 earliest, >= 0 by time
    int32_t max_num_offsets = 1;        // v0 only
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  int32_t replica_id = -1;
  int8_t isolation_level = 0;  // v2+
  std::vector<Topic> topics;
};

struct ListOffsetsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kListOffsets, false);
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::vector<int64_t> old_style_offsets;  // v0 only
    int64_t timestamp = -1;                  // v1+
    int64_t offset = -1;                     // v1+
    int32_t leader_epoch = -1;               // v4+
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  int32_t throttle_time_ms = 0;  // v2+
  std::vector<Topic> topics;
};

ListOffsetsResponse ErrorResponse(const ListOffsetsRequest& request, int16_t version,
                                  ErrorCode code);

}  // namespace mink::kafka
