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

json UserCredentialsJson(const std::vector<ScramCredential>& credentials) { return CredentialsJson(credentials); }

}  // namespace mink::metadata
