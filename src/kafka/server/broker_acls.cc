// Broker: DescribeAcls, CreateAcls and DeleteAcls (docs/kafka.md, Access control) over Mink's
// access control lists (auth::AccessControl). A Kafka binding maps to a grant:
//   TOPIC t -> table:kafka.<t> ("*": table:kafka.*), GROUP g -> group:<g>, CLUSTER -> cluster;
//   User:<name> -> <name> ("User:*": every user);
//   READ -> read, WRITE -> write, DESCRIBE and DESCRIBE_CONFIGS -> describe,
//   ALL, CREATE, DELETE, ALTER and ALTER_CONFIGS -> admin.
// Mink's grants only allow, match names literally (or every name, "*") and hold no host, so a
// binding with DENY, a PREFIXED pattern, a host other than "*", another resource type or
// another operation is refused with INVALID_REQUEST naming why. Grants Kafka cannot name (on
// databases, on tables outside kafka) are not listed here (`mink acl list` shows them).

#include "kafka/server/broker.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace mink::kafka {
namespace {

using metadata::AclEntry;

constexpr std::string_view kTopicPrefix = "table:kafka.";

struct Binding {
  int8_t resource_type = 0;
  std::string resource_name;
  std::string principal;
  int8_t operation = 0;
};

// The Mink operation of a Kafka operation; none for one Mink's grants do not hold.
std::optional<std::string> OperationOf(int8_t operation) {
  switch (static_cast<AclOperation>(operation)) {
    case AclOperation::kRead: return "read";
    case AclOperation::kWrite: return "write";
    case AclOperation::kDescribe:
    case AclOperation::kDescribeConfigs: return "describe";
    case AclOperation::kAll:
    case AclOperation::kCreate:
    case AclOperation::kDelete:
    case AclOperation::kAlter:
    case AclOperation::kAlterConfigs: return "admin";
    default: return std::nullopt;
  }
}

// The grant a binding stands for, or why Mink cannot hold it.
Result<AclEntry> EntryOf(int8_t resource_type, const std::string& resource_name, int8_t pattern_type,
                         const std::string& principal, const std::string& host, int8_t operation,
                         int8_t permission_type) {
  AclEntry e;
  if (permission_type != ToWire(AclPermissionType::kAllow)) {
    return InvalidArgumentError("Mink's ACLs only allow: use ALLOW (everything not allowed is denied)");
  }
  if (pattern_type != ToWire(AclPatternType::kLiteral)) {
    return InvalidArgumentError("Mink's ACLs match a name literally or every name with *: PREFIXED is not supported");
  }
  if (host != "*") return InvalidArgumentError("Mink's ACLs hold no host: use *");
  if (principal.rfind("User:", 0) != 0) return InvalidArgumentError("a principal is User:<name> or User:*");
  e.principal = principal.substr(5);
  if (resource_type == ToWire(AclResourceType::kTopic)) {
    e.resource = std::string(kTopicPrefix) + resource_name;
  } else if (resource_type == ToWire(AclResourceType::kGroup)) {
    e.resource = "group:" + resource_name;
  } else if (resource_type == ToWire(AclResourceType::kCluster)) {
    if (resource_name != kAclClusterResourceName) return InvalidArgumentError("the cluster resource is kafka-cluster");
    e.resource = "cluster";
  } else {
    return InvalidArgumentError("Mink's ACLs are on topics, groups and the cluster (it has no transactional ids, "
                                "delegation tokens or user resources)");
  }
  const auto op = OperationOf(operation);
  if (!op) {
    return InvalidArgumentError("Mink's ACLs grant READ, WRITE, DESCRIBE or ALL (CREATE, DELETE, ALTER are ALL; "
                                "idempotent producers need only WRITE on their topics)");
  }
  e.operation = *op;
  MINK_RETURN_IF_ERROR(metadata::CheckAclEntry(e));
  return e;
}

// A grant as Kafka names it; none for one Kafka cannot name.
std::optional<Binding> BindingOf(const AclEntry& e) {
  Binding b;
  if (e.resource.rfind(kTopicPrefix, 0) == 0) {
    b.resource_type = ToWire(AclResourceType::kTopic);
    b.resource_name = e.resource.substr(kTopicPrefix.size());
  } else if (e.resource.rfind("group:", 0) == 0) {
    b.resource_type = ToWire(AclResourceType::kGroup);
    b.resource_name = e.resource.substr(6);
  } else if (e.resource == "cluster") {
    b.resource_type = ToWire(AclResourceType::kCluster);
    b.resource_name = kAclClusterResourceName;
  } else {
    return std::nullopt;
  }
  b.principal = "User:" + e.principal;
  b.operation = ToWire(e.operation == "read"       ? AclOperation::kRead
                       : e.operation == "write"    ? AclOperation::kWrite
                       : e.operation == "describe" ? AclOperation::kDescribe
                                                   : AclOperation::kAll);
  return b;
}

template <typename Filter>
bool Matches(const Filter& f, const AclEntry& e, const Binding& b) {
  if (f.resource_type_filter != ToWire(AclResourceType::kAny) && f.resource_type_filter != b.resource_type) return false;
  const int8_t pattern = f.pattern_type_filter;
  if (pattern == ToWire(AclPatternType::kPrefixed) || pattern == ToWire(AclPatternType::kUnknown)) return false;
  if (f.resource_name_filter) {
    // MATCH: every binding that applies to the name, the wildcard among them.
    const bool wildcard = pattern == ToWire(AclPatternType::kMatch) && b.resource_name == "*";
    if (*f.resource_name_filter != b.resource_name && !wildcard) return false;
  }
  if (f.principal_filter && *f.principal_filter != b.principal) return false;
  if (f.host_filter && *f.host_filter != "*") return false;
  if (f.permission_type != ToWire(AclPermissionType::kAny) && f.permission_type != ToWire(AclPermissionType::kAllow)) {
    return false;
  }
  return f.operation == ToWire(AclOperation::kAny) || OperationOf(f.operation) == e.operation;
}

}  // namespace

