#pragma once
// The ACL APIs, versions 0-3 (flexible from 2): DescribeAcls (key 29), CreateAcls (key 30) and
// DeleteAcls (key 31). One header because they share their vocabulary: a resource pattern
// (type, name, pattern type) and an entry (principal, host, operation, permission type).
//
// The wire fields stay int8_t: a client may send a value this library does not name, and the
// broker must be able to answer it (Kafka reads unknown codes as UNKNOWN). The enums below name
// the values; compare with ToWire(...).

#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/message.h"

namespace mink::kafka {

// resource_type values. ANY only in filters; USER from v3.
enum class AclResourceType : int8_t {
  kUnknown = 0,
  kAny = 1,
  kTopic = 2,
  kGroup = 3,
  kCluster = 4,
  kTransactionalId = 5,
  kDelegationToken = 6,
  kUser = 7,
};

// pattern_type values. ANY and MATCH only in filters: ANY matches the filter's name under any
// pattern type, MATCH every pattern that applies to the name (literal, wildcard, prefixes).
enum class AclPatternType : int8_t {
  kUnknown = 0,
  kAny = 1,
  kMatch = 2,
  kLiteral = 3,
  kPrefixed = 4,
};

// operation values. ANY only in filters; ALL in an entry grants every operation.
enum class AclOperation : int8_t {
  kUnknown = 0,
  kAny = 1,
  kAll = 2,
  kRead = 3,
  kWrite = 4,
  kCreate = 5,
  kDelete = 6,
  kAlter = 7,
  kDescribe = 8,
  kClusterAction = 9,
  kDescribeConfigs = 10,
  kAlterConfigs = 11,
  kIdempotentWrite = 12,
  kCreateTokens = 13,
  kDescribeTokens = 14,
};

// permission_type values. ANY only in filters.
enum class AclPermissionType : int8_t {
  kUnknown = 0,
  kAny = 1,
  kDeny = 2,
  kAllow = 3,
};

constexpr int8_t ToWire(AclResourceType v) { return static_cast<int8_t>(v); }
constexpr int8_t ToWire(AclPatternType v) { return static_cast<int8_t>(v); }
constexpr int8_t ToWire(AclOperation v) { return static_cast<int8_t>(v); }
constexpr int8_t ToWire(AclPermissionType v) { return static_cast<int8_t>(v); }

// The name of the only cluster resource.
inline constexpr const char kAclClusterResourceName[] = "kafka-cluster";

// ---- DescribeAcls (key 29): the ACLs that match one filter, grouped by resource.

struct DescribeAclsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kDescribeAcls, true);
  int8_t resource_type_filter = 0;
  std::optional<std::string> resource_name_filter;  // null = any name
  int8_t pattern_type_filter = ToWire(AclPatternType::kLiteral);  // v1+ (v0 means literal)
  std::optional<std::string> principal_filter;  // null = any principal
  std::optional<std::string> host_filter;       // null = any host
  int8_t operation = 0;
  int8_t permission_type = 0;
};

struct DescribeAclsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kDescribeAcls, false);
  struct Acl {
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;
  };
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t pattern_type = ToWire(AclPatternType::kLiteral);  // v1+
    std::vector<Acl> acls;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<Resource> resources;
};

// The code at the top, no resources.
DescribeAclsResponse ErrorResponse(const DescribeAclsRequest& request, int16_t version,
                                   ErrorCode code);

// ---- CreateAcls (key 30): one result per creation, in the request's order.

struct CreateAclsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kCreateAcls, true);
  struct Creation {
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t resource_pattern_type = ToWire(AclPatternType::kLiteral);  // v1+
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;
  };
  std::vector<Creation> creations;
};

struct CreateAclsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kCreateAcls, false);
  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
};

CreateAclsResponse ErrorResponse(const CreateAclsRequest& request, int16_t version,
                                 ErrorCode code);

// ---- DeleteAcls (key 31): one result per filter, in the request's order, listing the ACLs the
// filter matched (and deleted).

struct DeleteAclsRequest {
  MINK_KAFKA_MESSAGE(ApiKey::kDeleteAcls, true);
  struct Filter {
    int8_t resource_type_filter = 0;
    std::optional<std::string> resource_name_filter;  // null = any name
    int8_t pattern_type_filter = ToWire(AclPatternType::kLiteral);  // v1+ (v0 means literal)
    std::optional<std::string> principal_filter;  // null = any principal
    std::optional<std::string> host_filter;       // null = any host
    int8_t operation = 0;
    int8_t permission_type = 0;
  };
  std::vector<Filter> filters;
};

struct DeleteAclsResponse {
  MINK_KAFKA_MESSAGE(ApiKey::kDeleteAcls, false);
  struct MatchingAcl {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t pattern_type = ToWire(AclPatternType::kLiteral);  // v1+
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;
  };
  struct FilterResult {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::vector<MatchingAcl> matching_acls;
  };
  int32_t throttle_time_ms = 0;
  std::vector<FilterResult> filter_results;
};

// One result per filter with the code and no matching ACLs.
DeleteAclsResponse ErrorResponse(const DeleteAclsRequest& request, int16_t version,
                                 ErrorCode code);

}  // namespace mink::kafka
