#pragma once
// Kafka error codes (the values clients act on) and the one mapping from mink::Status to them.

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace mink::kafka {

enum class ErrorCode : int16_t {
  kUnknownServerError = -1,
  kNone = 0,
  kOffsetOutOfRange = 1,
  kCorruptMessage = 2,
  kUnknownTopicOrPartition = 3,
  kInvalidFetchSize = 4,
  kLeaderNotAvailable = 5,
  kNotLeaderOrFollower = 6,
  kRequestTimedOut = 7,
  kMessageTooLarge = 10,
  kOffsetMetadataTooLarge = 12,
  kNetworkException = 13,
  kCoordinatorLoadInProgress = 14,
  kCoordinatorNotAvailable = 15,
  kNotCoordinator = 16,
  kInvalidTopicException = 17,
  kRecordListTooLarge = 18,
  kNotEnoughReplicas = 19,
  kInvalidRequiredAcks = 21,
  kIllegalGeneration = 22,
  kInconsistentGroupProtocol = 23,
  kInvalidGroupId = 24,
  kUnknownMemberId = 25,
  kInvalidSessionTimeout = 26,
  kRebalanceInProgress = 27,
  kInvalidCommitOffsetSize = 28,
  kTopicAuthorizationFailed = 29,
  kGroupAuthorizationFailed = 30,
  kClusterAuthorizationFailed = 31,
  kInvalidTimestamp = 32,
  kUnsupportedSaslMechanism = 33,
  kIllegalSaslState = 34,
  kUnsupportedVersion = 35,
  kTopicAlreadyExists = 36,
  kInvalidPartitions = 37,
  kInvalidReplicationFactor = 38,
  kInvalidConfig = 40,
  kNotController = 41,
  kInvalidRequest = 42,
  kUnsupportedForMessageFormat = 43,
  kOutOfOrderSequenceNumber = 45,
  kDuplicateSequenceNumber = 46,
  kInvalidProducerEpoch = 47,
  kInvalidTxnState = 48,
  kInvalidProducerIdMapping = 49,
  kConcurrentTransactions = 51,
  kSecurityDisabled = 54,
  kSaslAuthenticationFailed = 58,
  kUnknownProducerId = 59,
  kNonEmptyGroup = 68,
  kGroupIdNotFound = 69,
  kFetchSessionIdNotFound = 70,
  kInvalidFetchSessionEpoch = 71,
  kTopicDeletionDisabled = 73,
  kFencedLeaderEpoch = 74,
  kUnknownLeaderEpoch = 75,
  kUnsupportedCompressionType = 76,
  kOffsetNotAvailable = 78,
  kMemberIdRequired = 79,
  kGroupMaxSizeReached = 81,
  kFencedInstanceId = 82,
  kInvalidRecord = 87,
  kUnstableOffsetCommit = 88,
  kProducerFenced = 90,
  kResourceNotFound = 91,
  kUnknownTopicId = 100,
  kFencedMemberEpoch = 110,};

// "OFFSET_OUT_OF_RANGE"; "UNKNOWN" for a value not in the enum.
std::string_view ErrorCodeName(ErrorCode code);
inline int16_t ToWire(ErrorCode code) { return static_cast<int16_t>(code); }

// Where a Status is being reported: a few codes mean different things to clients of different
// APIs (an unavailable partition vs. an unavailable group coordinator).
enum class ErrorContext : uint8_t {
  kDefault,      // Metadata, ListOffsets, admin APIs
  kProduce,      // per-partition Produce results
  kFetch,        // per-partition Fetch results
  kGroup,        // group coordinator APIs: Join/Sync/Heartbeat/Leave/OffsetCommit/OffsetFetch
  kTopicAdmin,   // CreateTopics, DeleteTopics, CreatePartitions
};

// The one mapping from mink::Status to a Kafka error code (the Kafka edge's counterpart of the
// gRPC mapping in flight/). OK → NONE. Rules, by canonical code:
//   NotFound           → UNKNOWN_TOPIC_OR_PARTITION (3); kGroup: GROUP_ID_NOT_FOUND (69)
//   OutOfRange         → OFFSET_OUT_OF_RANGE (1)
//   Aborted (fenced)   → NOT_LEADER_OR_FOLLOWER (6); kGroup: NOT_COORDINATOR (16)
//   InvalidArgument    → INVALID_REQUEST (42); kProduce: CORRUPT_MESSAGE (2);
//                        kTopicAdmin: INVALID_TOPIC_EXCEPTION (17); kGroup: INVALID_GROUP_ID (24)
//   DataLoss           → CORRUPT_MESSAGE (2)
//   Unavailable        → LEADER_NOT_AVAILABLE (5); kProduce: REQUEST_TIMED_OUT (7);
//                        kGroup: COORDINATOR_NOT_AVAILABLE (15)
//   DeadlineExceeded   → REQUEST_TIMED_OUT (7)
//   Cancelled          → REQUEST_TIMED_OUT (7) (retriable: the node is stopping)
//   AlreadyExists      → TOPIC_ALREADY_EXISTS (36)
//   ResourceExhausted  → kProduce: MESSAGE_TOO_LARGE (10); otherwise REQUEST_TIMED_OUT (7)
//   PermissionDenied   → TOPIC_AUTHORIZATION_FAILED (29); kGroup: GROUP_AUTHORIZATION_FAILED (30)
//   FailedPrecondition → INVALID_REQUEST (42); kGroup: ILLEGAL_GENERATION (22)
//   Unimplemented      → INVALID_REQUEST (42)
//   Internal, Unknown  → UNKNOWN_SERVER_ERROR (-1)
ErrorCode ErrorCodeFromStatus(const Status& status, ErrorContext context = ErrorContext::kDefault);

// Whether clients retry on this code (Kafka's RetriableException family, for logging and tests).
bool IsRetriable(ErrorCode code);

}  // namespace mink::kafka
