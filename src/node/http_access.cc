#include "node/http_access.h"

#include <nlohmann/json.hpp>

#include "flight/service/action_access.h"

namespace mink::node {

Status CheckHttpAccess(const auth::AccessControl& access, const std::string& user, const http::ServerRequest& request) {
  if (request.path == "/api/v1/sql") {
    const auto body = nlohmann::json::parse(request.body, nullptr, false);
    if (!body.is_object() || !body.contains("sql") || !body["sql"].is_string()) return Status::Ok();  // a 400 follows
    return flight::CheckContinuousSqlAccess(access, user, body["sql"].get<std::string>());
  }
  if (request.path == "/metrics") {
    // Metrics name every table, group and node: describe on the cluster.
    return access.Check(user, auth::Resource::Cluster(), auth::Operation::kDescribe);
  }
  if (request.path.rfind("/ws/", 0) == 0) {
    return access.Check(user, auth::Resource::Table("continuous." + request.path.substr(4)), auth::Operation::kRead);
  }
  return Status::Ok();
}

}  // namespace mink::node
