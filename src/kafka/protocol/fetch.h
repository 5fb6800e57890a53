#pragma once
// Fetch (key 1), versions 0-12 (flexible from 12). Topics are named (topic ids start at v13).
// A response's `records` may end with a truncated batch; record_batch.h tolerates that.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct FetchRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kFetch, true);
  struct Partition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;  // v9+
    int64_t fetch_offset = 0;
    int32_t last_fetched_epoch = -1;  // v12+
    int64_t log_start_offset = -1;    // v5+
    int32_t partition_max_bytes = 0;
  };
  struct Topic {
    std::string topic;
    std::vector<Partition> partitions;
  };
  struct ForgottenTopic {
    std::string topic;
    std::vector<int32_t> partitions;
  };
  std::optional<std::string> cluster_id;  // v12+ tag 0
  int32_t replica_id = -1;
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = std::numeric_limits<int32_t>::max();  // v3+
  int8_t isolation_level = 0;                               // v4+; 1 = read_committed
  int32_t session_id = 0;                                   // v7+
  int32_t session_epoch = -1;                               // v7+
  std::vector<Topic> topics;
  std::vector<ForgottenTopic> forgotten_topics_data;  // v7+
  std::string rack_id;                                // v11+
};

// The tagged structs of a Fetch v12+ partition response. At namespace scope (not nested) so that
// std::optional of them is usable inside FetchResponse's definition under clang as well.
struct FetchEpochEndOffset {
  int32_t epoch = -1;
  int64_t end_offset = -1;
};
struct FetchLeaderIdAndEpoch {
  int32_t leader_id = -1;
  int32_t leader_epoch = -1;
};
struct FetchSnapshotId {
  int64_t end_offset = -1;
  int32_t epoch = -1;
};

struct FetchResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kFetch, false);
  using EpochEndOffset = FetchEpochEndOffset;
  using LeaderIdAndEpoch = FetchLeaderIdAndEpoch;
  using SnapshotId = FetchSnapshotId;
  struct AbortedTransaction {
    int64_t producer_id = 0;
    int64_t first_offset = 0;
  };
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    int64_t high_watermark = 0;
    int64_t last_stable_offset = -1;                    // v4+
    int64_t log_start_offset = -1;                      // v5+
    std::optional<EpochEndOffset> diverging_epoch;      // v12+ tag 0
    std::optional<LeaderIdAndEpoch> current_leader;     // v12+ tag 1
    std::optional<SnapshotId> snapshot_id;              // v12+ tag 2
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;  // v4+
    int32_t preferred_read_replica = -1;                // v11+
    // Empty, not null, unless set: Kafka brokers send an empty record set with an error, and
    // librdkafka 2.0.2 refuses a null one ("invalid MessageSetSize -1"), so its consumer would
    // never see the error (OFFSET_OUT_OF_RANGE) it should reset on.
    std::optional<std::string> records = std::string();
  };
  struct Topic {
    std::string topic;
    std::vector<Partition> partitions;
  };
  int32_t throttle_time_ms = 0;  // v1+
  int16_t error_code = 0;        // v7+
  int32_t session_id = 0;        // v7+
  std::vector<Topic> responses;
};

// Every requested partition with `code` (and the top-level error_code from v7).
FetchResponse ErrorResponse(const FetchRequest& request, int16_t version, ErrorCode code);

}  // namespace mink::kafka
