#include "node/console_endpoint.h"

#include <map>
#include <nlohmann/json.hpp>

#include "arrow_json/arrow_to_json.h"
#include "client/flight_sql.h"

namespace mink::node {
namespace {

using nlohmann::json;
using auth::Operation;
using auth::Resource;

constexpr int64_t kMaxQueryRows = 1000;

http::ServerResponse Json(int status, const json& body) {
  return http::ServerResponse{status, "application/json", body.dump(-1, ' ', false, json::error_handler_t::replace),
                              {}};
}

}  // namespace

std::optional<http::ServerResponse> ConsoleEndpoint::Handle(const http::ServerRequest& request,
                                                            const std::string& user) const {
  if (request.path == "/console" || request.path == "/console/") {
    if (request.method != "GET" && request.method != "HEAD") return Json(405, {{"error", "GET the console"}});
    return http::ServerResponse{200, "text/html; charset=utf-8", kConsolePage, {{"Cache-Control", "no-cache"}}};
  }
  if (request.path == "/console/api/overview") {
    if (request.method != "GET") return Json(405, {{"error", "GET the overview"}});
    return http::ServerResponse{200, "application/json", Overview(user), {}};
  }
  if (request.path == "/console/api/query") {
    if (request.method != "POST") return Json(405, {{"error", "POST {\"sql\": \"...\"}"}});
    return Query(request);
  }
  if (request.path.rfind("/console/", 0) == 0) return Json(404, {{"error", "not found"}});
  return std::nullopt;
}

std::string ConsoleEndpoint::Overview(const std::string& user) const {
  json nodes = json::array();
  if (s_.membership != nullptr && May(user, Resource::Cluster(), Operation::kDescribe)) {
    if (auto members = s_.membership->Members(); members.ok()) {
      const auto owned = s_.tables->BucketsPerNode();
      for (const auto& m : *members) {
        auto buckets = owned.find(m.node_id);
        nodes.push_back({{"node", m.node_id}, {"flight", m.flight_address}, {"kafka", m.kafka_address},
                         {"live", m.live}, {"coordinator", m.coordinator},
                         {"buckets", buckets == owned.end() ? 0 : buckets->second}});
      }
    }
  }
  json databases = json::array();
  std::map<std::string, std::map<std::string, int64_t>> ends;  // table -> bucket label -> end
  for (const std::string& db : s_.tables->ListDatabases()) {
    json tables = json::array();
    auto names = s_.tables->ListTables(db);
    for (const std::string& name : names.ok() ? *names : std::vector<std::string>{}) {
      if (!May(user, Resource::Table(name), Operation::kDescribe)) continue;
      auto info = s_.tables->DescribeTable(name);
      auto offsets = s_.tables->Offsets(name, std::nullopt);
      if (!info.ok() || !offsets.ok()) continue;  // dropped meanwhile
      json buckets = json::array();
      for (const auto& o : *offsets) {
        buckets.push_back({{"bucket", o.bucket}, {"owner", o.owner}, {"start", o.start}, {"end", o.end}});
        ends[name][o.bucket] = o.end;
      }
      json t = {{"table", name},
                {"kind", info->descriptor.has_primary_key() ? "primary key table" : "log table"},
                {"buckets", buckets},
                {"lake", nullptr}};
      if (info->descriptor.lake_enabled) {
        if (auto lake = s_.tables->LakeSnapshot(name); lake.ok()) {
          t["lake"] = {{"snapshot_id", lake->snapshot_id}, {"timestamp_ms", lake->timestamp_ms}};
        }
      }
      tables.push_back(std::move(t));
    }
    const bool visible = !tables.empty() || May(user, Resource::Database(db), Operation::kDescribe);
    if (visible) databases.push_back({{"name", db}, {"tables", tables}});
  }
  json groups = json::array();
  if (s_.group_offsets != nullptr) {
    auto ids = s_.group_offsets->ListOffsetGroups();
    for (const std::string& group : ids.ok() ? *ids : std::vector<std::string>{}) {
      if (!May(user, Resource::Group(group), Operation::kDescribe)) continue;
      auto offsets = s_.group_offsets->ListGroupOffsets(group);
      if (!offsets.ok()) continue;
      json partitions = json::array();
      for (const auto& o : *offsets) {
        const std::string table = "kafka." + o.topic;
        if (!May(user, Resource::Table(table), Operation::kDescribe)) continue;
        std::optional<int64_t> end;
        if (auto t = ends.find(table); t != ends.end()) {
          if (auto b = t->second.find("b" + std::to_string(o.partition)); b != t->second.end()) end = b->second;
        }
        partitions.push_back({{"topic", o.topic}, {"partition", o.partition}, {"committed", o.offset},
                              {"end", end ? json(*end) : json(nullptr)},
                              {"lag", end && o.offset >= 0 ? json(std::max<int64_t>(0, *end - o.offset)) : json(nullptr)}});
      }
      groups.push_back({{"group", group}, {"partitions", partitions}});
    }
  }
  return json{{"nodes", nodes},
              {"databases", databases},
              {"groups", groups},
              {"query", s_.query_address.empty() ? json(nullptr) : json(s_.query_address)}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

http::ServerResponse ConsoleEndpoint::Query(const http::ServerRequest& request) const {
  if (s_.query_address.empty()) {
    return Json(503, {{"error", "no mink-query is configured for the console: start the node with --console-query "
                                "grpc://host:port (mink-query serve's Flight SQL address)"}});
  }
  const json body = json::parse(request.body, nullptr, false);
  if (!body.is_object() || !body.contains("sql") || !body["sql"].is_string()) {
    return Json(400, {{"error", "the body is JSON {\"sql\": \"...\"}"}});
  }
  // The statement goes to mink-query as the browser's user (their authorization header), so it
  // reads what that user may read and nothing more.
  flight::FlightClientOptions options = s_.query_options;
  options.headers.clear();
  if (const std::string authorization = request.Header("authorization"); !authorization.empty()) {
    options.headers.emplace_back("authorization", authorization);
  }
  auto answer = client::RunFlightSql(s_.query_address, body["sql"].get<std::string>(), options, kMaxQueryRows);
  if (!answer.ok()) return Json(400, {{"error", answer.status().message()}});
  json columns = json::array();
  if (answer->schema != nullptr) {
    for (const auto& field : answer->schema->fields()) columns.push_back(field.name());
  }
  std::string rows = "[";
  int64_t count = 0;
  for (const auto& batch : answer->batches) {
    auto formatter = arrow_json::RowFormatter::Make(*batch, /*quote_wide_integers=*/true);
    if (!formatter.ok()) return Json(500, {{"error", formatter.status().message()}});
    for (int64_t r = 0; r < batch->num_rows() && count < kMaxQueryRows; ++r, ++count) {
      if (count > 0) rows += ',';
      formatter->AppendJsonRow(r, &rows);
    }
  }
  rows += ']';
  json out = {{"columns", columns}, {"truncated", answer->truncated || count >= kMaxQueryRows}};
  std::string text = out.dump(-1, ' ', false, json::error_handler_t::replace);
  text.pop_back();  // the rows are JSON already: spliced in rather than parsed again
  return http::ServerResponse{200, "application/json", text + ",\"rows\":" + rows + "}", {}};
}

}  // namespace mink::node
