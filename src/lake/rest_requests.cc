#include "lake/rest_requests.h"

#include <set>

namespace mink::lake::rest {
namespace {

// The member `name` of an object, or nullptr when it is absent or null.
const Json* Optional(const Json& body, const char* name) {
  auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

Result<std::string> StringOf(const Json& body, const char* name, bool required) {
  const Json* v = Optional(body, name);
  if (v == nullptr) {
    if (required) return InvalidArgumentError(std::string("the request has no ") + name);
    return std::string();
  }
  if (!v->is_string()) return InvalidArgumentError(std::string("the request's ") + name + " is not a string");
  return v->get<std::string>();
}

Result<bool> BoolOf(const Json& body, const char* name) {
  const Json* v = Optional(body, name);
  if (v == nullptr) return false;
  if (!v->is_boolean()) return InvalidArgumentError(std::string("the request's ") + name + " is not true or false");
  return v->get<bool>();
}

// An object of string values (properties), {} when absent.
Result<std::map<std::string, std::string>> StringMap(const Json& body, const char* name) {
  std::map<std::string, std::string> out;
  const Json* v = Optional(body, name);
  if (v == nullptr) return out;
  if (!v->is_object()) return InvalidArgumentError(std::string("the request's ") + name + " is not an object");
  for (const auto& [k, value] : v->items()) {
    if (!value.is_string()) return InvalidArgumentError("property " + k + " is not a string");
    out[k] = value.get<std::string>();
  }
  return out;
}

// An array of objects that each have the string member `kind`, [] when absent.
Result<Json> ArrayOfKinds(const Json& body, const char* name, const char* kind) {
  const Json* v = Optional(body, name);
  if (v == nullptr) return Json::array();
  if (!v->is_array()) return InvalidArgumentError(std::string("a commit's ") + name + " is not an array");
  for (const auto& item : *v) {
    if (!item.is_object() || !item.contains(kind) || !item.at(kind).is_string()) {
      return InvalidArgumentError(std::string("a commit's ") + name + " are objects with a " + kind + " string, not " +
                                  item.dump(-1, ' ', false, Json::error_handler_t::replace));
    }
  }
  return *v;
}

}  // namespace

Result<Json> ParseBody(std::string_view body) {
  try {
    Json j = Json::parse(body.empty() ? std::string_view("{}") : body);
    if (!j.is_object()) return InvalidArgumentError("the request body is not a JSON object");
    return j;
  } catch (const Json::exception& e) {
    return InvalidArgumentError(std::string("the request body is not JSON: ") + e.what());
  }
}

Result<metadata::NamespaceName> NamespaceOf(const Json& j, const char* what) {
  if (!j.is_array() || j.empty()) return InvalidArgumentError(std::string(what) + " is not a non-empty array of strings");
  metadata::NamespaceName out;
  for (const auto& level : j) {
    if (!level.is_string() || level.get<std::string>().empty()) {
      return InvalidArgumentError(std::string(what) + " has a level that is not a non-empty string");
    }
    out.push_back(level.get<std::string>());
  }
  return out;
}

Result<TableIdentifier> IdentifierOf(const Json& j, const char* what) {
  if (!j.is_object() || !j.contains("namespace") || !j.contains("name") || !j.at("name").is_string()) {
    return InvalidArgumentError(std::string(what) + " is not a table identifier {namespace, name}");
  }
  MINK_ASSIGN_OR_RETURN(metadata::NamespaceName space, NamespaceOf(j.at("namespace"), what));
  return std::make_pair(std::move(space), j.at("name").get<std::string>());
}

Result<CreateNamespaceRequest> ReadCreateNamespace(const Json& body) {
  CreateNamespaceRequest out;
  const Json* space = Optional(body, "namespace");
  MINK_ASSIGN_OR_RETURN(out.space, NamespaceOf(space != nullptr ? *space : Json(), "namespace"));
  MINK_ASSIGN_OR_RETURN(out.properties, StringMap(body, "properties"));
  return out;
}

Result<UpdateNamespaceRequest> ReadUpdateNamespace(const Json& body) {
  UpdateNamespaceRequest out;
  if (const Json* removals = Optional(body, "removals")) {
    if (!removals->is_array()) return InvalidArgumentError("the request's removals is not an array of strings");
    for (const auto& k : *removals) {
      if (!k.is_string()) return InvalidArgumentError("the request's removals is not an array of strings");
      out.removals.push_back(k.get<std::string>());
    }
  }
  MINK_ASSIGN_OR_RETURN(out.updates, StringMap(body, "updates"));
  return out;
}

Result<CreateTableRequest> ReadCreateTable(const Json& body) {
  CreateTableRequest out;
  MINK_ASSIGN_OR_RETURN(out.name, StringOf(body, "name", true));
  if (out.name.empty()) return InvalidArgumentError("the create-table request has no name");
  MINK_ASSIGN_OR_RETURN(out.location, StringOf(body, "location", false));
  MINK_ASSIGN_OR_RETURN(out.stage_create, BoolOf(body, "stage-create"));
  return out;
}

Result<RegisterTableRequest> ReadRegisterTable(const Json& body) {
  RegisterTableRequest out;
  MINK_ASSIGN_OR_RETURN(out.name, StringOf(body, "name", true));
  MINK_ASSIGN_OR_RETURN(out.metadata_location, StringOf(body, "metadata-location", true));
  if (out.name.empty() || out.metadata_location.empty()) {
    return InvalidArgumentError("register needs a name and a metadata-location");
  }
  MINK_ASSIGN_OR_RETURN(out.overwrite, BoolOf(body, "overwrite"));
  return out;
}

bool TableChange::Creates() const {
  for (const auto& r : requirements) {
    if (r.at("type") == "assert-create") return true;
  }
  return false;
}

bool TableChange::OnlyWrites() const {
  static const std::set<std::string> kWrites = {"add-snapshot",      "set-snapshot-ref",         "remove-snapshot-ref",
                                                "remove-snapshots",  "set-statistics",           "remove-statistics",
                                                "set-partition-statistics", "remove-partition-statistics"};
  if (Creates()) return false;
  for (const auto& u : updates) {
    if (kWrites.count(u.at("action").get<std::string>()) == 0) return false;
  }
  return true;
}

Result<TableChange> ReadTableChange(const Json& change) {
  if (!change.is_object()) return InvalidArgumentError("a table change is an object {requirements, updates}");
  TableChange out;
  MINK_ASSIGN_OR_RETURN(out.requirements, ArrayOfKinds(change, "requirements", "type"));
  MINK_ASSIGN_OR_RETURN(out.updates, ArrayOfKinds(change, "updates", "action"));
  return out;
}

Result<std::vector<IdentifiedChange>> ReadTransaction(const Json& body) {
  const Json* changes = Optional(body, "table-changes");
  if (changes == nullptr || !changes->is_array() || changes->empty()) {
    return InvalidArgumentError("a transaction has table-changes");
  }
  std::vector<IdentifiedChange> out;
  for (const auto& change : *changes) {
    if (!change.is_object()) return InvalidArgumentError("a transaction's table-changes are objects");
    const Json* id = Optional(change, "identifier");
    IdentifiedChange item;
    MINK_ASSIGN_OR_RETURN(item.id, IdentifierOf(id != nullptr ? *id : Json(), "a table change's identifier"));
    MINK_ASSIGN_OR_RETURN(item.change, ReadTableChange(change));
    out.push_back(std::move(item));
  }
  return out;
}

Result<RenameRequest> ReadRename(const Json& body) {
  RenameRequest out;
  const Json* from = Optional(body, "source");
  const Json* to = Optional(body, "destination");
  MINK_ASSIGN_OR_RETURN(out.from, IdentifierOf(from != nullptr ? *from : Json(), "source"));
  MINK_ASSIGN_OR_RETURN(out.to, IdentifierOf(to != nullptr ? *to : Json(), "destination"));
  return out;
}

}  // namespace mink::lake::rest
