#include "kafka/protocol/errors.h"

namespace mink::kafka {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUnknownServerError:
      return "UNKNOWN_SERVER_ERROR";
    case ErrorCode::kNone:
      return "NONE";
    case ErrorCode::kOffsetOutOfRange:
      return "OFFSET_OUT_OF_RANGE";
    case ErrorCode::kCorruptMessage:
      return "CORRUPT_MESSAGE";
    case ErrorCode::kUnknownTopicOrPartition:
      return "UNKNOWN_TOPIC_OR_PARTITION";
    case ErrorCode::kInvalidFetchSize:
      return "INVALID_FETCH_SIZE";
    case ErrorCode::kLeaderNotAvailable:
      return "LEADER_NOT_AVAILABLE";
    case ErrorCode::kNotLeaderOrFollower:
      return "NOT_LEADER_OR_FOLLOWER";
    case ErrorCode::kRequestTimedOut:
      return "REQUEST_TIMED_OUT";
    case ErrorCode::kMessageTooLarge:
      return "MESSAGE_TOO_LARGE";
    case ErrorCode::kOffsetMetadataTooLarge:
      return "OFFSET_METADATA_TOO_LARGE";
    case ErrorCode::kNetworkException:
      return "NETWORK_EXCEPTION";
    case ErrorCode::kCoordinatorLoadInProgress:
      return "COORDINATOR_LOAD_IN_PROGRESS";
    case ErrorCode::kCoordinatorNotAvailable:
      return "COORDINATOR_NOT_AVAILABLE";
    case ErrorCode::kNotCoordinator:
      return "NOT_COORDINATOR";
    case ErrorCode::kInvalidTopicException:
      return "INVALID_TOPIC_EXCEPTION";
    case ErrorCode::kRecordListTooLarge:
      return "RECORD_LIST_TOO_LARGE";
    case ErrorCode::kNotEnoughReplicas:
      return "NOT_ENOUGH_REPLICAS";
    case ErrorCode::kInvalidRequiredAcks:
      return "INVALID_REQUIRED_ACKS";
    case ErrorCode::kIllegalGeneration:
      return "ILLEGAL_GENERATION";
    case ErrorCode::kInconsistentGroupProtocol:
      return "INCONSISTENT_GROUP_PROTOCOL";
    case ErrorCode::kInvalidGroupId:
      return "INVALID_GROUP_ID";
    case ErrorCode::kUnknownMemberId:
      return "UNKNOWN_MEMBER_ID";
    case ErrorCode::kInvalidSessionTimeout:
      return "INVALID_SESSION_TIMEOUT";
    case ErrorCode::kRebalanceInProgress:
      return "REBALANCE_IN_PROGRESS";
    case ErrorCode::kInvalidCommitOffsetSize:
      return "INVALID_COMMIT_OFFSET_SIZE";
    case ErrorCode::kTopicAuthorizationFailed:
      return "TOPIC_AUTHORIZATION_FAILED";
    case ErrorCode::kGroupAuthorizationFailed:
      return "GROUP_AUTHORIZATION_FAILED";
    case ErrorCode::kClusterAuthorizationFailed:
      return "CLUSTER_AUTHORIZATION_FAILED";
    case ErrorCode::kInvalidTimestamp:
      return "INVALID_TIMESTAMP";
    case ErrorCode::kUnsupportedSaslMechanism:
      return "UNSUPPORTED_SASL_MECHANISM";
    case ErrorCode::kIllegalSaslState:
      return "ILLEGAL_SASL_STATE";
    case ErrorCode::kSaslAuthenticationFailed:
      return "SASL_AUTHENTICATION_FAILED";
    case ErrorCode::kUnsupportedVersion:
      return "UNSUPPORTED_VERSION";
    case ErrorCode::kTopicAlreadyExists:
      return "TOPIC_ALREADY_EXISTS";
    case ErrorCode::kInvalidPartitions:
      return "INVALID_PARTITIONS";
    case ErrorCode::kInvalidReplicationFactor:
      return "INVALID_REPLICATION_FACTOR";
    case ErrorCode::kInvalidConfig:
      return "INVALID_CONFIG";
    case ErrorCode::kNotController:
      return "NOT_CONTROLLER";
    case ErrorCode::kInvalidRequest:
      return "INVALID_REQUEST";
    case ErrorCode::kUnsupportedForMessageFormat:
      return "UNSUPPORTED_FOR_MESSAGE_FORMAT";
    case ErrorCode::kOutOfOrderSequenceNumber:
      return "OUT_OF_ORDER_SEQUENCE_NUMBER";
    case ErrorCode::kDuplicateSequenceNumber:
      return "DUPLICATE_SEQUENCE_NUMBER";
    case ErrorCode::kInvalidProducerEpoch:
      return "INVALID_PRODUCER_EPOCH";
    case ErrorCode::kInvalidTxnState:
      return "INVALID_TXN_STATE";
    case ErrorCode::kInvalidProducerIdMapping:
      return "INVALID_PRODUCER_ID_MAPPING";
    case ErrorCode::kConcurrentTransactions:
      return "CONCURRENT_TRANSACTIONS";
    case ErrorCode::kSecurityDisabled:
      return "SECURITY_DISABLED";
    case ErrorCode::kUnknownProducerId:
      return "UNKNOWN_PRODUCER_ID";
    case ErrorCode::kNonEmptyGroup:
      return "NON_EMPTY_GROUP";
    case ErrorCode::kGroupIdNotFound:
      return "GROUP_ID_NOT_FOUND";
    case ErrorCode::kFetchSessionIdNotFound:
      return "FETCH_SESSION_ID_NOT_FOUND";
    case ErrorCode::kInvalidFetchSessionEpoch:
      return "INVALID_FETCH_SESSION_EPOCH";
    case ErrorCode::kTopicDeletionDisabled:
      return "TOPIC_DELETION_DISABLED";
    case ErrorCode::kFencedLeaderEpoch:
      return "FENCED_LEADER_EPOCH";
    case ErrorCode::kUnknownLeaderEpoch:
      return "UNKNOWN_LEADER_EPOCH";
    case ErrorCode::kUnsupportedCompressionType:
      return "UNSUPPORTED_COMPRESSION_TYPE";
    case ErrorCode::kOffsetNotAvailable:
      return "OFFSET_NOT_AVAILABLE";
    case ErrorCode::kMemberIdRequired:
      return "MEMBER_ID_REQUIRED";
    case ErrorCode::kGroupMaxSizeReached:
      return "GROUP_MAX_SIZE_REACHED";
    case ErrorCode::kFencedInstanceId:
      return "FENCED_INSTANCE_ID";
    case ErrorCode::kInvalidRecord:
      return "INVALID_RECORD";
    case ErrorCode::kUnstableOffsetCommit:
      return "UNSTABLE_OFFSET_COMMIT";
    case ErrorCode::kProducerFenced:
      return "PRODUCER_FENCED";
    case ErrorCode::kResourceNotFound:
      return "RESOURCE_NOT_FOUND";
    case ErrorCode::kUnknownTopicId:
      return "UNKNOWN_TOPIC_ID";
    case ErrorCode::kFencedMemberEpoch:
      return "FENCED_MEMBER_EPOCH";  }
  return "UNKNOWN";
}

