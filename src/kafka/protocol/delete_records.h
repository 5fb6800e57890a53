#pragma once
// DeleteRecords (key 21), versions 0-2 (flexible from 2): moves partitions' log start offsets
// forward; the records below become unreadable.

#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

// The offset that asks to delete everything up to the partition's high watermark.
constexpr int64_t kDeleteRecordsToHighWatermark = -1;

struct DeleteRecordsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kDeleteRecords, true);
  struct Partition {
    int32_t partition_index = 0;
    int64_t offset = 0;  // records below it are deleted; -1: the high watermark
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 0;
};

struct DeleteRecordsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kDeleteRecords, false);
  struct Partition {
    int32_t partition_index = 0;
    int64_t low_watermark = -1;  // the log start offset after the deletion
    int16_t error_code = 0;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
};

DeleteRecordsResponse ErrorResponse(const DeleteRecordsRequest& request, int16_t version,
                                    ErrorCode code);

}  // namespace mink::kafka
