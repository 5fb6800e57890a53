#include "client/cluster.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "client/action.h"
#include "table/arrow_rows.h"

namespace mink::client {
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

Result<std::shared_ptr<Cluster>> Cluster::Connect(const std::string& bootstrap,
                                                  std::optional<std::string> authorization) {
  MINK_ASSIGN_OR_RETURN(std::string address, flight::ParseFlightAddress(bootstrap));
  (void)address;
  return std::shared_ptr<Cluster>(new Cluster(bootstrap, std::move(authorization)));
}

Result<std::shared_ptr<flight::FlightClient>> Cluster::ClientFor(const std::string& location) {
  const std::string& target = location.empty() ? bootstrap_ : location;
  MINK_ASSIGN_OR_RETURN(std::string address, flight::ParseFlightAddress(target));
  std::lock_guard<std::mutex> lock(mu_);
  auto it = clients_.find(address);
  if (it != clients_.end()) return it->second;
  flight::FlightClientOptions options;
  options.connect_timeout = std::chrono::milliseconds(0);  // lazily; calls report failures
  MINK_RETURN_IF_ERROR(ApplyEnvironment(&options));
  if (authorization_) {
    options.headers.clear();
    if (!authorization_->empty()) options.headers.emplace_back("authorization", *authorization_);
  }
  MINK_ASSIGN_OR_RETURN(std::unique_ptr<flight::FlightClient> client, flight::FlightClient::Connect(target, options));
  std::shared_ptr<flight::FlightClient> shared = std::move(client);
  clients_[address] = shared;
  return shared;
}

Status Cluster::AlterTable(const json& body) { return Action("alter-table", body).status(); }

Result<json> Cluster::Action(const std::string& type, const json& body) {
  MINK_ASSIGN_OR_RETURN(auto client, ClientFor(""));
  auto answer = RunAction(*client, type, body);
  if (!answer.ok() && answer.status().code() == StatusCode::kUnavailable) {
    return UnavailableError("cannot reach node at " + bootstrap_ + ": " +
                            answer.status().message());
  }
  return answer;
}

Result<json> Cluster::ContinuousSql(const std::string& sql) {
  MINK_ASSIGN_OR_RETURN(json j, Action("continuous-sql", json{{"sql", sql}}));
  return j.value("results", json::array());
}

Result<std::vector<std::string>> Cluster::ListDatabases() {
  MINK_ASSIGN_OR_RETURN(json j, Action("list-databases", json::object()));
  MINK_ASSIGN_OR_RETURN(auto names, StringList(j, "databases", "list-databases"));
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::vector<std::string>> Cluster::ListTables(const std::string& database) {
  MINK_ASSIGN_OR_RETURN(json j, Action("list-tables", json{{"database", database}}));
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
  auto answer = Action("describe-table", json{{"table", database + "." + table}});
  if (!answer.ok()) {
    if (answer.status().code() == StatusCode::kNotFound) return std::shared_ptr<const TableMeta>();
    return answer.status();
  }
  auto meta = std::make_shared<TableMeta>();
  meta->database = database;
  meta->table = table;
  MINK_ASSIGN_OR_RETURN(meta->description, ParseTableDescription(*answer));
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

Result<std::vector<table::BucketColumnStats>> Cluster::ColumnStats(const std::string& database,
                                                                   const std::string& table) {
  MINK_ASSIGN_OR_RETURN(json j, Action("column-stats", json{{"table", database + "." + table}}));
  return ParseColumnStats(j);
}

std::string EncodeTicket(const ScanTicket& t) {
  json j = {{"table", t.table},
            {"mode", t.lake ? "union" : t.snapshot ? "snapshot" : "log"},
            {"bucket", t.bucket}};
  if (t.partition) j["partition"] = *t.partition;
  if (t.end && !t.lake) j["end"] = *t.end;
  if (t.compressed && !t.lake) j["compressed"] = true;
  if (!t.columns.empty()) j["columns"] = t.columns;
  if (t.lake && !t.lake_filters.empty()) {
    json filters = json::array();
    for (const auto& f : t.lake_filters) filters.push_back({{"column", f.column}, {"op", f.op}, {"values", f.values}});
    j["lake_filters"] = std::move(filters);
  }
  return j.dump();
}

Result<std::vector<table::BucketColumnStats>> ParseColumnStats(const json& j) {
  const std::string bad = "the node's column-stats answer is malformed";
  if (!j.is_object() || !j.contains("buckets") || !j["buckets"].is_array()) {
    return InternalError(bad);
  }
  auto integer = [](const json& o, const char* key) {
    return o.contains(key) && o[key].is_number_integer();
  };
  std::vector<table::BucketColumnStats> out;
  for (const auto& b : j["buckets"]) {
    if (!b.is_object() || !integer(b, "bucket") || !integer(b, "end") || !integer(b, "rows") ||
        !b.contains("columns") || !b["columns"].is_array()) {
      return InternalError(bad);
    }
    table::BucketColumnStats stats;
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
      table::ColumnRange range;
      range.column = c["name"].get<std::string>();
      range.null_count = c["nulls"].get<int64_t>();
      range.has_values = integer(c, "min") && integer(c, "max");
      if (range.has_values) {
        range.min = c["min"].get<int64_t>();
        range.max = c["max"].get<int64_t>();
      }
      stats.columns.push_back(std::move(range));
    }
    out.push_back(std::move(stats));
  }
  return out;
}

}  // namespace mink::client
