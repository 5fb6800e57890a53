#include "flight/service/action_access.h"

#include <nlohmann/json.hpp>

#include "stream/sql_endpoint.h"

namespace mink::flight {
namespace {

using auth::Operation;
using auth::Resource;

std::string StringField(const nlohmann::json& body, const char* name) {
  return body.contains(name) && body[name].is_string() ? body[name].get<std::string>() : "";
}

}  // namespace

Status CheckActionAccess(const auth::AccessControl& access, const std::string& caller, const std::string& type,
                         const nlohmann::json& body) {
  if (type == "create-database" || type == "drop-database") {
    return access.Check(caller, Resource::Database(StringField(body, "name")), Operation::kAdmin);
  }
  if (type == "create-table" || type == "alter-table" || type == "drop-table") {
    return access.Check(caller, Resource::Table(StringField(body, "table")), Operation::kAdmin);
  }
  if (type == "describe-table" || type == "offsets" || type == "lake-snapshot" || type == "column-stats") {
    return access.Check(caller, Resource::Table(StringField(body, "table")), Operation::kDescribe);
  }
  if (type == "list-nodes") return access.Check(caller, Resource::Cluster(), Operation::kDescribe);
  if (type == "continuous-sql") return CheckContinuousSqlAccess(access, caller, StringField(body, "sql"));
  if (type == "create-user" && StringField(body, "name") == caller && body.contains("replace") &&
      body["replace"] == true) {
    return Status::Ok();  // a new password of one's own
  }
  if (type == "create-user" || type == "delete-user" || type == "list-users" || type == "grant-acl" ||
      type == "revoke-acl" || type == "list-acls") {
    return access.Check(caller, Resource::Cluster(), Operation::kAdmin);
  }
  // Lists answer only what the caller may describe; a writer id writes nothing by itself.
  if (type == "list-databases" || type == "list-tables" || type == "init-writer") return Status::Ok();
  // Default-deny: an action this list does not name needs admin on the cluster.
  return access.Check(caller, Resource::Cluster(), Operation::kAdmin);
}

Status CheckContinuousSqlAccess(const auth::AccessControl& access, const std::string& caller, const std::string& sql) {
  auto statements = stream::ParseStatements(sql);
  if (!statements.ok()) return Status::Ok();  // it fails as malformed, changing nothing
  for (const auto& s : *statements) {
    switch (s.kind) {
      case stream::StatementKind::kShow:
      case stream::StatementKind::kDescribe:
      case stream::StatementKind::kExplain:
        MINK_RETURN_IF_ERROR(access.Check(caller, Resource::Database("continuous"), Operation::kDescribe));
        break;
      case stream::StatementKind::kQuery:
      case stream::StatementKind::kSubscribe:
        MINK_RETURN_IF_ERROR(access.Check(caller, Resource::Database("continuous"), Operation::kRead));
        break;
      default:
        MINK_RETURN_IF_ERROR(access.Check(caller, Resource::Cluster(), Operation::kAdmin));
    }
  }
  return Status::Ok();
}

}  // namespace mink::flight
