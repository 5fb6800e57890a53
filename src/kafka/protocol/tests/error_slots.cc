#include "kafka/protocol/tests/error_slots.h"

#include "kafka/protocol/tests/samples.h"

namespace mink::kafka::testing {
namespace {

Response ProduceErrorSlots() {
  auto r = std::get<ProduceResponse>(SampleResponse(ApiKey::kProduce));
  for (auto& topic : r.responses) {
    for (auto& old : topic.partition_responses) {
      ProduceResponse::Partition p;
      p.index = old.index;
      p.error_code = kErrorSlotCode;
      old = p;
    }
  }
  return r;
}

Response FetchErrorSlots() {
  auto r = std::get<FetchResponse>(SampleResponse(ApiKey::kFetch));
  for (auto& topic : r.responses) {
    for (auto& old : topic.partitions) {
      FetchResponse::Partition p;
      p.partition_index = old.partition_index;
      p.error_code = kErrorSlotCode;
      old = p;
    }
  }
  return r;
}

Response ListOffsetsErrorSlots() {
  auto r = std::get<ListOffsetsResponse>(SampleResponse(ApiKey::kListOffsets));
  for (auto& topic : r.topics) {
    for (auto& old : topic.partitions) {
      ListOffsetsResponse::Partition p;
      p.partition_index = old.partition_index;
      p.error_code = kErrorSlotCode;
      old = p;
    }
  }
  return r;
}

Response MetadataErrorSlots() {
  auto r = std::get<MetadataResponse>(SampleResponse(ApiKey::kMetadata));
  for (auto& old : r.brokers) {
    MetadataResponse::Broker b;
    b.node_id = old.node_id;
    old = b;
  }
  for (auto& old_topic : r.topics) {
    MetadataResponse::Topic t;
    t.name = old_topic.name;
    t.error_code = kErrorSlotCode;
    for (const auto& old : old_topic.partitions) {
      MetadataResponse::Partition p;
      p.partition_index = old.partition_index;
      p.error_code = kErrorSlotCode;
      t.partitions.push_back(p);
    }
    old_topic = t;
  }
  return r;
}

Response OffsetCommitErrorSlots() {
  auto r = std::get<OffsetCommitResponse>(SampleResponse(ApiKey::kOffsetCommit));
  for (auto& topic : r.topics) {
    for (auto& old : topic.partitions) {
      OffsetCommitResponse::Partition p;
      p.partition_index = old.partition_index;
      p.error_code = kErrorSlotCode;
      old = p;
    }
  }
  return r;
}

void OffsetFetchErrorTopics(std::vector<OffsetFetchResponse::Topic>* topics) {
  for (auto& topic : *topics) {
    for (auto& old : topic.partitions) {
      OffsetFetchResponse::Partition p;
      p.partition_index = old.partition_index;
      p.error_code = kErrorSlotCode;
      old = p;
    }
  }
}

Response OffsetFetchErrorSlots() {
  auto r = std::get<OffsetFetchResponse>(SampleResponse(ApiKey::kOffsetFetch));
  OffsetFetchErrorTopics(&r.topics);
  for (auto& old : r.groups) {
    OffsetFetchResponse::Group g;
    g.group_id = old.group_id;
    g.error_code = kErrorSlotCode;
    g.topics = old.topics;
    OffsetFetchErrorTopics(&g.topics);
    old = g;
  }
  return r;
}

Response FindCoordinatorErrorSlots() {
  auto r = std::get<FindCoordinatorResponse>(SampleResponse(ApiKey::kFindCoordinator));
  // v0-3 answer for one key at the top level: as a handler builds it, defaults and the code.
  r.error_code = kErrorSlotCode;
  r.error_message = std::nullopt;
  r.node_id = -1;
  r.host = "";
  r.port = -1;
  for (auto& old : r.coordinators) {
    FindCoordinatorResponse::Coordinator c;
    c.key = old.key;
    c.error_code = kErrorSlotCode;
    old = c;
  }
  return r;
}

Response JoinGroupErrorSlots() {
  const auto sample = std::get<JoinGroupResponse>(SampleResponse(ApiKey::kJoinGroup));
  JoinGroupResponse r;
  r.error_code = kErrorSlotCode;
  for (const auto& old : sample.members) {
    JoinGroupResponse::Member m;
    m.member_id = old.member_id;
    r.members.push_back(m);
  }
  return r;
}

Response HeartbeatErrorSlots() {
  HeartbeatResponse r;
  r.error_code = kErrorSlotCode;
  return r;
}

Response LeaveGroupErrorSlots() {
  auto r = std::get<LeaveGroupResponse>(SampleResponse(ApiKey::kLeaveGroup));
  r.error_code = kErrorSlotCode;  // v0-2 have no members: the code is at the top
  for (auto& old : r.members) {
    LeaveGroupResponse::Member m;
    m.member_id = old.member_id;
    m.error_code = kErrorSlotCode;
    old = m;
  }
  return r;
}

Response SyncGroupErrorSlots() {
  SyncGroupResponse r;
  r.error_code = kErrorSlotCode;
  return r;
}

Response DescribeGroupsErrorSlots() {
  auto r = std::get<DescribeGroupsResponse>(SampleResponse(ApiKey::kDescribeGroups));
  for (auto& old_group : r.groups) {
    DescribeGroupsResponse::Group g;
    g.group_id = old_group.group_id;
    g.error_code = kErrorSlotCode;
    for (const auto& old : old_group.members) {
      DescribeGroupsResponse::Member m;
      m.member_id = old.member_id;
      g.members.push_back(m);
    }
    old_group = g;
  }
  return r;
}

Response ListGroupsErrorSlots() {
  auto r = std::get<ListGroupsResponse>(SampleResponse(ApiKey::kListGroups));
  r.error_code = kErrorSlotCode;
  for (auto& old : r.groups) {
    ListGroupsResponse::Group g;
    g.group_id = old.group_id;
    old = g;
  }
  return r;
}

Response ApiVersionsErrorSlots() {
  auto r = std::get<ApiVersionsResponse>(SampleResponse(ApiKey::kApiVersions));
  r.error_code = kErrorSlotCode;
  for (auto& old : r.api_keys) {
    ApiVersionsResponse::ApiVersion a;
    a.api_key = old.api_key;
    old = a;
  }
  if (r.supported_features.has_value()) {
    std::vector<ApiVersionsResponse::SupportedFeature> features;
    for (const auto& old : r.supported_features.value()) {
      ApiVersionsResponse::SupportedFeature f;
      f.name = old.name;
      features.push_back(f);
    }
    r.supported_features = std::move(features);
  }
  if (r.finalized_features.has_value()) {
    std::vector<ApiVersionsResponse::FinalizedFeature> features;
    for (const auto& old : r.finalized_features.value()) {
      ApiVersionsResponse::FinalizedFeature f;
      f.name = old.name;
      features.push_back(f);
    }
    r.finalized_features = std::move(features);
  }
  return r;
}

Response CreateTopicsErrorSlots() {
  auto r = std::get<CreateTopicsResponse>(SampleResponse(ApiKey::kCreateTopics));
  for (auto& old : r.topics) {
    CreateTopicsResponse::Topic t;
    t.name = old.name;
    t.error_code = kErrorSlotCode;
    old = t;
  }
  return r;
}

Response DeleteTopicsErrorSlots() {
  auto r = std::get<DeleteTopicsResponse>(SampleResponse(ApiKey::kDeleteTopics));
  for (auto& old : r.responses) {
    DeleteTopicsResponse::TopicResult t;
    t.name = old.name;
    t.error_code = kErrorSlotCode;
    old = t;
  }
  return r;
}

Response DeleteRecordsErrorSlots() {
  auto r = std::get<DeleteRecordsResponse>(SampleResponse(ApiKey::kDeleteRecords));
  for (auto& topic : r.topics) {
    for (auto& old : topic.partitions) {
      DeleteRecordsResponse::Partition p;
      p.partition_index = old.partition_index;
      p.error_code = kErrorSlotCode;
      old = p;
    }
  }
  return r;
}

Response InitProducerIdErrorSlots() {
  InitProducerIdResponse r;
  r.error_code = kErrorSlotCode;
  return r;
}

// A refused filter: the code at the top, no resources.
Response DescribeAclsErrorSlots() {
  DescribeAclsResponse r;
  r.error_code = kErrorSlotCode;
  return r;
}

Response CreateAclsErrorSlots() {
  auto r = std::get<CreateAclsResponse>(SampleResponse(ApiKey::kCreateAcls));
  for (auto& old : r.results) {
    CreateAclsResponse::Result result;
    result.error_code = kErrorSlotCode;
    old = result;
  }
  return r;
}

// Each filter refused, and each matched ACL that could not be deleted, keeping what names it.
Response DeleteAclsErrorSlots() {
  auto r = std::get<DeleteAclsResponse>(SampleResponse(ApiKey::kDeleteAcls));
  for (auto& old_result : r.filter_results) {
    DeleteAclsResponse::FilterResult result;
    result.error_code = kErrorSlotCode;
    for (const auto& old : old_result.matching_acls) {
      DeleteAclsResponse::MatchingAcl acl;
      acl.error_code = kErrorSlotCode;
      acl.resource_type = old.resource_type;
      acl.resource_name = old.resource_name;
      acl.principal = old.principal;
      result.matching_acls.push_back(acl);
    }
    old_result = result;
  }
  return r;
}

Response DescribeConfigsErrorSlots() {
  auto r = std::get<DescribeConfigsResponse>(SampleResponse(ApiKey::kDescribeConfigs));
  for (auto& old_result : r.results) {
    DescribeConfigsResponse::ResourceResult result;
    result.resource_type = old_result.resource_type;
    result.resource_name = old_result.resource_name;
    result.error_code = kErrorSlotCode;
    for (const auto& old_config : old_result.configs) {
      DescribeConfigsResponse::Config c;
      c.name = old_config.name;
      for (const auto& old : old_config.synonyms) {
        DescribeConfigsResponse::Synonym s;
        s.name = old.name;
        c.synonyms.push_back(s);
      }
      result.configs.push_back(c);
    }
    old_result = result;
  }
  return r;
}

Response AlterConfigsErrorSlots() {
  auto r = std::get<AlterConfigsResponse>(SampleResponse(ApiKey::kAlterConfigs));
  for (auto& old : r.responses) {
    AlterConfigsResponse::ResourceResult result;
    result.resource_type = old.resource_type;
    result.resource_name = old.resource_name;
    result.error_code = kErrorSlotCode;
    old = result;
  }
  return r;
}

Response CreatePartitionsErrorSlots() {
  auto r = std::get<CreatePartitionsResponse>(SampleResponse(ApiKey::kCreatePartitions));
  for (auto& old : r.results) {
    CreatePartitionsResponse::TopicResult t;
    t.name = old.name;
    t.error_code = kErrorSlotCode;
    old = t;
  }
  return r;
}

Response DeleteGroupsErrorSlots() {
  auto r = std::get<DeleteGroupsResponse>(SampleResponse(ApiKey::kDeleteGroups));
  for (auto& old : r.results) {
    DeleteGroupsResponse::Result g;
    g.group_id = old.group_id;
    g.error_code = kErrorSlotCode;
    old = g;
  }
  return r;
}

// A failed authentication as SaslSession answers it: the code, a message, no token.
Response SaslHandshakeErrorSlots() {
  SaslHandshakeResponse r;
  r.error_code = kErrorSlotCode;
  r.mechanisms = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
  return r;
}

Response SaslAuthenticateErrorSlots() {
  SaslAuthenticateResponse r;
  r.error_code = kErrorSlotCode;
  r.error_message = "Authentication failed during authentication due to invalid credentials with SASL mechanism PLAIN";
  return r;
}

}  // namespace

std::function<Response()> ErrorSlotsBuilder(ApiKey key) {
  switch (key) {
    case ApiKey::kProduce:
      return ProduceErrorSlots;
    case ApiKey::kFetch:
      return FetchErrorSlots;
    case ApiKey::kListOffsets:
      return ListOffsetsErrorSlots;
    case ApiKey::kMetadata:
      return MetadataErrorSlots;
    case ApiKey::kOffsetCommit:
      return OffsetCommitErrorSlots;
    case ApiKey::kOffsetFetch:
      return OffsetFetchErrorSlots;
    case ApiKey::kFindCoordinator:
      return FindCoordinatorErrorSlots;
    case ApiKey::kJoinGroup:
      return JoinGroupErrorSlots;
    case ApiKey::kHeartbeat:
      return HeartbeatErrorSlots;
    case ApiKey::kLeaveGroup:
      return LeaveGroupErrorSlots;
    case ApiKey::kSyncGroup:
      return SyncGroupErrorSlots;
    case ApiKey::kDescribeGroups:
      return DescribeGroupsErrorSlots;
    case ApiKey::kListGroups:
      return ListGroupsErrorSlots;
    case ApiKey::kApiVersions:
      return ApiVersionsErrorSlots;
    case ApiKey::kCreateTopics:
      return CreateTopicsErrorSlots;
    case ApiKey::kDeleteTopics:
      return DeleteTopicsErrorSlots;
    case ApiKey::kDeleteRecords:
      return DeleteRecordsErrorSlots;
    case ApiKey::kInitProducerId:
      return InitProducerIdErrorSlots;
    case ApiKey::kDescribeAcls:
      return DescribeAclsErrorSlots;
    case ApiKey::kCreateAcls:
      return CreateAclsErrorSlots;
    case ApiKey::kDeleteAcls:
      return DeleteAclsErrorSlots;
    case ApiKey::kDescribeConfigs:
      return DescribeConfigsErrorSlots;
    case ApiKey::kAlterConfigs:
      return AlterConfigsErrorSlots;
    case ApiKey::kCreatePartitions:
      return CreatePartitionsErrorSlots;
    case ApiKey::kDeleteGroups:
      return DeleteGroupsErrorSlots;
    case ApiKey::kSaslHandshake:
      return SaslHandshakeErrorSlots;
    case ApiKey::kSaslAuthenticate:
      return SaslAuthenticateErrorSlots;
    default:
      return nullptr;  // the transaction APIs are not advertised
  }
}

}  // namespace mink::kafka::testing
