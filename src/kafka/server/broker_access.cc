// Broker: access control (docs/kafka.md, Access control). With authentication on, each request
// is checked before it is served against what it needs: a topic is the table kafka.<topic>, a
// consumer group the resource group:<id>. A request that needs what its user is not granted is
// answered with the API's own error everywhere (TOPIC_AUTHORIZATION_FAILED,
// GROUP_AUTHORIZATION_FAILED or CLUSTER_AUTHORIZATION_FAILED) and changes nothing; Metadata and
// ListGroups instead leave out what the user may not see.

#include "kafka/server/broker.h"

#include "base/log.h"

namespace mink::kafka {
namespace {

using auth::Operation;
using auth::Resource;

struct Need {
  Resource resource;
  Operation op;
  ErrorCode refusal;
};

Need OnTopic(const std::string& topic, Operation op) {
  return {Resource::Table(TopicCatalog::TableName(topic)), op, ErrorCode::kTopicAuthorizationFailed};
}

Need OnGroup(const std::string& group, Operation op) {
  return {Resource::Group(group), op, ErrorCode::kGroupAuthorizationFailed};
}

Need OnCluster(Operation op) { return {Resource::Cluster(), op, ErrorCode::kClusterAuthorizationFailed}; }

// What serving `body` needs, in the order Kafka checks it (group before topics).
template <typename T>
void Needs(const T& body, std::vector<Need>* out) {
  if constexpr (std::is_same_v<T, ProduceRequest>) {
    for (const auto& t : body.topic_data) out->push_back(OnTopic(t.name, Operation::kWrite));
  } else if constexpr (std::is_same_v<T, FetchRequest>) {
    for (const auto& t : body.topics) out->push_back(OnTopic(t.topic, Operation::kRead));
  } else if constexpr (std::is_same_v<T, ListOffsetsRequest>) {
    for (const auto& t : body.topics) out->push_back(OnTopic(t.name, Operation::kDescribe));
  } else if constexpr (std::is_same_v<T, CreateTopicsRequest>) {
    for (const auto& t : body.topics) out->push_back(OnTopic(t.name, Operation::kAdmin));
  } else if constexpr (std::is_same_v<T, DeleteTopicsRequest>) {
    for (const auto& t : body.topic_names) out->push_back(OnTopic(t, Operation::kAdmin));
    for (const auto& t : body.topics) out->push_back(OnTopic(t.name.value_or(""), Operation::kAdmin));
  } else if constexpr (std::is_same_v<T, DeleteRecordsRequest>) {
    for (const auto& t : body.topics) out->push_back(OnTopic(t.name, Operation::kAdmin));
  } else if constexpr (std::is_same_v<T, DescribeConfigsRequest>) {
    for (const auto& r : body.resources) {
      out->push_back(r.resource_type == 2 ? OnTopic(r.resource_name, Operation::kDescribe)
                                          : OnCluster(Operation::kDescribe));
    }
  } else if constexpr (std::is_same_v<T, FindCoordinatorRequest>) {
    if (body.key_type == 0) {
      if (body.coordinator_keys.empty()) out->push_back(OnGroup(body.key, Operation::kDescribe));
      for (const auto& k : body.coordinator_keys) out->push_back(OnGroup(k, Operation::kDescribe));
    }
  } else if constexpr (std::is_same_v<T, JoinGroupRequest> || std::is_same_v<T, SyncGroupRequest> ||
                       std::is_same_v<T, HeartbeatRequest> || std::is_same_v<T, LeaveGroupRequest>) {
    out->push_back(OnGroup(body.group_id, Operation::kRead));
  } else if constexpr (std::is_same_v<T, OffsetCommitRequest>) {
    out->push_back(OnGroup(body.group_id, Operation::kRead));
    for (const auto& t : body.topics) out->push_back(OnTopic(t.name, Operation::kRead));
  } else if constexpr (std::is_same_v<T, OffsetFetchRequest>) {
    auto fetch = [&](const std::string& group, const auto& topics) {
      out->push_back(OnGroup(group, Operation::kDescribe));
      if (topics) {
        for (const auto& t : *topics) out->push_back(OnTopic(t.name, Operation::kDescribe));
      }
    };
    if (body.groups.empty()) fetch(body.group_id, body.topics);
    for (const auto& g : body.groups) fetch(g.group_id, g.topics);
  } else if constexpr (std::is_same_v<T, DescribeGroupsRequest>) {
    for (const auto& g : body.groups) out->push_back(OnGroup(g, Operation::kDescribe));
  } else if constexpr (std::is_same_v<T, DeleteGroupsRequest>) {
    for (const auto& g : body.groups_names) out->push_back(OnGroup(g, Operation::kAdmin));
  } else if constexpr (std::is_same_v<T, DescribeAclsRequest>) {
    out->push_back(OnCluster(Operation::kDescribe));
  } else if constexpr (std::is_same_v<T, CreateAclsRequest> || std::is_same_v<T, DeleteAclsRequest>) {
    out->push_back(OnCluster(Operation::kAdmin));
  }
  // Metadata and ListGroups filter their answers; ApiVersions, SASL and InitProducerId need only
  // authentication (an idempotent producer's writes are checked as writes).
}

}  // namespace

std::optional<ErrorCode> Broker::Refusal(const Request& body, const std::string& user) const {
  if (options_.access == nullptr) return std::nullopt;
  std::vector<Need> needs;
  std::visit([&](const auto& b) { Needs(b, &needs); }, body);
  for (const Need& n : needs) {
    if (!options_.access->Allowed(user, n.resource, n.op)) {
      MINK_LOG_INFO("kafka", "refused {} to user {}: {}", ApiName(ApiKeyOf(body)), user,
                    options_.access->Check(user, n.resource, n.op).message());
      return n.refusal;
    }
  }
  return std::nullopt;
}

bool Broker::MayDescribeTopic(const std::string& user, const std::string& topic) const {
  return options_.access == nullptr ||
         options_.access->Allowed(user, Resource::Table(TopicCatalog::TableName(topic)), Operation::kDescribe);
}

bool Broker::MayCreateTopic(const std::string& user, const std::string& topic) const {
  return options_.access == nullptr ||
         options_.access->Allowed(user, Resource::Table(TopicCatalog::TableName(topic)), Operation::kAdmin);
}

bool Broker::MayDescribeGroup(const std::string& user, const std::string& group) const {
  return options_.access == nullptr || options_.access->Allowed(user, Resource::Group(group), Operation::kDescribe);
}

}  // namespace mink::kafka