ErrorCode ErrorCodeFromStatus(const Status& status, ErrorContext context) {
  const bool group = context == ErrorContext::kGroup;
  switch (status.code()) {
    case StatusCode::kOk:
      return ErrorCode::kNone;
    case StatusCode::kNotFound:
      return group ? ErrorCode::kGroupIdNotFound : ErrorCode::kUnknownTopicOrPartition;
    case StatusCode::kOutOfRange:
      return ErrorCode::kOffsetOutOfRange;
    case StatusCode::kAborted:
      return group ? ErrorCode::kNotCoordinator : ErrorCode::kNotLeaderOrFollower;
    case StatusCode::kInvalidArgument:
      switch (context) {
        case ErrorContext::kProduce:
          return ErrorCode::kCorruptMessage;
        case ErrorContext::kTopicAdmin:
          return ErrorCode::kInvalidTopicException;
        case ErrorContext::kGroup:
          return ErrorCode::kInvalidGroupId;
        default:
          return ErrorCode::kInvalidRequest;
      }
    case StatusCode::kDataLoss:
      return ErrorCode::kCorruptMessage;
    case StatusCode::kUnavailable:
      if (group) return ErrorCode::kCoordinatorNotAvailable;
      if (context == ErrorContext::kProduce) return ErrorCode::kRequestTimedOut;
      return ErrorCode::kLeaderNotAvailable;
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kCancelled:
      return ErrorCode::kRequestTimedOut;
    case StatusCode::kAlreadyExists:
      return ErrorCode::kTopicAlreadyExists;
    case StatusCode::kResourceExhausted:
      return context == ErrorContext::kProduce ? ErrorCode::kMessageTooLarge
                                               : ErrorCode::kRequestTimedOut;
    case StatusCode::kPermissionDenied:
      return group ? ErrorCode::kGroupAuthorizationFailed : ErrorCode::kTopicAuthorizationFailed;
    case StatusCode::kFailedPrecondition:
      return group ? ErrorCode::kIllegalGeneration : ErrorCode::kInvalidRequest;
    case StatusCode::kUnimplemented:
      return ErrorCode::kInvalidRequest;
    case StatusCode::kInternal:
    case StatusCode::kUnknown:
      return ErrorCode::kUnknownServerError;
  }
  return ErrorCode::kUnknownServerError;
}

bool IsRetriable(ErrorCode code) {
  switch (code) {
    case ErrorCode::kCorruptMessage:
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kLeaderNotAvailable:
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kRequestTimedOut:
    case ErrorCode::kNetworkException:
    case ErrorCode::kCoordinatorLoadInProgress:
    case ErrorCode::kCoordinatorNotAvailable:
    case ErrorCode::kNotCoordinator:
    case ErrorCode::kNotEnoughReplicas:
    case ErrorCode::kNotController:
    case ErrorCode::kConcurrentTransactions:
    case ErrorCode::kFetchSessionIdNotFound:
    case ErrorCode::kInvalidFetchSessionEpoch:
    case ErrorCode::kFencedLeaderEpoch:
    case ErrorCode::kUnknownLeaderEpoch:
    case ErrorCode::kOffsetNotAvailable:
    case ErrorCode::kUnstableOffsetCommit:
    case ErrorCode::kUnknownTopicId:
      return true;
    default:
      return false;
  }
}

}  // namespace mink::kafka
