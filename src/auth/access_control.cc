#include "auth/access_control.h"

namespace mink::auth {
namespace {

bool Includes(std::string_view granted, Operation op) {
  if (granted == "admin") return true;
  if (op == Operation::kDescribe) return granted == "describe" || granted == "read" || granted == "write";
  return granted == OperationName(op);
}

// The database of a table's qualified name ("" when it has none).
std::string_view DatabaseOf(std::string_view table) {
  const size_t dot = table.find('.');
  return dot == std::string_view::npos ? std::string_view() : table.substr(0, dot);
}

bool ResourceCovers(std::string_view granted, const Resource& r) {
  if (granted == "cluster") return true;
  const size_t colon = granted.find(':');
  if (colon == std::string_view::npos) return false;
  const std::string_view type = granted.substr(0, colon);
  const std::string_view name = granted.substr(colon + 1);
  switch (r.type) {
    case Resource::Type::kCluster:
      return false;
    case Resource::Type::kDatabase:
      return type == "database" && (name == "*" || name == r.name);
    case Resource::Type::kTable: {
      const std::string_view db = DatabaseOf(r.name);
      if (type == "database") return name == "*" || name == db;
      if (type != "table") return false;
      if (name == "*" || name == r.name) return true;
      return name.size() == db.size() + 2 && name.substr(0, db.size()) == db && name.substr(db.size()) == ".*";
    }
    case Resource::Type::kGroup:
      return type == "group" && (name == "*" || name == r.name);
  }
  return false;
}

}  // namespace

std::string_view OperationName(Operation op) {
  switch (op) {
    case Operation::kDescribe: return "describe";
    case Operation::kRead: return "read";
    case Operation::kWrite: return "write";
    case Operation::kAdmin: return "admin";
  }
  return "admin";
}

std::string Resource::ToString() const {
  switch (type) {
    case Type::kCluster: return "cluster";
    case Type::kDatabase: return "database:" + name;
    case Type::kTable: return "table:" + name;
    case Type::kGroup: return "group:" + name;
  }
  return "cluster";
}

std::string NodePrincipal(int32_t node_id) { return "node:" + std::to_string(node_id); }

// User names cannot hold ':' (metadata::CheckUserName), so no user passes for a node.
bool IsNodePrincipal(std::string_view principal) { return principal.substr(0, 5) == "node:"; }

bool Covers(const metadata::AclEntry& entry, const Resource& resource, Operation op) {
  return Includes(entry.operation, op) && ResourceCovers(entry.resource, resource);
}

bool AccessControl::IsSuper(std::string_view user) const {
  return IsNodePrincipal(user) || super_users_.count(std::string(user)) > 0;
}

bool AccessControl::Allowed(std::string_view user, const Resource& resource, Operation op) const {
  if (IsSuper(user)) return true;
  return meta_->Read([&](const metadata::State& st) {
    for (const auto& e : st.acls()) {
      if ((e.principal == "*" || e.principal == user) && Covers(e, resource, op)) return true;
    }
    return false;
  });
}

Status AccessControl::Check(std::string_view user, const Resource& resource, Operation op) const {
  if (Allowed(user, resource, op)) return Status::Ok();
  std::string what = resource.type == Resource::Type::kCluster ? "the cluster" : resource.ToString();
  if (const size_t colon = what.find(':'); colon != std::string::npos) what[colon] = ' ';
  return PermissionDeniedError("user " + std::string(user) + " may not " + std::string(OperationName(op)) + " " + what);
}

std::vector<metadata::AclEntry> AccessControl::Entries() const {
  return meta_->Read([](const metadata::State& st) {
    return std::vector<metadata::AclEntry>(st.acls().begin(), st.acls().end());
  });
}

Status AccessControl::Grant(std::vector<metadata::AclEntry> entries) const {
  if (entries.empty()) return Status::Ok();
  return meta_->Append(metadata::Command(metadata::GrantAcls{std::move(entries)})).status();
}

Status AccessControl::Revoke(std::vector<metadata::AclEntry> entries) const {
  if (entries.empty()) return Status::Ok();
  return meta_->Append(metadata::Command(metadata::RevokeAcls{std::move(entries)})).status();
}

}  // namespace mink::auth
