#include "flight/service/user_actions.h"

#include <nlohmann/json.hpp>

#include "auth/scram.h"

namespace mink::flight {

using nlohmann::json;

Result<json> CreateUser(metadata::MetadataLog* meta, const std::string& name, const std::string& password,
                        bool replace) {
  if (meta == nullptr) return UnimplementedError("this node keeps no users");
  if (password.empty() || password.size() > 1024) return InvalidArgumentError("a password has 1 to 1024 bytes");
  MINK_ASSIGN_OR_RETURN(auto credentials, auth::MakeCredentials(password));
  MINK_RETURN_IF_ERROR(
      meta->Append(metadata::Command(metadata::CreateUser{name, std::move(credentials), replace})).status());
  return json{{"name", name}};
}

Result<json> DeleteUser(metadata::MetadataLog* meta, const std::string& name) {
  if (meta == nullptr) return UnimplementedError("this node keeps no users");
  MINK_RETURN_IF_ERROR(meta->Append(metadata::Command(metadata::DeleteUser{name})).status());
  return json{{"name", name}};
}

Result<json> ListUsers(metadata::MetadataLog* meta) {
  if (meta == nullptr) return UnimplementedError("this node keeps no users");
  json users = json::array();
  meta->Read([&](const metadata::State& st) {
    for (const auto& [name, u] : st.users()) {
      json mechanisms = json::array();
      for (const auto& c : u.credentials) mechanisms.push_back(c.mechanism);
      users.push_back({{"name", name}, {"mechanisms", mechanisms}, {"created_ms", u.created_ms}});
    }
  });
  return json{{"users", users}};
}

namespace {

json EntryJson(const metadata::AclEntry& e) {
  return {{"principal", e.principal}, {"resource", e.resource}, {"operation", e.operation}};
}

}  // namespace

Result<json> GrantAcl(metadata::MetadataLog* meta, metadata::AclEntry entry) {
  if (meta == nullptr) return UnimplementedError("this node keeps no access control lists");
  json out = EntryJson(entry);
  MINK_RETURN_IF_ERROR(meta->Append(metadata::Command(metadata::GrantAcls{{std::move(entry)}})).status());
  return out;
}

Result<json> RevokeAcl(metadata::MetadataLog* meta, metadata::AclEntry entry) {
  if (meta == nullptr) return UnimplementedError("this node keeps no access control lists");
  const bool granted = meta->Read([&](const metadata::State& st) { return st.acls().count(entry) > 0; });
  if (!granted) {
    return NotFoundError("no grant of " + entry.operation + " on " + entry.resource + " to " + entry.principal);
  }
  json out = EntryJson(entry);
  MINK_RETURN_IF_ERROR(meta->Append(metadata::Command(metadata::RevokeAcls{{std::move(entry)}})).status());
  return out;
}

Result<json> ListAcls(metadata::MetadataLog* meta, const std::string& principal) {
  if (meta == nullptr) return UnimplementedError("this node keeps no access control lists");
  json acls = json::array();
  meta->Read([&](const metadata::State& st) {
    for (const auto& e : st.acls()) {
      if (principal.empty() || e.principal == principal || e.principal == "*") acls.push_back(EntryJson(e));
    }
  });
  return json{{"acls", acls}};
}

}  // namespace mink::flight
