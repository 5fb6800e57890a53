#pragma once
// The transaction APIs, versions 0-3 each (flexible from 3): AddPartitionsToTxn (24),
// AddOffsetsToTxn (25), EndTxn (26), TxnOffsetCommit (28). Mink does not support transactions
// and does not advertise these keys; they are decoded so that the server can answer a client
// that sends them anyway with a well-formed error response (ErrorResponse below).
// Kept in one file: four small messages with one purpose.

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

struct AddPartitionsToTxnRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kAddPartitionsToTxn, true);
  struct Topic {
    std::string name;
    std::vector<int32_t> partitions;
  };
  std::string transactional_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  std::vector<Topic> topics;
};

struct AddPartitionsToTxnResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kAddPartitionsToTxn, false);
  struct PartitionResult {
    int32_t partition_index = 0;
    int16_t partition_error_code = 0;
  };
  struct TopicResult {
    std::string name;
    std::vector<PartitionResult> results_by_partition;
  };
  int32_t throttle_time_ms = 0;
  std::vector<TopicResult> results_by_topic;
};

struct AddOffsetsToTxnRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kAddOffsetsToTxn, true);
  std::string transactional_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  std::string group_id;
};

struct AddOffsetsToTxnResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kAddOffsetsToTxn, false);
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
};

struct EndTxnRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kEndTxn, true);
  std::string transactional_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  bool committed = false;
};

struct EndTxnResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kEndTxn, false);
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
};

struct TxnOffsetCommitRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kTxnOffsetCommit, true);
  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;  // v2+
    std::optional<std::string> committed_metadata;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  std::string transactional_id;
  std::string group_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t generation_id = -1;                    // v3+
  std::string member_id;                         // v3+
  std::optional<std::string> group_instance_id;  // v3+
  std::vector<Topic> topics;
};

struct TxnOffsetCommitResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kTxnOffsetCommit, false);
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
};

AddPartitionsToTxnResponse ErrorResponse(const AddPartitionsToTxnRequest& request,
                                         int16_t version, ErrorCode code);
AddOffsetsToTxnResponse ErrorResponse(const AddOffsetsToTxnRequest& request, int16_t version,
                                      ErrorCode code);
EndTxnResponse ErrorResponse(const EndTxnRequest& request, int16_t version, ErrorCode code);
TxnOffsetCommitResponse ErrorResponse(const TxnOffsetCommitRequest& request, int16_t version,
                                      ErrorCode code);

}  // namespace mink::kafka
