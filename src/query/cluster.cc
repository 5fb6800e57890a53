#include "query/cluster.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "arrow_format/ipc.h"
#include "table/arrow_rows.h"

namespace mink::query {
namespace {

using nlohmann::json;

Result<json> ParseAnswer(const std::string& text, const std::string& what) {
  try {
    return json::parse(text);
  } catch (const std::exception& e) {
    return InternalError("the node answered " + what + " with bad JSON: " + e.what());
  }
}

Result<std::vector<std::string>> StringList(const json& j, const char* key,
                                            const std::string& what) {
  std::vector<std::string> out;
  if (!j.is_object() || !j.contains(key)) return out;
  const json& list = j[key];
  if (!list.is_array()) return InternalError("the node's " + what + " answer has no list");
  for (const auto& item : list) {
    if (!item.is_string()) return InternalError("the node's " + what + " answer has a non-string");
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<Cluster>> Cluster::Connect(const std::string& bootstrap) {
  MINK_ASSIGN_OR_RETURN(std::string address, flight::ParseFlightAddress(bootstrap));
  (void)address;
  return std::shared_ptr<Cluster>(new Cluster(bootstrap));
}

Result<std::shared_ptr<flight::FlightClient>> Cluster::ClientFor(const std::string& location) {
  const std::string& target = location.empty() ? bootstrap_ : location;
  MINK_ASSIGN_OR_RETURN(std::string address, flight::ParseFlightAddress(target));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = clients_.find(address);
  if (it != clients_.end()) return it->second;
  flight::FlightClientOptions options;
  options.connect_timeout = std::chrono::milliseconds(0);  // lazily; calls report failures
  MINK_ASSIGN_OR_RETURN(std::unique_ptr<flight::FlightClient> client,
                        flight::FlightClient::Connect(address, options));
  std::shared_ptr<flight::FlightClient> shared = std::move(client);
  clients_[address] = shared;
  return shared;
}

Result<std::string> Cluster::Action(const std::string& type, const std::string& body) {
  MINK_ASSIGN_OR_RETURN(auto client, ClientFor(""));
  auto results = client->DoAction(flight::Action{type, body});
  if (!results.ok()) {
    if (results.status().code() == StatusCode::kUnavailable) {
      return UnavailableError("cannot reach node at " + bootstrap_ + ": " +
                              results.status().message());
    }
    return results.status();
  }
  if (results->empty()) return std::string("{}");
  return std::move((*results)[0].body);
}

Result<std::vector<std::string>> Cluster::ListDatabases() {
  MINK_ASSIGN_OR_RETURN(std::string body, Action("list-databases", "{}"));
  MINK_ASSIGN_OR_RETURN(json j, ParseAnswer(body, "list-databases"));
  MINK_ASSIGN_OR_RETURN(auto names, StringList(j, "databases", "list-databases"));
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::vector<std::string>> Cluster::ListTables(const std::string& database) {
  MINK_ASSIGN_OR_RETURN(std::string body, Action("list-tables", json{{"database", database}}.dump()));
  MINK_ASSIGN_OR_RETURN(json j, ParseAnswer(body, "list-tables"));
  MINK_ASSIGN_OR_RETURN(auto names, StringList(j, "tables", "list-tables"));
  std::vector<std::string> out;
  const std::string prefix = database + ".";
  for (auto& name : names) {
    if (name.rfind(prefix, 0) == 0) out.push_back(name.substr(prefix.size()));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::shared_ptr<const TableMeta>> Cluster::DescribeTable(const std::string& database,
                                                                const std::string& table) {
  auto body = Action("describe-table", json{{"table", database + "." + table}}.dump());
  if (!body.ok()) {
    if (body.status().code() == StatusCode::kNotFound) return std::shared_ptr<const TableMeta>();
    return body.status();
  }
  auto meta = std::make_shared<TableMeta>();
  meta->database = database;
  meta->table = table;
  MINK_ASSIGN_OR_RETURN(meta->description, cli::ParseTableDescription(*body));
  table::TableSchema schema;
  for (const auto& c : meta->description.columns) {
    schema.columns.push_back(table::Column{c.name, c.type, c.not_null});
  }
  meta->schema = table::ToArrowSchema(schema);
  return std::shared_ptr<const TableMeta>(std::move(meta));
}

Result<std::vector<Endpoint>> Cluster::Endpoints(const std::string& database,
                                                 const std::string& table) {
  MINK_ASSIGN_OR_RETURN(auto client, ClientFor(""));
  MINK_ASSIGN_OR_RETURN(flight::FlightInfo info,
                        client->GetFlightInfo(flight::FlightDescriptor::Path({database, table})));
  std::vector<Endpoint> out;
  for (const auto& e : info.endpoints) {
    MINK_ASSIGN_OR_RETURN(json ticket, ParseAnswer(e.ticket, "GetFlightInfo (ticket)"));
    Endpoint endpoint;
    if (ticket.contains("partition") && ticket["partition"].is_string()) {
      endpoint.partition = ticket["partition"].get<std::string>();
    }
    if (ticket.contains("bucket") && ticket["bucket"].is_number_integer()) {
      endpoint.bucket = ticket["bucket"].get<int32_t>();
    }
    if (!e.locations.empty()) endpoint.location = e.locations[0];
    out.push_back(std::move(endpoint));
  }
  return out;
}

Result<std::vector<BucketStats>> Cluster::ColumnStats(const std::string& database,
                                                      const std::string& table) {
  MINK_ASSIGN_OR_RETURN(std::string body,
                        Action("column-stats", json{{"table", database + "." + table}}.dump()));
  MINK_ASSIGN_OR_RETURN(json j, ParseAnswer(body, "column-stats"));
  const std::string bad = "the node's column-stats answer is malformed";
  if (!j.is_object() || !j.contains("buckets") || !j["buckets"].is_array()) {
    return InternalError(bad);
  }
  auto integer = [](const json& o, const char* key) {
    return o.contains(key) && o[key].is_number_integer();
  };
  std::vector<BucketStats> out;
  for (const auto& b : j["buckets"]) {
    if (!b.is_object() || !integer(b, "bucket") || !integer(b, "end") || !integer(b, "rows") ||
        !b.contains("columns") || !b["columns"].is_array()) {
      return InternalError(bad);
    }
    BucketStats stats;
    if (b.contains("partition")) {
      if (!b["partition"].is_string()) return InternalError(bad);
      stats.partition = b["partition"].get<std::string>();
    }
    stats.bucket = b["bucket"].get<int32_t>();
    stats.end = b["end"].get<int64_t>();
    stats.rows = b["rows"].get<int64_t>();
    for (const auto& c : b["columns"]) {
      if (!c.is_object() || !c.contains("name") || !c["name"].is_string() || !integer(c, "nulls")) {
        return InternalError(bad);
      }
      ColumnRange range;
      range.nulls = c["nulls"].get<int64_t>();
      if (integer(c, "min") && integer(c, "max")) {
        range.min = c["min"].get<int64_t>();
        range.max = c["max"].get<int64_t>();
      }
      stats.columns[c["name"].get<std::string>()] = range;
    }
    out.push_back(std::move(stats));
  }
  return out;
}

std::string EncodeTicket(const ScanTicket& t) {
  json j = {{"table", t.table}, {"mode", t.snapshot ? "snapshot" : "log"}, {"bucket", t.bucket}};
  if (t.partition) j["partition"] = *t.partition;
  if (t.end) j["end"] = *t.end;
  if (t.compressed) j["compressed"] = true;
  if (!t.columns.empty()) j["columns"] = t.columns;
  return j.dump();
}

}  // namespace mink::query
