#pragma once
// Produce (key 0), versions 0-7 (none flexible). `records` holds the RECORDS blob as sent: parse
// it with record_batch.h. acks=0 requests get no response at all.

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct ProduceRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kProduce, true);
  struct Partition {
    int32_t index = 0;
    std::optional<std::string> records;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partition_data;
  };
  std::optional<std::string> transactional_id;  // v3+
  int16_t acks = -1;
  int32_t timeout_ms = 0;
  std::vector<Topic> topic_data;
};

struct ProduceResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kProduce, false);
  struct Partition {
    int32_t index = 0;
    int16_t error_code = 0;
    int64_t base_offset = -1;
    int64_t log_append_time_ms = -1;  // v2+; -1 for CreateTime topics
    int64_t log_start_offset = -1;    // v5+
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partition_responses;
  };
  std::vector<Topic> responses;
  int32_t throttle_time_ms = 0;  // v1+
};

// Every partition of the request with `code`.
ProduceResponse ErrorResponse(const ProduceRequest& request, int16_t version, ErrorCode code);

}  // namespace mink::kafka
