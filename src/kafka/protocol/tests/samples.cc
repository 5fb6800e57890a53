#include "kafka/protocol/tests/samples.h"

#include <cstdlib>

#include "kafka/protocol/record_batch.h"

namespace mink::kafka::testing {
namespace {

// The ACL wire values, short.
constexpr int8_t kTopic = ToWire(AclResourceType::kTopic);
constexpr int8_t kGroup = ToWire(AclResourceType::kGroup);
constexpr int8_t kCluster = ToWire(AclResourceType::kCluster);
constexpr int8_t kAnyResource = ToWire(AclResourceType::kAny);
constexpr int8_t kLiteral = ToWire(AclPatternType::kLiteral);
constexpr int8_t kPrefixed = ToWire(AclPatternType::kPrefixed);
constexpr int8_t kMatch = ToWire(AclPatternType::kMatch);
constexpr int8_t kAnyPattern = ToWire(AclPatternType::kAny);
constexpr int8_t kWrite = ToWire(AclOperation::kWrite);
constexpr int8_t kDescribe = ToWire(AclOperation::kDescribe);
constexpr int8_t kAlter = ToWire(AclOperation::kAlter);
constexpr int8_t kAnyOperation = ToWire(AclOperation::kAny);
constexpr int8_t kAllow = ToWire(AclPermissionType::kAllow);
constexpr int8_t kDeny = ToWire(AclPermissionType::kDeny);
constexpr int8_t kAnyPermission = ToWire(AclPermissionType::kAny);

Uuid SampleUuid() {
  Uuid u;
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<uint8_t>(0xA0 + i);
  return u;
}

}  // namespace

std::string SampleRecords() {
  std::string out;
  std::vector<NewRecord> records(2);
  records[0].timestamp = 1700000000000;
  records[0].key = "k0";
  records[0].value = "value-0";
  records[0].headers.push_back({"h", std::string_view("hv")});
  records[1].timestamp = 1700000000005;
  records[1].value = "value-1";
  BatchOptions options;
  options.producer_id = 7;
  options.producer_epoch = 1;
  options.base_sequence = 0;
  if (!AppendRecordBatch(options, records, &out).ok()) std::abort();
  options.base_offset = 2;
  options.base_sequence = 2;
  if (!AppendRecordBatch(options, std::span(records).subspan(1), &out).ok()) std::abort();
  return out;
}

Request SampleRequest(ApiKey key) {
  switch (key) {
    case ApiKey::kProduce: {
      ProduceRequest m;
      m.transactional_id = "txn";
      m.acks = 1;
      m.timeout_ms = 1500;
      m.topic_data = {{"orders", {{0, SampleRecords()}, {1, std::nullopt}}}, {"audit", {}}};
      return m;
    }
    case ApiKey::kFetch: {
      FetchRequest m;
      m.cluster_id = "cluster-a";
      m.replica_id = -1;
      m.max_wait_ms = 500;
      m.min_bytes = 1;
      m.max_bytes = 52428800;
      m.isolation_level = 1;
      m.session_id = 12;
      m.session_epoch = 3;
      m.topics = {{"orders", {{0, 4, 100, 3, 5, 1048576}, {1, -1, 0, -1, -1, 65536}}},
                  {"audit", {}}};
      m.forgotten_topics_data = {{"old", {1, 2}}};
      m.rack_id = "rack-1";
      return m;
    }
    case ApiKey::kListOffsets: {
      ListOffsetsRequest m;
      m.replica_id = -1;
      m.isolation_level = 1;
      m.topics = {{"orders", {{0, 2, kListOffsetsLatest, 1}, {1, -1, 1700000000000, 1}}}};
      return m;
    }
    case ApiKey::kMetadata: {
      MetadataRequest m;
      m.topics = std::vector<MetadataRequest::Topic>{{"orders"}, {"audit"}};
      m.allow_auto_topic_creation = false;
      m.include_cluster_authorized_operations = true;
      m.include_topic_authorized_operations = true;
      return m;
    }
    case ApiKey::kOffsetCommit: {
      OffsetCommitRequest m;
      m.group_id = "g1";
      m.generation_id_or_member_epoch = 4;
      m.member_id = "member-1";
      m.group_instance_id = "instance-1";
      m.retention_time_ms = 86400000;
      m.topics = {{"orders", {{0, 42, 3, 1700000000000, "meta"}, {1, 7, -1, -1, std::nullopt}}}};
      return m;
    }
    case ApiKey::kOffsetFetch: {
      OffsetFetchRequest m;
      m.group_id = "g1";
      m.topics = std::vector<OffsetFetchRequest::Topic>{{"orders", {0, 1}}, {"audit", {}}};
      m.groups = {{"g1", std::vector<OffsetFetchRequest::Topic>{{"orders", {0}}}},
                  {"g2", std::nullopt}};
      m.require_stable = true;
      return m;
    }
    case ApiKey::kFindCoordinator: {
      FindCoordinatorRequest m;
      m.key = "g1";
      m.key_type = 0;
      m.coordinator_keys = {"g1", "g2"};
      return m;
    }
    case ApiKey::kJoinGroup: {
      JoinGroupRequest m;
      m.group_id = "g1";
      m.session_timeout_ms = 30000;
      m.rebalance_timeout_ms = 60000;
      m.member_id = "member-1";
      m.group_instance_id = "instance-1";
      m.protocol_type = "consumer";
      m.protocols = {{"range", std::string("\x00\x01\x02", 3)}, {"roundrobin", "x"}};
      return m;
    }
    case ApiKey::kHeartbeat: {
      HeartbeatRequest m;
      m.group_id = "g1";
      m.generation_id = 4;
      m.member_id = "member-1";
      m.group_instance_id = "instance-1";
      return m;
    }
    case ApiKey::kLeaveGroup: {
      LeaveGroupRequest m;
      m.group_id = "g1";
      m.member_id = "member-1";
      m.members = {{"member-1", "instance-1"}, {"member-2", std::nullopt}};
      return m;
    }
    case ApiKey::kSyncGroup: {
      SyncGroupRequest m;
      m.group_id = "g1";
      m.generation_id = 4;
      m.member_id = "member-1";
      m.group_instance_id = "instance-1";
      m.assignments = {{"member-1", "assign-1"}, {"member-2", ""}};
      return m;
    }
    case ApiKey::kDescribeGroups: {
      DescribeGroupsRequest m;
      m.groups = {"g1", "g2"};
      m.include_authorized_operations = true;
      return m;
    }
    case ApiKey::kListGroups: {
      ListGroupsRequest m;
      m.states_filter = {"Stable", "Empty"};
      return m;
    }
    case ApiKey::kApiVersions: {
      ApiVersionsRequest m;
      m.client_software_name = "mink-test";
      m.client_software_version = "1.0";
      return m;
    }
    case ApiKey::kCreateTopics: {
      CreateTopicsRequest m;
      m.topics = {{"orders", 3, 1, {{0, {1, 2}}, {1, {2}}}, {{"retention.ms", "1000"}, {"x", std::nullopt}}},
                  {"audit", -1, -1, {}, {}}};
      m.timeout_ms = 30000;
      m.validate_only = true;
      return m;
    }
    case ApiKey::kDeleteTopics: {
      DeleteTopicsRequest m;
      m.topics = {{"orders", SampleUuid()}, {std::nullopt, SampleUuid()}};
      m.topic_names = {"orders", "audit"};
      m.timeout_ms = 30000;
      return m;
    }
    case ApiKey::kInitProducerId: {
      InitProducerIdRequest m;
      m.transactional_id = "txn";
      m.transaction_timeout_ms = 60000;
      m.producer_id = 99;
      m.producer_epoch = 2;
      return m;
    }
    case ApiKey::kAddPartitionsToTxn: {
      AddPartitionsToTxnRequest m;
      m.transactional_id = "txn";
      m.producer_id = 99;
      m.producer_epoch = 2;
      m.topics = {{"orders", {0, 1}}};
      return m;
    }
    case ApiKey::kAddOffsetsToTxn: {
      AddOffsetsToTxnRequest m;
      m.transactional_id = "txn";
      m.producer_id = 99;
      m.producer_epoch = 2;
      m.group_id = "g1";
      return m;
    }
    case ApiKey::kEndTxn: {
      EndTxnRequest m;
      m.transactional_id = "txn";
      m.producer_id = 99;
      m.producer_epoch = 2;
      m.committed = true;
      return m;
    }
    case ApiKey::kTxnOffsetCommit: {
      TxnOffsetCommitRequest m;
      m.transactional_id = "txn";
      m.group_id = "g1";
      m.producer_id = 99;
      m.producer_epoch = 2;
      m.generation_id = 4;
      m.member_id = "member-1";
      m.group_instance_id = "instance-1";
      m.topics = {{"orders", {{0, 42, 3, "meta"}, {1, 7, -1, std::nullopt}}}};
      return m;
    }
    case ApiKey::kDescribeAcls: {
      DescribeAclsRequest m;
      m.resource_type_filter = kTopic;
      m.resource_name_filter = "orders";
      m.pattern_type_filter = kPrefixed;
      m.principal_filter = "User:alice";
      m.host_filter = "10.0.0.1";
      m.operation = kDescribe;
      m.permission_type = kAllow;
      return m;
    }
    case ApiKey::kCreateAcls: {
      CreateAclsRequest m;
      m.creations = {{kTopic, "orders", kPrefixed, "User:alice", "*", kWrite, kAllow},
                     {kCluster, kAclClusterResourceName, kLiteral, "User:bob", "10.0.0.2", kAlter,
                      kDeny}};
      return m;
    }
    case ApiKey::kDeleteAcls: {
      DeleteAclsRequest m;
      m.filters = {{kTopic, "orders", kMatch, "User:alice", "10.0.0.1", kWrite, kAllow},
                   {kAnyResource, std::nullopt, kAnyPattern, std::nullopt, std::nullopt,
                    kAnyOperation, kAnyPermission}};
      return m;
    }
    case ApiKey::kDescribeConfigs: {
      DescribeConfigsRequest m;
      m.resources = {{kResourceTopic, "orders", std::vector<std::string>{"retention.ms"}},
                     {kResourceBroker, "1", std::nullopt}};
      m.include_synonyms = true;
      return m;
    }
    case ApiKey::kAlterConfigs: {
      AlterConfigsRequest m;
      m.resources = {{kResourceTopic, "orders", {{"retention.ms", "1000"}, {"x", std::nullopt}}}};
      m.validate_only = true;
      return m;
    }
    case ApiKey::kDeleteGroups: {
      DeleteGroupsRequest m;
      m.groups_names = {"g1", "g2"};
      return m;
    }
    case ApiKey::kDeleteRecords: {
      DeleteRecordsRequest m;
      m.topics = {{"orders", {{0, 42}, {3, kDeleteRecordsToHighWatermark}}}, {"audit", {}}};
      m.timeout_ms = 30000;
      return m;
    }
    case ApiKey::kCreatePartitions: {
      CreatePartitionsRequest m;
      m.topics = {{"orders", 6, std::vector<CreatePartitionsRequest::Assignment>{{{1}}, {{2}}}},
                  {"audit", 2, std::nullopt}};
      m.timeout_ms = 30000;
      m.validate_only = true;
      return m;
    }
    case ApiKey::kSaslHandshake: {
      SaslHandshakeRequest m;
      m.mechanism = "SCRAM-SHA-256";
      return m;
    }
    case ApiKey::kSaslAuthenticate: {
      SaslAuthenticateRequest m;
      m.auth_bytes = std::string("n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL\0x", 38);
      return m;
    }
  }
  return std::monostate{};
}

Response SampleResponse(ApiKey key) {
  switch (key) {
    case ApiKey::kProduce: {
      ProduceResponse m;
      m.responses = {{"orders", {{0, 0, 100, -1, 5}, {1, 6, -1, 1700000000000, 0}}}, {"audit", {}}};
      m.throttle_time_ms = 10;
      return m;
    }
    case ApiKey::kFetch: {
      FetchResponse m;
      m.throttle_time_ms = 10;
      m.error_code = 0;
      m.session_id = 12;
      FetchResponse::Partition p0;
      p0.partition_index = 0;
      p0.high_watermark = 4;
      p0.last_stable_offset = 4;
      p0.log_start_offset = 0;
      p0.diverging_epoch = FetchResponse::EpochEndOffset{3, 90};
      p0.current_leader = FetchResponse::LeaderIdAndEpoch{1, 3};
      p0.snapshot_id = FetchResponse::SnapshotId{80, 2};
      p0.aborted_transactions = std::vector<FetchResponse::AbortedTransaction>{{7, 1}, {8, 2}};
      p0.preferred_read_replica = -1;
      p0.records = SampleRecords();
      FetchResponse::Partition p1;
      p1.partition_index = 1;
      p1.error_code = 1;
      p1.high_watermark = -1;
      m.responses = {{"orders", {p0, p1}}, {"audit", {}}};
      return m;
    }
    case ApiKey::kListOffsets: {
      ListOffsetsResponse m;
      m.throttle_time_ms = 10;
      m.topics = {{"orders", {{0, 0, {5, 0}, 1700000000000, 5, 3}, {1, 3, {}, -1, -1, -1}}}};
      return m;
    }
    case ApiKey::kMetadata: {
      MetadataResponse m;
      m.throttle_time_ms = 10;
      m.brokers = {{1, "127.0.0.1", 9092, "rack-1"}, {2, "127.0.0.2", 9093, std::nullopt}};
      m.cluster_id = "cluster-a";
      m.controller_id = 1;
      MetadataResponse::Partition p{0, 0, 1, 3, {1, 2}, {1}, {2}};
      m.topics = {{0, "orders", false, {p, p}, 8}, {3, "missing", true, {}, -2147483648}};
      m.cluster_authorized_operations = 16;
      return m;
    }
    case ApiKey::kOffsetCommit: {
      OffsetCommitResponse m;
      m.throttle_time_ms = 10;
      m.topics = {{"orders", {{0, 0}, {1, 25}}}};
      return m;
    }
    case ApiKey::kOffsetFetch: {
      OffsetFetchResponse m;
      m.throttle_time_ms = 10;
      m.topics = {{"orders", {{0, 42, 3, "meta", 0}, {1, -1, -1, std::nullopt, 3}}}};
      m.error_code = 0;
      m.groups = {{"g1", {{"orders", {{0, 42, 3, "meta", 0}}}}, 0}, {"g2", {}, 69}};
      return m;
    }
    case ApiKey::kFindCoordinator: {
      FindCoordinatorResponse m;
      m.throttle_time_ms = 10;
      m.error_code = 0;
      m.error_message = "fine";
      m.node_id = 1;
      m.host = "127.0.0.1";
      m.port = 9092;
      m.coordinators = {{"g1", 1, "127.0.0.1", 9092, 0, std::nullopt},
                        {"g2", -1, "", -1, 15, "not available"}};
      return m;
    }
    case ApiKey::kJoinGroup: {
      JoinGroupResponse m;
      m.throttle_time_ms = 10;
      m.generation_id = 4;
      m.protocol_name = "range";
      m.leader = "member-1";
      m.member_id = "member-1";
      m.members = {{"member-1", "instance-1", "meta-1"}, {"member-2", std::nullopt, ""}};
      return m;
    }
    case ApiKey::kHeartbeat: {
      HeartbeatResponse m;
      m.throttle_time_ms = 10;
      m.error_code = 27;
      return m;
    }
    case ApiKey::kLeaveGroup: {
      LeaveGroupResponse m;
      m.throttle_time_ms = 10;
      m.error_code = 0;
      m.members = {{"member-1", "instance-1", 0}, {"member-2", std::nullopt, 25}};
      return m;
    }
    case ApiKey::kSyncGroup: {
      SyncGroupResponse m;
      m.throttle_time_ms = 10;
      m.assignment = std::string("\x00\x01topic", 7);
      return m;
    }
    case ApiKey::kDescribeGroups: {
      DescribeGroupsResponse m;
      m.throttle_time_ms = 10;
      DescribeGroupsResponse::Member member{"member-1", "instance-1", "client", "/127.0.0.1",
                                            "meta", "assign"};
      m.groups = {{0, "g1", "Stable", "consumer", "range", {member, member}, 8},
                  {69, "g2", "Dead", "", "", {}, -2147483648}};
      return m;
    }
    case ApiKey::kListGroups: {
      ListGroupsResponse m;
      m.throttle_time_ms = 10;
      m.groups = {{"g1", "consumer", "Stable"}, {"g2", "", "Empty"}};
      return m;
    }
    case ApiKey::kApiVersions: {
      ApiVersionsResponse m = MakeApiVersionsResponse();
      m.throttle_time_ms = 10;
      m.supported_features =
          std::vector<ApiVersionsResponse::SupportedFeature>{{"metadata.version", 1, 7}};
      m.finalized_features_epoch = 5;
      m.finalized_features =
          std::vector<ApiVersionsResponse::FinalizedFeature>{{"metadata.version", 7, 1}};
      m.zk_migration_ready = true;
      return m;
    }
    case ApiKey::kCreateTopics: {
      CreateTopicsResponse m;
      m.throttle_time_ms = 10;
      CreateTopicsResponse::Topic t;
      t.name = "orders";
      t.topic_id = SampleUuid();
      t.error_message = "ok";
      t.topic_config_error_code = 40;
      t.num_partitions = 3;
      t.replication_factor = 1;
      t.configs = std::vector<CreateTopicsResponse::Config>{{"retention.ms", "1000", false, 5, false},
                                                            {"secret", std::nullopt, true, 1, true}};
      CreateTopicsResponse::Topic t2;
      t2.name = "audit";
      t2.error_code = 36;
      m.topics = {t, t2};
      return m;
    }
    case ApiKey::kDeleteTopics: {
      DeleteTopicsResponse m;
      m.throttle_time_ms = 10;
      m.responses = {{"orders", SampleUuid(), 0, std::nullopt}, {"audit", Uuid{}, 3, "unknown"}};
      return m;
    }
    case ApiKey::kInitProducerId: {
      InitProducerIdResponse m;
      m.throttle_time_ms = 10;
      m.producer_id = 99;
      m.producer_epoch = 3;
      return m;
    }
    case ApiKey::kAddPartitionsToTxn: {
      AddPartitionsToTxnResponse m;
      m.throttle_time_ms = 10;
      m.results_by_topic = {{"orders", {{0, 42}, {1, 42}}}};
      return m;
    }
    case ApiKey::kAddOffsetsToTxn: {
      AddOffsetsToTxnResponse m;
      m.throttle_time_ms = 10;
      m.error_code = 42;
      return m;
    }
    case ApiKey::kEndTxn: {
      EndTxnResponse m;
      m.throttle_time_ms = 10;
      m.error_code = 42;
      return m;
    }
    case ApiKey::kTxnOffsetCommit: {
      TxnOffsetCommitResponse m;
      m.throttle_time_ms = 10;
      m.topics = {{"orders", {{0, 42}, {1, 42}}}};
      return m;
    }
    case ApiKey::kDescribeAcls: {
      DescribeAclsResponse m;
      m.throttle_time_ms = 10;
      m.error_code = 42;
      m.error_message = "partial";
      m.resources = {{kTopic, "orders", kPrefixed,
                      {{"User:alice", "*", kDescribe, kAllow}, {"User:bob", "10.0.0.2", kWrite, kDeny}}},
                     {kGroup, "g1", kLiteral, {}}};
      return m;
    }
    case ApiKey::kCreateAcls: {
      CreateAclsResponse m;
      m.throttle_time_ms = 10;
      m.results = {{0, std::nullopt}, {42, "invalid principal"}};
      return m;
    }
    case ApiKey::kDeleteAcls: {
      DeleteAclsResponse m;
      m.throttle_time_ms = 10;
      DeleteAclsResponse::FilterResult found;
      found.matching_acls = {
          {0, std::nullopt, kTopic, "orders", kPrefixed, "User:alice", "*", kWrite, kAllow},
          {-1, "not deleted", kGroup, "g1", kLiteral, "User:bob", "10.0.0.2", kDescribe, kDeny}};
      m.filter_results = {found, {31, "denied", {}}};
      return m;
    }
    case ApiKey::kDescribeConfigs: {
      DescribeConfigsResponse m;
      m.throttle_time_ms = 10;
      DescribeConfigsResponse::Config c{"retention.ms", "1000", false, true, 5, false,
                                        {{"retention.ms", "1000", 5}, {"x", std::nullopt, 4}}};
      m.results = {{0, std::nullopt, kResourceTopic, "orders", {c, c}},
                   {3, "unknown", kResourceTopic, "missing", {}}};
      return m;
    }
    case ApiKey::kAlterConfigs: {
      AlterConfigsResponse m;
      m.throttle_time_ms = 10;
      m.responses = {{0, std::nullopt, kResourceTopic, "orders"}, {40, "bad", kResourceTopic, "x"}};
      return m;
    }
    case ApiKey::kDeleteGroups: {
      DeleteGroupsResponse m;
      m.throttle_time_ms = 10;
      m.results = {{"g1", 0}, {"g2", 68}};
      return m;
    }
    case ApiKey::kDeleteRecords: {
      DeleteRecordsResponse m;
      m.throttle_time_ms = 10;
      m.topics = {{"orders", {{0, 42, 0}, {3, -1, 1}}}, {"audit", {}}};
      return m;
    }
    case ApiKey::kCreatePartitions: {
      CreatePartitionsResponse m;
      m.throttle_time_ms = 10;
      m.results = {{"orders", 0, std::nullopt}, {"audit", 37, "invalid"}};
      return m;
    }
    case ApiKey::kSaslHandshake: {
      SaslHandshakeResponse m;
      m.error_code = 33;
      m.mechanisms = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};
      return m;
    }
    case ApiKey::kSaslAuthenticate: {
      SaslAuthenticateResponse m;
      m.error_code = 58;
      m.error_message = "Authentication failed";
      m.auth_bytes = "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=";
      m.session_lifetime_ms = 3600000;
      return m;
    }
  }
  return std::monostate{};
}

}  // namespace mink::kafka::testing
