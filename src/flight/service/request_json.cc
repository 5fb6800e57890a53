#include "flight/service/request_json.h"

#include <limits>

namespace mink::flight {

using nlohmann::json;

Result<json> ParseJsonObject(std::string_view text, const std::string& what) {
  try {
    json j = json::parse(text.empty() ? std::string_view("{}") : text);
    if (!j.is_object()) return InvalidArgumentError(what + " must be a JSON object");
    return j;
  } catch (const json::exception& e) {
    return InvalidArgumentError(what + " is not valid JSON: " + e.what());
  }
}

const json* JsonFields::Member(const char* name) const {
  if (!j_.is_object()) return nullptr;
  auto it = j_.find(name);
  return it == j_.end() || it->is_null() ? nullptr : &*it;
}

bool JsonFields::Has(const char* name) const { return Member(name) != nullptr; }

Result<std::string> JsonFields::String(const char* name, bool required) const {
  const json* v = Member(name);
  if (v == nullptr) {
    if (required) return InvalidArgumentError(what_ + ": missing \"" + name + "\"");
    return std::string();
  }
  if (!v->is_string()) return InvalidArgumentError(what_ + ": \"" + name + "\" must be a string");
  return v->get<std::string>();
}

Result<std::vector<std::string>> JsonFields::Strings(const char* name) const {
  std::vector<std::string> out;
  const json* v = Member(name);
  if (v == nullptr) return out;
  if (!v->is_array()) return InvalidArgumentError(what_ + ": \"" + name + "\" must be an array of strings");
  for (const auto& item : *v) {
    if (!item.is_string()) return InvalidArgumentError(what_ + ": \"" + name + "\" must be an array of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

Result<int64_t> JsonFields::Int(const char* name, int64_t fallback) const {
  const json* v = Member(name);
  if (v == nullptr) return fallback;
  // An unsigned above int64's range is stored as such: refused, not wrapped to a negative.
  if (!v->is_number_integer() || (v->is_number_unsigned() && v->get<uint64_t>() > uint64_t{INT64_MAX})) {
    return InvalidArgumentError(what_ + ": \"" + name + "\" must be an integer");
  }
  return v->get<int64_t>();
}

Result<int32_t> JsonFields::Int32(const char* name, int32_t fallback) const {
  MINK_ASSIGN_OR_RETURN(int64_t v, Int(name, fallback));
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return InvalidArgumentError(what_ + ": \"" + name + "\" is out of range: " + std::to_string(v));
  }
  return static_cast<int32_t>(v);
}

Result<bool> JsonFields::Bool(const char* name) const {
  const json* v = Member(name);
  if (v == nullptr) return false;
  if (!v->is_boolean()) return InvalidArgumentError(what_ + ": \"" + name + "\" must be true or false");
  return v->get<bool>();
}

Result<std::map<std::string, std::string>> JsonFields::StringMap(const char* name) const {
  std::map<std::string, std::string> out;
  const json* v = Member(name);
  if (v == nullptr) return out;
  if (!v->is_object()) return InvalidArgumentError(what_ + ": \"" + name + "\" must be an object");
  for (const auto& [k, value] : v->items()) {
    if (!value.is_string()) return InvalidArgumentError(what_ + ": " + name + " '" + k + "' must be a string");
    out[k] = value.get<std::string>();
  }
  return out;
}

Result<table::ReadRequest> ParseTicket(std::string_view ticket) {
  MINK_ASSIGN_OR_RETURN(json j, ParseJsonObject(ticket, "ticket"));
  JsonFields f(j, "ticket");
  table::ReadRequest r;
  MINK_ASSIGN_OR_RETURN(r.table, f.String("table"));
  MINK_ASSIGN_OR_RETURN(std::string mode, f.String("mode", false));
  if (mode.empty() || mode == "log") r.mode = table::ReadMode::kLog;
  else if (mode == "snapshot") r.mode = table::ReadMode::kSnapshot;
  else if (mode == "union") r.mode = table::ReadMode::kUnion;
  else return InvalidArgumentError("ticket: mode must be log, snapshot or union, not '" + mode + "'");
  if (f.Has("from") && j["from"].is_number_integer()) {
    MINK_ASSIGN_OR_RETURN(int64_t from, f.Int("from", 0));
    r.from = std::to_string(from);
  } else {
    MINK_ASSIGN_OR_RETURN(std::string from, f.String("from", false));
    if (!from.empty()) r.from = from;
  }
  MINK_ASSIGN_OR_RETURN(r.limit, f.Int("limit", -1));
  if (f.Has("end")) {
    MINK_ASSIGN_OR_RETURN(int64_t end, f.Int("end", 0));
    r.end = end;
  }
  MINK_ASSIGN_OR_RETURN(r.follow, f.Bool("follow"));
  if (f.Has("partition")) {
    MINK_ASSIGN_OR_RETURN(std::string p, f.String("partition"));
    r.partition = p;
  }
  if (f.Has("bucket")) {
    MINK_ASSIGN_OR_RETURN(int32_t b, f.Int32("bucket", 0));
    r.bucket = b;
  }
  MINK_ASSIGN_OR_RETURN(r.columns, f.Strings("columns"));
  MINK_ASSIGN_OR_RETURN(r.meta, f.Bool("meta"));
  MINK_ASSIGN_OR_RETURN(r.timestamp, f.Bool("timestamp"));
  if (f.Has("lake_filters")) {
    if (!j["lake_filters"].is_array()) return InvalidArgumentError("ticket: \"lake_filters\" must be an array");
    for (const auto& item : j["lake_filters"]) {
      if (!item.is_object()) return InvalidArgumentError("ticket: \"lake_filters\" must be an array of objects");
      JsonFields filter(item, "ticket: lake filter");
      table::LakeFilter lf;
      MINK_ASSIGN_OR_RETURN(lf.column, filter.String("column"));
      MINK_ASSIGN_OR_RETURN(lf.op, filter.String("op"));
      MINK_ASSIGN_OR_RETURN(lf.values, filter.Strings("values"));
      r.lake_filters.push_back(std::move(lf));
    }
    if (r.mode != table::ReadMode::kUnion && !r.lake_filters.empty()) {
      return InvalidArgumentError("ticket: \"lake_filters\" apply to union reads only");
    }
  }
  return r;
}

Result<bool> WantsCompressed(std::string_view ticket) {
  MINK_ASSIGN_OR_RETURN(json j, ParseJsonObject(ticket, "ticket"));
  return JsonFields(j, "ticket").Bool("compressed");
}

Result<table::WriteRequest> ParsePutCommand(std::string_view cmd) {
  MINK_ASSIGN_OR_RETURN(json j, ParseJsonObject(cmd, "DoPut descriptor"));
  JsonFields f(j, "DoPut descriptor");
  table::WriteRequest request;
  MINK_ASSIGN_OR_RETURN(request.table, f.String("table"));
  MINK_ASSIGN_OR_RETURN(std::string mode, f.String("mode", false));
  if (mode.empty() || mode == "upsert" || mode == "append") request.mode = table::WriteMode::kUpsert;
  else if (mode == "delete") request.mode = table::WriteMode::kDelete;
  else return InvalidArgumentError("DoPut descriptor: mode must be upsert or delete, not '" + mode + "'");
  MINK_ASSIGN_OR_RETURN(request.columns, f.Strings("columns"));
  MINK_ASSIGN_OR_RETURN(request.writer_id, f.Int("writer_id", -1));
  MINK_ASSIGN_OR_RETURN(request.sequence, f.Int32("sequence", -1));
  MINK_ASSIGN_OR_RETURN(request.forwarded, f.Bool("forwarded"));
  return request;
}

Result<table::LookupRequest> ParseLookupCommand(std::string_view cmd) {
  MINK_ASSIGN_OR_RETURN(json j, ParseJsonObject(cmd, "DoExchange descriptor"));
  JsonFields f(j, "DoExchange descriptor");
  table::LookupRequest request;
  MINK_ASSIGN_OR_RETURN(request.table, f.String("table"));
  MINK_ASSIGN_OR_RETURN(std::string kind, f.String("lookup"));
  if (kind == "prefix") {
    request.prefix = true;
  } else if (kind != "key") {
    return InvalidArgumentError("DoExchange descriptor: lookup must be key or prefix, not '" + kind + "'");
  }
  MINK_ASSIGN_OR_RETURN(request.columns, f.Strings("columns"));
  MINK_ASSIGN_OR_RETURN(request.forwarded, f.Bool("forwarded"));
  return request;
}

Result<table::TableSpec> ParseTableSpec(const json& body, const std::string& what) {
  JsonFields f(body, what);
  table::TableSpec spec;
  MINK_ASSIGN_OR_RETURN(spec.columns, f.Strings("columns"));
  MINK_ASSIGN_OR_RETURN(spec.primary_key, f.Strings("primary_key"));
  MINK_ASSIGN_OR_RETURN(spec.partition_by, f.Strings("partition_by"));
  MINK_ASSIGN_OR_RETURN(spec.bucket_key, f.Strings("bucket_key"));
  MINK_ASSIGN_OR_RETURN(spec.bucket_count, f.Int32("bucket_count", 0));
  MINK_ASSIGN_OR_RETURN(spec.options, f.StringMap("options"));
  return spec;
}

Result<table::TableAlteration> ParseAlteration(const json& body, const std::string& what) {
  JsonFields f(body, what);
  table::TableAlteration change;
  auto array_of_objects = [&](const char* name) -> Result<json> {
    if (!f.Has(name)) return json::array();
    if (!body[name].is_array()) return InvalidArgumentError(what + ": \"" + name + "\" must be an array");
    for (const auto& item : body[name]) {
      if (!item.is_object()) {
        return InvalidArgumentError(what + ": \"" + name + "\" must be an array of objects");
      }
    }
    return body[name];
  };
  MINK_ASSIGN_OR_RETURN(json added, array_of_objects("add_columns"));
  for (const auto& a : added) {
    JsonFields af(a, what + " add_columns");
    table::TableAlteration::AddedColumn column;
    MINK_ASSIGN_OR_RETURN(column.column, af.String("column"));
    MINK_ASSIGN_OR_RETURN(column.after, af.String("after", false));
    change.add_columns.push_back(std::move(column));
  }
  MINK_ASSIGN_OR_RETURN(change.drop_columns, f.Strings("drop_columns"));
  MINK_ASSIGN_OR_RETURN(json renamed, array_of_objects("rename_columns"));
  for (const auto& r : renamed) {
    JsonFields rf(r, what + " rename_columns");
    MINK_ASSIGN_OR_RETURN(std::string from, rf.String("from"));
    MINK_ASSIGN_OR_RETURN(std::string to, rf.String("to"));
    change.rename_columns.emplace_back(std::move(from), std::move(to));
  }
  MINK_ASSIGN_OR_RETURN(change.modify_columns, f.Strings("modify_columns"));
  MINK_ASSIGN_OR_RETURN(change.set_options, f.StringMap("set_options"));
  MINK_ASSIGN_OR_RETURN(change.reset_options, f.Strings("reset_options"));
  return change;
}

}  // namespace mink::flight
