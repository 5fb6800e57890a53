#include "kafka/protocol/api.h"

#include <cstdlib>

namespace mink::kafka {
namespace {

// Ranges: why they are these is in docs/kafka.md ("Which versions clients send"); flexible
// versions from the Kafka message definitions.
constexpr ApiInfo kApis[] = {
    {ApiKey::kProduce, "Produce", 0, 7, 9, true},
    {ApiKey::kFetch, "Fetch", 0, 12, 12, true},
    {ApiKey::kListOffsets, "ListOffsets", 0, 5, 6, true},
    {ApiKey::kMetadata, "Metadata", 0, 9, 9, true},
    {ApiKey::kOffsetCommit, "OffsetCommit", 0, 8, 8, true},
    {ApiKey::kOffsetFetch, "OffsetFetch", 0, 8, 6, true},
    {ApiKey::kFindCoordinator, "FindCoordinator", 0, 4, 3, true},
    {ApiKey::kJoinGroup, "JoinGroup", 0, 6, 6, true},
    {ApiKey::kHeartbeat, "Heartbeat", 0, 4, 4, true},
    {ApiKey::kLeaveGroup, "LeaveGroup", 0, 4, 4, true},
    {ApiKey::kSyncGroup, "SyncGroup", 0, 4, 4, true},
    {ApiKey::kDescribeGroups, "DescribeGroups", 0, 5, 5, true},
    {ApiKey::kListGroups, "ListGroups", 0, 4, 3, true},
    // librdkafka asks for version 0 to be listed, then uses 1 with SaslAuthenticate. After a v0
    // handshake a client would send raw SASL tokens, which this listener does not take.
    {ApiKey::kSaslHandshake, "SaslHandshake", 0, 1, 32767, true},
    {ApiKey::kApiVersions, "ApiVersions", 0, 3, 3, true},
    {ApiKey::kCreateTopics, "CreateTopics", 0, 7, 5, true},
    {ApiKey::kDeleteTopics, "DeleteTopics", 0, 6, 4, true},
    {ApiKey::kDeleteRecords, "DeleteRecords", 0, 2, 2, true},
    {ApiKey::kInitProducerId, "InitProducerId", 0, 4, 2, true},
    {ApiKey::kAddPartitionsToTxn, "AddPartitionsToTxn", 0, 3, 3, false},
    {ApiKey::kAddOffsetsToTxn, "AddOffsetsToTxn", 0, 3, 3, false},
    {ApiKey::kEndTxn, "EndTxn", 0, 3, 3, false},
    {ApiKey::kTxnOffsetCommit, "TxnOffsetCommit", 0, 3, 3, false},
    {ApiKey::kDescribeAcls, "DescribeAcls", 0, 3, 2, true},
    {ApiKey::kCreateAcls, "CreateAcls", 0, 3, 2, true},
    {ApiKey::kDeleteAcls, "DeleteAcls", 0, 3, 2, true},
    {ApiKey::kDescribeConfigs, "DescribeConfigs", 0, 2, 4, true},
    {ApiKey::kAlterConfigs, "AlterConfigs", 0, 1, 2, true},
    {ApiKey::kSaslAuthenticate, "SaslAuthenticate", 0, 2, 2, true},
    {ApiKey::kCreatePartitions, "CreatePartitions", 0, 1, 2, true},
    {ApiKey::kDeleteGroups, "DeleteGroups", 0, 2, 2, true},
};

}  // namespace

std::span<const ApiInfo> AllApis() { return kApis; }

const ApiInfo* FindApi(int16_t key) {
  for (const ApiInfo& api : kApis) {
    if (static_cast<int16_t>(api.key) == key) return &api;
  }
  return nullptr;
}

const ApiInfo& GetApi(ApiKey key) {
  const ApiInfo* api = FindApi(static_cast<int16_t>(key));
  if (api == nullptr) std::abort();  // every ApiKey enumerator is in the table
  return *api;
}

const char* ApiName(int16_t key) {
  const ApiInfo* api = FindApi(key);
  return api ? api->name : "Unknown";
}

bool IsSupportedVersion(ApiKey key, int16_t version) {
  const ApiInfo& api = GetApi(key);
  return version >= api.min_version && version <= api.max_version;
}

bool IsFlexibleVersion(ApiKey key, int16_t version) {
  return version >= GetApi(key).first_flexible_version;
}

int16_t RequestHeaderVersion(ApiKey key, int16_t version) {
  return IsFlexibleVersion(key, version) ? 2 : 1;
}

int16_t ResponseHeaderVersion(ApiKey key, int16_t version) {
  if (key == ApiKey::kApiVersions) return 0;
  return IsFlexibleVersion(key, version) ? 1 : 0;
}

}  // namespace mink::kafka
