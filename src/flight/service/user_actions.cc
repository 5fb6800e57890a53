#include "flight/service/user_actions.h"

#include <nlohmann/json.hpp>

#include "auth/scram.h"

namespace mink::flight {

using nlohmann::json;

bool IsUserAction(const std::string& type) {
  return type == "create-user" || type == "delete-user" || type == "list-users";
}

Result<json> RunUserAction(metadata::MetadataLog* meta, const std::string& type, const json& body) {
  if (meta == nullptr) return UnimplementedError("this node keeps no users");
  auto text = [&](const char* field) -> Result<std::string> {
    if (!body.contains(field) || !body[field].is_string()) {
      return InvalidArgumentError("action " + type + ": \"" + field + "\" must be a string");
    }
    return body[field].get<std::string>();
  };
  if (type == "create-user") {
    MINK_ASSIGN_OR_RETURN(std::string name, text("name"));
    MINK_ASSIGN_OR_RETURN(std::string password, text("password"));
    if (password.empty() || password.size() > 1024) {
      return InvalidArgumentError("a password has 1 to 1024 bytes");
    }
    MINK_ASSIGN_OR_RETURN(auto credentials, auth::MakeCredentials(password));
    const bool replace = body.value("replace", false);
    MINK_RETURN_IF_ERROR(
        meta->Append(metadata::Command(metadata::CreateUser{name, std::move(credentials), replace})).status());
    return json{{"name", name}};
  }
  if (type == "delete-user") {
    MINK_ASSIGN_OR_RETURN(std::string name, text("name"));
    MINK_RETURN_IF_ERROR(meta->Append(metadata::Command(metadata::DeleteUser{name})).status());
    return json{{"name", name}};
  }
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

}  // namespace mink::flight
