#include <cctype>

#include "metadata/commands_json.h"

namespace mink::metadata {

namespace {

json CredentialsJson(const std::vector<ScramCredential>& credentials) {
  json out = json::array();
  for (const auto& c : credentials) {
    out.push_back({{"mechanism", c.mechanism},
                   {"salt", c.salt},
                   {"iterations", c.iterations},
                   {"stored_key", c.stored_key},
                   {"server_key", c.server_key}});
  }
  return out;
}

}  // namespace

json ToJson(const CreateUser& c) {
  return {{"name", c.name}, {"credentials", CredentialsJson(c.credentials)}, {"replace", c.replace}};
}

void FromJson(const json& j, CreateUser* c) {
  c->name = j.at("name").get<std::string>();
  c->replace = j.value("replace", false);
  for (const auto& k : j.at("credentials")) {
    c->credentials.push_back(ScramCredential{k.at("mechanism").get<std::string>(), k.at("salt").get<std::string>(),
                                             k.at("iterations").get<int32_t>(), k.at("stored_key").get<std::string>(),
                                             k.at("server_key").get<std::string>()});
  }
}

json ToJson(const DeleteUser& c) { return {{"name", c.name}}; }

void FromJson(const json& j, DeleteUser* c) { c->name = j.at("name").get<std::string>(); }

json ToJson(const SetClusterSecret& c) { return {{"secret", c.secret}}; }

void FromJson(const json& j, SetClusterSecret* c) { c->secret = j.at("secret").get<std::string>(); }

json ToJson(const AclEntry& e) { return json::array({e.principal, e.resource, e.operation}); }

AclEntry AclEntryFromJson(const json& j) {
  return AclEntry{j.at(0).get<std::string>(), j.at(1).get<std::string>(), j.at(2).get<std::string>()};
}

namespace {

json EntriesJson(const std::vector<AclEntry>& entries) {
  json out = json::array();
  for (const auto& e : entries) out.push_back(ToJson(e));
  return out;
}

std::vector<AclEntry> EntriesFromJson(const json& j) {
  std::vector<AclEntry> out;
  for (const auto& e : j.at("entries")) out.push_back(AclEntryFromJson(e));
  return out;
}

}  // namespace

json ToJson(const GrantAcls& c) { return {{"entries", EntriesJson(c.entries)}}; }

void FromJson(const json& j, GrantAcls* c) { c->entries = EntriesFromJson(j); }

json ToJson(const RevokeAcls& c) { return {{"entries", EntriesJson(c.entries)}}; }

void FromJson(const json& j, RevokeAcls* c) { c->entries = EntriesFromJson(j); }

Status CheckUserName(const std::string& name) {
  if (name.empty() || name.size() > 128) return InvalidArgumentError("a user name has 1 to 128 characters");
  for (unsigned char ch : name) {
    if (!std::isalnum(ch) && ch != '_' && ch != '-' && ch != '.' && ch != '@') {
      return InvalidArgumentError("user name '" + name + "' may hold letters, digits and _ - . @ only");
    }
  }
  return Status::Ok();
}

Status CheckAclEntry(const AclEntry& e) {
  const std::string what = "grant (" + e.principal + ", " + e.resource + ", " + e.operation + ")";
  if (e.principal != "*" && !CheckUserName(e.principal).ok()) {
    return InvalidArgumentError(what + ": the principal is a user's name or * for every user");
  }
  if (e.operation != "describe" && e.operation != "read" && e.operation != "write" && e.operation != "admin") {
    return InvalidArgumentError(what + ": the operation is describe, read, write or admin");
  }
  const size_t colon = e.resource.find(':');
  const std::string type = e.resource.substr(0, colon);
  const std::string name = colon == std::string::npos ? "" : e.resource.substr(colon + 1);
  bool ok = false;
  if (type == "cluster") {
    ok = colon == std::string::npos;
  } else if (type == "database") {
    ok = !name.empty() && name.find('.') == std::string::npos;
  } else if (type == "group") {
    ok = !name.empty();
  } else if (type == "table") {
    const size_t dot = name.find('.');
    ok = name == "*" || (dot != std::string::npos && dot > 0 && dot + 1 < name.size());  // a table's name may hold dots
  }
  if (!ok) {
    return InvalidArgumentError(what + ": the resource is cluster, database:<db>, table:<db>.<table> or group:<id> "
                                "(* for every name)");
  }
  return Status::Ok();
}

json UserCredentialsJson(const std::vector<ScramCredential>& credentials) { return CredentialsJson(credentials); }

}  // namespace mink::metadata
