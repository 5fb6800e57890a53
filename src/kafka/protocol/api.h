#pragma once
// The Kafka APIs this library knows: key, name, the version range Mink advertises in ApiVersions,
// and the first flexible version (from which request headers are v2, response headers v1 and
// bodies use compact encodings with tagged fields).

#include <cstdint>
#include <span>

namespace mink::kafka {

enum class ApiKey : int16_t {
  kProduce = 0,
  kFetch = 1,
  kListOffsets = 2,
  kMetadata = 3,
  kOffsetCommit = 8,
  kOffsetFetch = 9,
  kFindCoordinator = 10,
  kJoinGroup = 11,
  kHeartbeat = 12,
  kLeaveGroup = 13,
  kSyncGroup = 14,
  kDescribeGroups = 15,
  kListGroups = 16,
  kSaslHandshake = 17,
  kApiVersions = 18,
  kCreateTopics = 19,
  kDeleteTopics = 20,
  kDeleteRecords = 21,
  kInitProducerId = 22,
  kAddPartitionsToTxn = 24,
  kAddOffsetsToTxn = 25,
  kEndTxn = 26,
  kTxnOffsetCommit = 28,
  kDescribeAcls = 29,
  kCreateAcls = 30,
  kDeleteAcls = 31,
  kDescribeConfigs = 32,
  kAlterConfigs = 33,
  kSaslAuthenticate = 36,
  kCreatePartitions = 37,
  kDeleteGroups = 42,
};

struct ApiInfo {
  ApiKey key;
  const char* name;
  int16_t min_version;
  int16_t max_version;
  int16_t first_flexible_version;
  // Listed in ApiVersions responses. The transaction APIs are not: they are decoded (versions
  // 0-3) only so that the server can refuse them with a clear error.
  bool advertised;
};

// Every known API, in key order.
std::span<const ApiInfo> AllApis();
// nullptr for a key this library does not know.
const ApiInfo* FindApi(int16_t key);
const ApiInfo& GetApi(ApiKey key);
const char* ApiName(int16_t key);  // "Unknown" for a key not in the table

bool IsSupportedVersion(ApiKey key, int16_t version);
// Whether `version` of the API uses flexible encoding (also for versions above our maximum, so
// that the request header of an unsupported version can still be parsed).
bool IsFlexibleVersion(ApiKey key, int16_t version);
// Request header version 1 or 2; response header version 0 or 1 (ApiVersions always 0).
int16_t RequestHeaderVersion(ApiKey key, int16_t version);
int16_t ResponseHeaderVersion(ApiKey key, int16_t version);

}  // namespace mink::kafka
