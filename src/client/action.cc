#include "client/action.h"

#include <cstdlib>
#include <exception>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "base/strings.h"

namespace mink::client {

std::vector<std::pair<std::string, std::string>> AuthorizationHeaders() {
  if (const char* token = std::getenv(kTokenEnv); token != nullptr && *token != '\0') {
    return {{"authorization", std::string("Bearer ") + token}};
  }
  const char* user = std::getenv(kUserEnv);
  const char* password = std::getenv(kPasswordEnv);
  if (user == nullptr || *user == '\0') return {};
  return {{"authorization", "Basic " + Base64Encode(std::string(user) + ":" + (password ? password : ""))}};
}

Status ApplyEnvironment(flight::FlightClientOptions* options) {
  options->headers = AuthorizationHeaders();
  const char* ca = std::getenv(kTlsCaEnv);
  if (ca == nullptr || *ca == '\0') return Status::Ok();
  std::ifstream in(ca, std::ios::binary);
  std::ostringstream pem;
  if (in) pem << in.rdbuf();
  if (!in || pem.str().empty()) return InvalidArgumentError(std::string(kTlsCaEnv) + ": cannot read " + ca);
  options->tls_roots_pem = pem.str();
  return Status::Ok();
}

Result<nlohmann::json> RunAction(flight::FlightClient& client, const std::string& type,
                                 const nlohmann::json& body) {
  MINK_ASSIGN_OR_RETURN(auto results, client.DoAction(flight::Action{type, DumpJson(body)}));
  if (results.empty() || results[0].body.empty()) return nlohmann::json::object();
  try {
    return nlohmann::json::parse(results[0].body);
  } catch (const std::exception& e) {
    return InternalError("the node answered " + type + " with bad JSON: " + e.what());
  }
}

std::string DumpJson(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace mink::client
