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

namespace {

// The text of the file environment variable `name` names ("" when unset).
Result<std::string> FileOfEnv(const char* name) {
  const char* path = std::getenv(name);
  if (path == nullptr || *path == '\0') return std::string();
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || text.str().empty()) return InvalidArgumentError(std::string(name) + ": cannot read " + path);
  return text.str();
}

}  // namespace

Status ApplyEnvironment(flight::FlightClientOptions* options) {
  options->headers = AuthorizationHeaders();
  MINK_ASSIGN_OR_RETURN(options->tls_roots_pem, FileOfEnv(kTlsCaEnv));
  MINK_ASSIGN_OR_RETURN(options->tls_cert_pem, FileOfEnv(kTlsCertEnv));
  MINK_ASSIGN_OR_RETURN(options->tls_key_pem, FileOfEnv(kTlsKeyEnv));
  if (options->tls_cert_pem.empty() != options->tls_key_pem.empty()) {
    return InvalidArgumentError(std::string("a client certificate needs both ") + kTlsCertEnv + " and " +
                                kTlsKeyEnv);
  }
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
