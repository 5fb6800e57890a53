#include "lake/table_metadata.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>

#include "base/random_id.h"

namespace mink::lake {
namespace {

constexpr int32_t kFirstPartitionFieldId = 1000;

// A member the request must have, with the type it must have.
Result<const Json*> Member(const Json& j, const char* name, const char* what) {
  if (!j.is_object() || !j.contains(name) || j.at(name).is_null()) {
    return InvalidArgumentError(std::string(what) + " has no " + name);
  }
  return &j.at(name);
}

Result<int64_t> IntMember(const Json& j, const char* name, const char* what) {
  MINK_ASSIGN_OR_RETURN(const Json* v, Member(j, name, what));
  if (!v->is_number_integer()) return InvalidArgumentError(std::string(what) + "'s " + name + " is not an integer");
  return v->get<int64_t>();
}

Result<std::string> StringMember(const Json& j, const char* name, const char* what) {
  MINK_ASSIGN_OR_RETURN(const Json* v, Member(j, name, what));
  if (!v->is_string()) return InvalidArgumentError(std::string(what) + "'s " + name + " is not a string");
  return v->get<std::string>();
}

// Removes the items of a JSON array that `drop` picks.
template <typename Pred>
void EraseIf(Json& array, Pred drop) {
  Json kept = Json::array();
  for (auto& item : array) {
    if (!drop(item)) kept.push_back(std::move(item));
  }
  array = std::move(kept);
}

Json& ArrayAt(Json& j, const char* name) {
  if (!j.contains(name) || !j.at(name).is_array()) j[name] = Json::array();
  return j[name];
}

// How deep types nest at most: deeper ones are refused (and not walked, which recurses).
constexpr int kMaxTypeDepth = 64;

// Field ids of a type: struct fields, list elements, map keys and values.
void CollectIds(const Json& type, std::vector<int32_t>* ids, int depth = 0) {
  if (!type.is_object() || depth > kMaxTypeDepth) return;
  const std::string kind = StringOr(type, "type");
  if (kind == "struct") {
    auto fields = type.find("fields");
    if (fields == type.end() || !fields->is_array()) return;
    for (const auto& f : *fields) {
      ids->push_back(static_cast<int32_t>(IntOr(f, "id", 0)));
      if (f.is_object() && f.contains("type")) CollectIds(f.at("type"), ids, depth + 1);
    }
  } else if (kind == "list") {
    ids->push_back(static_cast<int32_t>(IntOr(type, "element-id", 0)));
    if (type.contains("element")) CollectIds(type.at("element"), ids, depth + 1);
  } else if (kind == "map") {
    ids->push_back(static_cast<int32_t>(IntOr(type, "key-id", 0)));
    ids->push_back(static_cast<int32_t>(IntOr(type, "value-id", 0)));
    if (type.contains("key")) CollectIds(type.at("key"), ids, depth + 1);
    if (type.contains("value")) CollectIds(type.at("value"), ids, depth + 1);
  }
}

// A type as the spec writes one: a primitive's name, or a struct, list or map object whose
// members have the types they must.
Status CheckType(const Json& type, int depth) {
  if (type.is_string()) return Status::Ok();
  auto refuse = [&](const std::string& why) {
    return InvalidArgumentError("a schema's type " + type.dump(-1, ' ', false, Json::error_handler_t::replace).substr(0, 200) +
                                " " + why);
  };
  if (depth > kMaxTypeDepth) return refuse("nests deeper than " + std::to_string(kMaxTypeDepth));
  if (!type.is_object()) return refuse("is neither a name nor an object");
  const std::string kind = StringOr(type, "type");
  auto integer = [&](const char* name) { return type.contains(name) && type.at(name).is_number_integer(); };
  if (kind == "struct") {
    if (!type.contains("fields") || !type.at("fields").is_array()) return refuse("has no fields array");
    for (const auto& f : type.at("fields")) {
      if (!f.is_object() || !f.contains("id") || !f.at("id").is_number_integer() || !f.contains("name") ||
          !f.at("name").is_string() || !f.contains("type")) {
        return refuse("has a field without an integer id, a string name and a type");
      }
      MINK_RETURN_IF_ERROR(CheckType(f.at("type"), depth + 1));
    }
    return Status::Ok();
  }
  if (kind == "list") {
    if (!integer("element-id") || !type.contains("element")) return refuse("has no integer element-id and element");
    return CheckType(type.at("element"), depth + 1);
  }
  if (kind == "map") {
    if (!integer("key-id") || !integer("value-id") || !type.contains("key") || !type.contains("value")) {
      return refuse("has no integer key-id and value-id, key and value");
    }
    MINK_RETURN_IF_ERROR(CheckType(type.at("key"), depth + 1));
    return CheckType(type.at("value"), depth + 1);
  }
  return refuse("is not a struct, list or map");
}

Status CheckSchema(const Json& schema) {
  if (!schema.is_object() || StringOr(schema, "type", "struct") != "struct" ||
      !schema.contains("fields") || !schema.at("fields").is_array()) {
    return InvalidArgumentError("a schema is a struct with fields");
  }
  MINK_RETURN_IF_ERROR(CheckType(Json{{"type", "struct"}, {"fields", schema.at("fields")}}, 0));
  std::vector<int32_t> ids;
  CollectIds(Json{{"type", "struct"}, {"fields", schema.at("fields")}}, &ids);
  std::set<int32_t> seen;
  for (int32_t id : ids) {
    if (id <= 0) return InvalidArgumentError("a schema's field ids are positive");
    if (!seen.insert(id).second) {
      return InvalidArgumentError("field id " + std::to_string(id) + " appears twice in the schema");
    }
  }
  return Status::Ok();
}

// Whether two schemas have the same fields and identifier fields (ids ignored of the schema).
bool SameSchema(const Json& a, const Json& b) {
  return a.value("fields", Json::array()) == b.value("fields", Json::array()) &&
         a.value("identifier-field-ids", Json::array()) == b.value("identifier-field-ids", Json::array());
}

// A partition spec's fields with field ids, assigning new ones after `*last_partition_id`.
Result<Json> SpecFields(const Json& spec, int32_t* last_partition_id) {
  Json fields = Json::array();
  if (!spec.is_object()) return InvalidArgumentError("a partition spec is an object");
  const Json given = spec.value("fields", Json::array());
  if (!given.is_array()) return InvalidArgumentError("a partition spec's fields are an array");
  for (const auto& f : given) {
    Json field = f;
    if (!f.is_object() || !f.contains("source-id") || !f.contains("transform") || !f.contains("name")) {
      return InvalidArgumentError("a partition field has a source-id, a transform and a name");
    }
    const int64_t id = IntOr(f, "field-id", -1);
    if (!f.contains("field-id") || f.at("field-id").is_null()) {
      if (*last_partition_id == INT32_MAX) return InvalidArgumentError("a partition spec has no field-id left");
      field["field-id"] = ++*last_partition_id;
    } else if (id < 0 || id > INT32_MAX) {
      return InvalidArgumentError("a partition field's field-id is not an integer from 0 to 2^31 - 1");
    } else {
      *last_partition_id = std::max(*last_partition_id, static_cast<int32_t>(id));
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

// One past the highest id of `items` (ids out of int32's range count as its ends).
int32_t NextId(const Json& items, const char* id_name) {
  int64_t next = 0;
  for (const auto& item : items) next = std::max(next, std::clamp<int64_t>(IntOr(item, id_name, -1), -1, INT32_MAX - 1) + 1);
  return static_cast<int32_t>(next);
}

bool HasId(const Json& items, const char* id_name, int64_t id) {
  return std::any_of(items.begin(), items.end(),
                     [&](const Json& item) { return IntOr(item, id_name, -1) == id; });
}

// -1 is the one this commit added last.
Result<int64_t> Resolve(int64_t id, const std::optional<int32_t>& last_added, const char* what) {
  if (id != -1) return id;
  if (!last_added) return InvalidArgumentError(std::string(what) + " -1 names none: this commit added none");
  return *last_added;
}

// nlohmann's accessors throw on a member of another type than they read. The checks in this file
// name what they refuse; this catches what they miss, so JSON a caller sent is refused as
// InvalidArgument (a 400), never thrown out of a request.
template <typename F>
auto Guarded(const std::string& what, F body) -> decltype(body()) {
  try {
    return body();
  } catch (const Json::exception& e) {
    return InvalidArgumentError(what + ": " + e.what());
  }
}

}  // namespace

int64_t IntOr(const Json& j, const char* name, int64_t fallback) {
  return j.is_object() && j.contains(name) && j.at(name).is_number_integer() ? j.at(name).get<int64_t>() : fallback;
}

std::string StringOr(const Json& j, const char* name, const std::string& fallback) {
  return j.is_object() && j.contains(name) && j.at(name).is_string() ? j.at(name).get<std::string>() : fallback;
}

int32_t MaxFieldId(const Json& type) {
  std::vector<int32_t> ids;
  if (type.is_object() && type.contains("fields")) {
    CollectIds(Json{{"type", "struct"}, {"fields", type.at("fields")}}, &ids);
  } else {
    CollectIds(type, &ids);
  }
  int32_t most = 0;
  for (int32_t id : ids) most = std::max(most, id);
  return most;
}

std::string NextMetadataFile(const std::string& location, const std::string& previous) {
  int version = 0;
  if (!previous.empty()) {
    const std::string name = previous.substr(previous.rfind('/') + 1);
    int parsed = 0;
    if (std::sscanf(name.c_str(), "%d-", &parsed) == 1) {
      version = parsed + 1;
    } else if (std::sscanf(name.c_str(), "v%d.", &parsed) == 1) {
      version = parsed + 1;
    } else {
      version = 1;
    }
  }
  char prefix[16];
  std::snprintf(prefix, sizeof(prefix), "%05d", version);
  return location + "/metadata/" + prefix + "-" + NewUuid() + ".metadata.json";
}

Result<Json> NewTableMetadata(const Json& request, const std::string& location,
                              const std::string& uuid, int64_t now_ms) {
  return Guarded("the create-table request", [&]() -> Result<Json> {
  MINK_ASSIGN_OR_RETURN(const Json* schema_in, Member(request, "schema", "the create-table request"));
  Json schema = *schema_in;
  MINK_RETURN_IF_ERROR(CheckSchema(schema));
  schema["type"] = "struct";
  schema["schema-id"] = 0;
  int32_t last_partition_id = kFirstPartitionFieldId - 1;
  Json spec{{"spec-id", 0}, {"fields", Json::array()}};
  if (request.contains("partition-spec") && !request.at("partition-spec").is_null()) {
    MINK_ASSIGN_OR_RETURN(spec["fields"], SpecFields(request.at("partition-spec"), &last_partition_id));
  }
  Json orders = Json::array({Json{{"order-id", 0}, {"fields", Json::array()}}});
  int32_t default_order = 0;
  if (request.contains("write-order") && request.at("write-order").is_object() &&
      !request.at("write-order").value("fields", Json::array()).empty()) {
    orders.push_back(Json{{"order-id", 1}, {"fields", request.at("write-order").at("fields")}});
    default_order = 1;
  }
  Json properties = request.value("properties", Json::object());
  if (!properties.is_object()) return InvalidArgumentError("the create-table request's properties are not an object");
  properties.erase("format-version");  // reserved: the table is v2
  return Json{{"format-version", 2},
              {"table-uuid", uuid},
              {"location", location},
              {"last-sequence-number", 0},
              {"last-updated-ms", now_ms},
              {"last-column-id", MaxFieldId(schema)},
              {"current-schema-id", 0},
              {"schemas", Json::array({schema})},
              {"default-spec-id", 0},
              {"partition-specs", Json::array({spec})},
              {"last-partition-id", last_partition_id},
              {"default-sort-order-id", default_order},
              {"sort-orders", orders},
              {"properties", properties},
              {"current-snapshot-id", -1},
              {"refs", Json::object()},
              {"snapshots", Json::array()},
              {"statistics", Json::array()},
              {"partition-statistics", Json::array()},
              {"snapshot-log", Json::array()},
              {"metadata-log", Json::array()}};
  });
}

namespace {

Status CheckOneRequirement(const Json* metadata, const Json& requirement) {
  MINK_ASSIGN_OR_RETURN(std::string type, StringMember(requirement, "type", "a requirement"));
  if (type == "assert-create") {
    if (metadata != nullptr) return FailedPreconditionError("requirement failed: the table already exists");
    return Status::Ok();
  }
  if (metadata == nullptr) return FailedPreconditionError("requirement failed: " + type + ": the table does not exist");
  const Json& m = *metadata;
  auto mismatch = [&](const std::string& what, const Json& expected, const Json& actual) {
    return FailedPreconditionError("requirement failed: " + type + ": " + what + " is " + actual.dump() +
                                   ", not " + expected.dump());
  };
  if (type == "assert-table-uuid") {
    MINK_ASSIGN_OR_RETURN(std::string uuid, StringMember(requirement, "uuid", type.c_str()));
    if (m.value("table-uuid", "") != uuid) return mismatch("the table uuid", uuid, m.value("table-uuid", ""));
    return Status::Ok();
  }
  if (type == "assert-ref-snapshot-id") {
    MINK_ASSIGN_OR_RETURN(std::string ref, StringMember(requirement, "ref", type.c_str()));
    const Json expected = requirement.value("snapshot-id", Json());
    Json actual;
    const Json refs = m.value("refs", Json::object());
    if (refs.contains(ref)) {
      actual = refs.at(ref).value("snapshot-id", Json());
    } else if (ref == "main" && IntOr(m, "current-snapshot-id", -1) >= 0) {
      actual = m.at("current-snapshot-id");
    }
    if (expected.is_null() && !actual.is_null()) {
      return FailedPreconditionError("requirement failed: " + type + ": branch or tag " + ref +
                                     " exists (at snapshot " + actual.dump() + ")");
    }
    if (!expected.is_null() && actual != expected) {
      return mismatch("the snapshot of " + ref, expected, actual);
    }
    return Status::Ok();
  }
  struct Field {
    const char* requirement_type;
    const char* request_member;
    const char* metadata_member;
  };
  static const Field kFields[] = {
      {"assert-last-assigned-field-id", "last-assigned-field-id", "last-column-id"},
      {"assert-current-schema-id", "current-schema-id", "current-schema-id"},
      {"assert-last-assigned-partition-id", "last-assigned-partition-id", "last-partition-id"},
      {"assert-default-spec-id", "default-spec-id", "default-spec-id"},
      {"assert-default-sort-order-id", "default-sort-order-id", "default-sort-order-id"},
  };
  for (const auto& f : kFields) {
    if (type != f.requirement_type) continue;
    MINK_ASSIGN_OR_RETURN(int64_t expected, IntMember(requirement, f.request_member, type.c_str()));
    const Json actual = m.value(f.metadata_member, Json());
    if (actual != Json(expected)) return mismatch(f.metadata_member, expected, actual);
    return Status::Ok();
  }
  return InvalidArgumentError("unknown requirement type " + type);
}

}  // namespace

Status CheckRequirement(const Json* metadata, const Json& requirement) {
  return Guarded("requirement " + StringOr(requirement, "type"), [&] { return CheckOneRequirement(metadata, requirement); });
}

Status MetadataUpdater::Apply(const Json& update) {
  Status s = Guarded("update " + StringOr(update, "action"), [&] { return ApplyOne(update); });
  if (s.ok()) changed_ = true;
  return s;
}

Status MetadataUpdater::ApplyOne(const Json& update) {
  MINK_ASSIGN_OR_RETURN(std::string action, StringMember(update, "action", "an update"));
  Json& m = metadata_;
  if (action == "assign-uuid") {
    MINK_ASSIGN_OR_RETURN(std::string uuid, StringMember(update, "uuid", "assign-uuid"));
    if (m.contains("table-uuid") && m.at("table-uuid") != uuid) {
      return InvalidArgumentError("assign-uuid: the table's uuid is " + m.at("table-uuid").get<std::string>() +
                                  "; it cannot change");
    }
    m["table-uuid"] = uuid;
    return Status::Ok();
  }
  if (action == "upgrade-format-version") {
    MINK_ASSIGN_OR_RETURN(int64_t version, IntMember(update, "format-version", action.c_str()));
    if (version < IntOr(m, "format-version", 1)) {
      return InvalidArgumentError("upgrade-format-version: cannot downgrade to " + std::to_string(version));
    }
    if (version > 2) {
      return UnimplementedError("upgrade-format-version " + std::to_string(version) +
                                ": this catalog keeps format version 2 tables");
    }
    m["format-version"] = version;
    return Status::Ok();
  }
  if (action == "add-schema") return AddSchema(update);
  if (action == "set-current-schema") {
    MINK_ASSIGN_OR_RETURN(int64_t id, IntMember(update, "schema-id", action.c_str()));
    MINK_ASSIGN_OR_RETURN(id, Resolve(id, last_schema_, "set-current-schema"));
    if (!HasId(m.value("schemas", Json::array()), "schema-id", id)) {
      return InvalidArgumentError("set-current-schema: there is no schema " + std::to_string(id));
    }
    m["current-schema-id"] = id;
    return Status::Ok();
  }
  if (action == "add-spec") return AddSpec(update);
  if (action == "set-default-spec") {
    MINK_ASSIGN_OR_RETURN(int64_t id, IntMember(update, "spec-id", action.c_str()));
    MINK_ASSIGN_OR_RETURN(id, Resolve(id, last_spec_, "set-default-spec"));
    if (!HasId(m.value("partition-specs", Json::array()), "spec-id", id)) {
      return InvalidArgumentError("set-default-spec: there is no partition spec " + std::to_string(id));
    }
    m["default-spec-id"] = id;
    return Status::Ok();
  }
  if (action == "add-sort-order") return AddSortOrder(update);
  if (action == "set-default-sort-order") {
    MINK_ASSIGN_OR_RETURN(int64_t id, IntMember(update, "sort-order-id", action.c_str()));
    MINK_ASSIGN_OR_RETURN(id, Resolve(id, last_order_, "set-default-sort-order"));
    if (!HasId(m.value("sort-orders", Json::array()), "order-id", id)) {
      return InvalidArgumentError("set-default-sort-order: there is no sort order " + std::to_string(id));
    }
    m["default-sort-order-id"] = id;
    return Status::Ok();
  }
  if (action == "add-snapshot") return AddSnapshot(update);
  if (action == "set-snapshot-ref") return SetRef(update);
  if (action == "remove-snapshots") return RemoveSnapshots(update);
  if (action == "remove-snapshot-ref") {
    MINK_ASSIGN_OR_RETURN(std::string ref, StringMember(update, "ref-name", action.c_str()));
    if (m.contains("refs")) m["refs"].erase(ref);
    if (ref == "main") m["current-snapshot-id"] = -1;
    return Status::Ok();
  }
  if (action == "set-location") {
    MINK_ASSIGN_OR_RETURN(std::string location, StringMember(update, "location", action.c_str()));
    m["location"] = location;
    return Status::Ok();
  }
  if (action == "set-properties") {
    MINK_ASSIGN_OR_RETURN(const Json* updates, Member(update, "updates", action.c_str()));
    if (!updates->is_object()) return InvalidArgumentError("set-properties: updates is not an object");
    Json& properties = m["properties"];
    if (!properties.is_object()) properties = Json::object();
    for (const auto& [k, v] : updates->items()) {
      if (!v.is_string()) return InvalidArgumentError("set-properties: the value of " + k + " is not a string");
      properties[k] = v;
    }
    return Status::Ok();
  }
  if (action == "remove-properties") {
    MINK_ASSIGN_OR_RETURN(const Json* removals, Member(update, "removals", action.c_str()));
    if (m.contains("properties")) {
      for (const auto& k : *removals) {
        if (k.is_string()) m["properties"].erase(k.get<std::string>());
      }
    }
    return Status::Ok();
  }
  if (action == "set-statistics" || action == "set-partition-statistics") {
    const char* list = action == "set-statistics" ? "statistics" : "partition-statistics";
    const char* member = action == "set-statistics" ? "statistics" : "partition-statistics";
    MINK_ASSIGN_OR_RETURN(const Json* file, Member(update, member, action.c_str()));
    MINK_ASSIGN_OR_RETURN(int64_t snapshot, IntMember(*file, "snapshot-id", action.c_str()));
    Json& entries = ArrayAt(m, list);
    EraseIf(entries, [&](const Json& e) { return IntOr(e, "snapshot-id", -1) == snapshot; });
    entries.push_back(*file);
    return Status::Ok();
  }
  if (action == "remove-statistics" || action == "remove-partition-statistics") {
    const char* list = action == "remove-statistics" ? "statistics" : "partition-statistics";
    MINK_ASSIGN_OR_RETURN(int64_t snapshot, IntMember(update, "snapshot-id", action.c_str()));
    Json& entries = ArrayAt(m, list);
    EraseIf(entries, [&](const Json& e) { return IntOr(e, "snapshot-id", -1) == snapshot; });
    return Status::Ok();
  }
  if (action == "remove-partition-specs" || action == "remove-schemas") {
    const bool specs = action == "remove-partition-specs";
    const char* list = specs ? "partition-specs" : "schemas";
    const char* id_name = specs ? "spec-id" : "schema-id";
    const char* current = specs ? "default-spec-id" : "current-schema-id";
    MINK_ASSIGN_OR_RETURN(const Json* ids, Member(update, specs ? "spec-ids" : "schema-ids", action.c_str()));
    for (const auto& id : *ids) {
      if (id == m.value(current, Json())) {
        return InvalidArgumentError(action + ": cannot remove the current one (" + id.dump() + ")");
      }
    }
    Json& entries = ArrayAt(m, list);
    EraseIf(entries, [&](const Json& e) {
      return std::find(ids->begin(), ids->end(), e.value(id_name, Json())) != ids->end();
    });
    return Status::Ok();
  }
  return UnimplementedError("update action " + action + " is not supported by this catalog");
}

Status MetadataUpdater::AddSchema(const Json& update) {
  MINK_ASSIGN_OR_RETURN(const Json* given, Member(update, "schema", "add-schema"));
  Json schema = *given;
  MINK_RETURN_IF_ERROR(CheckSchema(schema));
  schema["type"] = "struct";
  Json& schemas = ArrayAt(metadata_, "schemas");
  for (const auto& s : schemas) {
    if (SameSchema(s, schema)) {  // an equal schema is reused, as Java's catalogs do
      last_schema_ = static_cast<int32_t>(IntOr(s, "schema-id", 0));
      return Status::Ok();
    }
  }
  int64_t id = IntOr(schema, "schema-id", -1);
  if (id < 0 || HasId(schemas, "schema-id", id)) id = NextId(schemas, "schema-id");
  schema["schema-id"] = id;
  const int64_t last_column = std::max<int64_t>(
      {IntOr(metadata_, "last-column-id", 0), IntOr(update, "last-column-id", 0), MaxFieldId(schema)});
  metadata_["last-column-id"] = last_column;
  schemas.push_back(std::move(schema));
  last_schema_ = static_cast<int32_t>(id);
  return Status::Ok();
}

Status MetadataUpdater::AddSpec(const Json& update) {
  MINK_ASSIGN_OR_RETURN(const Json* given, Member(update, "spec", "add-spec"));
  int32_t last = static_cast<int32_t>(IntOr(metadata_, "last-partition-id", kFirstPartitionFieldId - 1));
  MINK_ASSIGN_OR_RETURN(Json fields, SpecFields(*given, &last));
  Json& specs = ArrayAt(metadata_, "partition-specs");
  for (const auto& s : specs) {
    if (s.value("fields", Json::array()) == fields) {
      last_spec_ = static_cast<int32_t>(IntOr(s, "spec-id", 0));
      return Status::Ok();
    }
  }
  int64_t id = IntOr(*given, "spec-id", -1);
  if (id < 0 || HasId(specs, "spec-id", id)) id = NextId(specs, "spec-id");
  specs.push_back(Json{{"spec-id", id}, {"fields", fields}});
  metadata_["last-partition-id"] = last;
  last_spec_ = static_cast<int32_t>(id);
  return Status::Ok();
}

Status MetadataUpdater::AddSortOrder(const Json& update) {
  MINK_ASSIGN_OR_RETURN(const Json* given, Member(update, "sort-order", "add-sort-order"));
  const Json fields = given->value("fields", Json::array());
  Json& orders = ArrayAt(metadata_, "sort-orders");
  for (const auto& o : orders) {
    if (o.value("fields", Json::array()) == fields) {
      last_order_ = static_cast<int32_t>(IntOr(o, "order-id", 0));
      return Status::Ok();
    }
  }
  int64_t id = fields.empty() ? 0 : std::max<int64_t>(1, NextId(orders, "order-id"));
  orders.push_back(Json{{"order-id", id}, {"fields", fields}});
  last_order_ = static_cast<int32_t>(id);
  return Status::Ok();
}

Status MetadataUpdater::AddSnapshot(const Json& update) {
  MINK_ASSIGN_OR_RETURN(const Json* given, Member(update, "snapshot", "add-snapshot"));
  const Json& snapshot = *given;
  MINK_ASSIGN_OR_RETURN(int64_t id, IntMember(snapshot, "snapshot-id", "add-snapshot's snapshot"));
  MINK_ASSIGN_OR_RETURN(int64_t ts, IntMember(snapshot, "timestamp-ms", "add-snapshot's snapshot"));
  MINK_RETURN_IF_ERROR(StringMember(snapshot, "manifest-list", "add-snapshot's snapshot").status());
  if (!snapshot.contains("summary") || !snapshot.at("summary").is_object() ||
      !snapshot.at("summary").contains("operation")) {
    return InvalidArgumentError("add-snapshot: the snapshot's summary has no operation");
  }
  Json& snapshots = ArrayAt(metadata_, "snapshots");
  if (HasId(snapshots, "snapshot-id", id)) {
    return InvalidArgumentError("add-snapshot: snapshot " + std::to_string(id) + " already exists");
  }
  const int64_t last_sequence = IntOr(metadata_, "last-sequence-number", 0);
  const int64_t sequence = IntOr(snapshot, "sequence-number", 0);
  if (IntOr(metadata_, "format-version", 2) >= 2 && sequence <= last_sequence && last_sequence > 0) {
    return InvalidArgumentError("add-snapshot: sequence number " + std::to_string(sequence) +
                                " is not after the table's last, " + std::to_string(last_sequence));
  }
  metadata_["last-sequence-number"] = std::max(last_sequence, sequence);
  metadata_["last-updated-ms"] = std::max(IntOr(metadata_, "last-updated-ms", 0), ts);
  snapshots.push_back(snapshot);
  return Status::Ok();
}

Status MetadataUpdater::SetRef(const Json& update) {
  MINK_ASSIGN_OR_RETURN(std::string ref, StringMember(update, "ref-name", "set-snapshot-ref"));
  MINK_ASSIGN_OR_RETURN(int64_t id, IntMember(update, "snapshot-id", "set-snapshot-ref"));
  MINK_ASSIGN_OR_RETURN(std::string type, StringMember(update, "type", "set-snapshot-ref"));
  if (type != "branch" && type != "tag") {
    return InvalidArgumentError("set-snapshot-ref: type is branch or tag, not " + type);
  }
  const Json snapshots = metadata_.value("snapshots", Json::array());
  auto snapshot = std::find_if(snapshots.begin(), snapshots.end(),
                               [&](const Json& s) { return IntOr(s, "snapshot-id", -1) == id; });
  if (snapshot == snapshots.end()) {
    return InvalidArgumentError("set-snapshot-ref: there is no snapshot " + std::to_string(id));
  }
  Json value{{"snapshot-id", id}, {"type", type}};
  for (const char* k : {"max-ref-age-ms", "max-snapshot-age-ms", "min-snapshots-to-keep"}) {
    if (update.contains(k) && !update.at(k).is_null()) value[k] = update.at(k);
  }
  Json& refs = metadata_["refs"];
  if (!refs.is_object()) refs = Json::object();
  refs[ref] = value;
  if (ref == "main") {
    metadata_["current-snapshot-id"] = id;
    ArrayAt(metadata_, "snapshot-log")
        .push_back(Json{{"timestamp-ms", IntOr(*snapshot, "timestamp-ms", 0)}, {"snapshot-id", id}});
  }
  return Status::Ok();
}

Status MetadataUpdater::RemoveSnapshots(const Json& update) {
  MINK_ASSIGN_OR_RETURN(const Json* ids, Member(update, "snapshot-ids", "remove-snapshots"));
  std::set<int64_t> gone;
  for (const auto& id : *ids) {
    if (id.is_number_integer()) gone.insert(id.get<int64_t>());
  }
  EraseIf(ArrayAt(metadata_, "snapshots"),
                [&](const Json& s) { return gone.count(IntOr(s, "snapshot-id", -1)) > 0; });
  EraseIf(ArrayAt(metadata_, "snapshot-log"),
                [&](const Json& s) { return gone.count(IntOr(s, "snapshot-id", -1)) > 0; });
  if (metadata_.contains("refs")) {
    for (auto it = metadata_["refs"].begin(); it != metadata_["refs"].end();) {
      if (gone.count(IntOr(it.value(), "snapshot-id", -1))) {
        it = metadata_["refs"].erase(it);
      } else {
        ++it;
      }
    }
  }
  if (gone.count(IntOr(metadata_, "current-snapshot-id", -1))) metadata_["current-snapshot-id"] = -1;
  return Status::Ok();
}

Result<Json> MetadataUpdater::Finish(const std::string& previous_location, int64_t previous_updated_ms,
                                     int64_t now_ms) {
  return Guarded("the table metadata", [&]() -> Result<Json> { return FinishUnguarded(previous_location, previous_updated_ms, now_ms); });
}

Result<Json> MetadataUpdater::FinishUnguarded(const std::string& previous_location, int64_t previous_updated_ms,
                                              int64_t now_ms) {
  Json& m = metadata_;
  for (const char* required : {"table-uuid", "location", "schemas", "partition-specs"}) {
    if (!m.contains(required)) {
      return InvalidArgumentError(std::string("the table metadata has no ") + required +
                                  " after the updates (a new table needs assign-uuid, set-location, "
                                  "add-schema and add-spec)");
    }
  }
  if (!m.at("location").is_string()) return InvalidArgumentError("the table metadata's location is not a string");
  if (!HasId(m.at("schemas"), "schema-id", IntOr(m, "current-schema-id", -1))) {
    return InvalidArgumentError("the table metadata's current schema is not one of its schemas");
  }
  if (!HasId(m.at("partition-specs"), "spec-id", IntOr(m, "default-spec-id", -1))) {
    return InvalidArgumentError("the table metadata's default partition spec is not one of its specs");
  }
  if (!m.contains("sort-orders")) m["sort-orders"] = Json::array({Json{{"order-id", 0}, {"fields", Json::array()}}});
  if (!m.contains("default-sort-order-id")) m["default-sort-order-id"] = 0;
  for (const char* list : {"snapshots", "snapshot-log", "metadata-log", "statistics", "partition-statistics"}) {
    ArrayAt(m, list);
  }
  if (!m.contains("refs")) m["refs"] = Json::object();
  if (!m.contains("properties")) m["properties"] = Json::object();
  if (!m.contains("current-snapshot-id")) m["current-snapshot-id"] = -1;
  if (!m.contains("last-sequence-number")) m["last-sequence-number"] = 0;
  if (!m.contains("last-partition-id")) m["last-partition-id"] = kFirstPartitionFieldId - 1;
  if (!m.contains("last-column-id")) m["last-column-id"] = 0;
  if (changed_) {
    if (!previous_location.empty()) {
      m["metadata-log"].push_back(Json{{"timestamp-ms", previous_updated_ms}, {"metadata-file", previous_location}});
    }
    m["last-updated-ms"] = std::max(now_ms, IntOr(m, "last-updated-ms", 0));
  }
  return m;
}

}  // namespace mink::lake