DescribeAclsResponse Broker::DescribeAcls(const DescribeAclsRequest& request) {
  DescribeAclsResponse r;
  std::map<std::tuple<int8_t, std::string>, std::vector<DescribeAclsResponse::Acl>> resources;
  for (const AclEntry& e : options_.access->Entries()) {
    auto b = BindingOf(e);
    if (!b || !Matches(request, e, *b)) continue;
    resources[{b->resource_type, b->resource_name}].push_back(
        {b->principal, "*", b->operation, ToWire(AclPermissionType::kAllow)});
  }
  for (auto& [key, acls] : resources) {
    r.resources.push_back({std::get<0>(key), std::get<1>(key), ToWire(AclPatternType::kLiteral), std::move(acls)});
  }
  return r;
}

CreateAclsResponse Broker::CreateAcls(const CreateAclsRequest& request) {
  CreateAclsResponse r;
  std::vector<AclEntry> entries;
  for (const auto& c : request.creations) {
    auto e = EntryOf(c.resource_type, c.resource_name, c.resource_pattern_type, c.principal, c.host, c.operation,
                     c.permission_type);
    if (e.ok()) {
      entries.push_back(std::move(*e));
      r.results.push_back({});
    } else {
      r.results.push_back({ToWire(ErrorCode::kInvalidRequest), e.status().message()});
    }
  }
  if (Status granted = options_.access->Grant(std::move(entries)); !granted.ok()) {
    for (auto& result : r.results) {
      if (result.error_code == 0) result = {ToWire(ErrorCodeFromStatus(granted)), granted.message()};
    }
  }
  return r;
}

DeleteAclsResponse Broker::DeleteAcls(const DeleteAclsRequest& request) {
  DeleteAclsResponse r;
  const std::vector<AclEntry> all = options_.access->Entries();
  std::set<AclEntry> revoked;
  for (const auto& f : request.filters) {
    DeleteAclsResponse::FilterResult result;
    for (const AclEntry& e : all) {
      auto b = BindingOf(e);
      if (!b || !Matches(f, e, *b)) continue;
      revoked.insert(e);
      result.matching_acls.push_back({0, std::nullopt, b->resource_type, b->resource_name,
                                      ToWire(AclPatternType::kLiteral), b->principal, "*", b->operation,
                                      ToWire(AclPermissionType::kAllow)});
    }
    r.filter_results.push_back(std::move(result));
  }
  if (Status done = options_.access->Revoke({revoked.begin(), revoked.end()}); !done.ok()) {
    for (auto& result : r.filter_results) {
      result = {ToWire(ErrorCodeFromStatus(done)), done.message(), {}};
    }
  }
  return r;
}

}  // namespace mink::kafka
