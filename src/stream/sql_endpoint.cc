#include "stream/sql_endpoint.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "arrow_json/arrow_to_json.h"
#include "stream/output_table.h"
#include "stream/subscription.h"

namespace mink::stream {
namespace {

using json = nlohmann::json;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Whether `word` appears in `text` as a whole identifier (case-insensitive).
bool Names(const std::string& text, const std::string& word) {
  const std::string t = Lower(text), w = Lower(word);
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = t.find(w); at != std::string::npos; at = t.find(w, at + 1)) {
    const bool before = at == 0 || !ident(t[at - 1]);
    const bool after = at + w.size() >= t.size() || !ident(t[at + w.size()]);
    if (before && after) return true;
  }
  return false;
}

http::ServerResponse JsonResponse(int status, std::string body) {
  http::ServerResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

}  // namespace

std::string StatementResultJson(const StatementResult& r) {
  json out = {{"result_type", r.result_type}};
  if (!r.object_name.empty()) out["object_name"] = r.object_name;
  if (r.result_type == "metadata") {
    json data = json::array();
    for (const auto& row : r.rows) {
      json o = json::object();
      for (const auto& [k, v] : row) o[k] = v;
      data.push_back(std::move(o));
    }
    out["data"] = std::move(data);
  }
  return out.dump();
}

Result<std::string> SqlEndpoint::Query(const std::string& sql) {
  MINK_ASSIGN_OR_RETURN(auto session, db_->Connect());
  // Reads only: no SET, PRAGMA, COPY, CREATE or ATTACH reaches the node's DuckDB.
  MINK_RETURN_IF_ERROR(session->CheckQueriesOnly(sql));
  MINK_RETURN_IF_ERROR(session->UseTimeZone("UTC"));
  session->SetTimeout(timeout_);
  // The streams and views the query names, as they are now.
  std::vector<std::pair<std::string, std::pair<bool, std::vector<std::string>>>> named;
  meta_->Read([&](const metadata::State& st) {
    for (const auto& [name, o] : st.continuous()) {
      if ((o.kind != "stream" && o.kind != "view") || !Names(sql, name)) continue;
      const json d = json::parse(o.definition, nullptr, false);
      named.push_back({name, {o.kind == "view", d.value("columns", json::array()).get<std::vector<std::string>>()}});
    }
  });
  for (const auto& [name, how] : named) {
    table::ReadRequest request;
    request.table = OutputTableName(name);
    MINK_ASSIGN_OR_RETURN(auto table, tables_->Resolve(request.table));
    request.mode = table->pk.empty() ? table::ReadMode::kLog : table::ReadMode::kSnapshot;
    request.columns = how.second;
    MINK_ASSIGN_OR_RETURN(auto schema, tables_->ReadSchema(request));
    std::vector<arrow::RecordBatchPtr> batches;
    MINK_RETURN_IF_ERROR(tables_->Read(request, [&](const arrow::RecordBatchPtr& b) {
      batches.push_back(b);
      return true;
    }));
    MINK_RETURN_IF_ERROR(session->RegisterBatches(name, schema, std::move(batches)));
  }
  MINK_ASSIGN_OR_RETURN(auto batches, session->Collect(sql));
  std::string out = "{\"result_type\":\"query\",\"data\":[";
  bool first = true;
  for (const auto& b : batches) {
    MINK_ASSIGN_OR_RETURN(auto rows, arrow_json::RowFormatter::Make(*b, /*quote_wide_integers=*/true));
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      if (!first) out += ',';
      first = false;
      rows.AppendJsonRow(i, &out);
    }
  }
  return out + "]}";
}

Result<std::vector<std::string>> SqlEndpoint::Execute(const std::string& sql, int64_t now_ms) {
  MINK_ASSIGN_OR_RETURN(auto statements, ParseStatements(sql));
  std::vector<std::string> out;
  for (const auto& s : statements) {
    if (s.kind == StatementKind::kQuery) {
      MINK_ASSIGN_OR_RETURN(auto answer, Query(s.text));
      out.push_back(std::move(answer));
      continue;
    }
    MINK_ASSIGN_OR_RETURN(StatementResult r, catalog_->Execute(s, now_ms));
    out.push_back(StatementResultJson(r));
  }
  return out;
}

http::ServerResponse SqlEndpoint::Handle(const http::ServerRequest& request) {
  if (request.path != "/api/v1/sql") return JsonResponse(404, R"({"error":"not found"})");
  if (request.method != "POST") return JsonResponse(405, R"({"error":"POST a JSON body {\"sql\": \"...\"}"})");
  const json body = json::parse(request.body, nullptr, false);
  if (!body.is_object() || !body.contains("sql") || !body["sql"].is_string()) {
    return JsonResponse(400, R"({"error":"the body is JSON {\"sql\": \"...\"}"})");
  }
  auto answers = Execute(body["sql"].get<std::string>(), SystemClock::Get()->NowMillis());
  if (!answers.ok()) {
    const int status = answers.status().code() == StatusCode::kPermissionDenied ? 403 : 400;
    return JsonResponse(status, json{{"error", answers.status().message()}}.dump());
  }
  if (answers->size() == 1) return JsonResponse(200, std::move((*answers)[0]));
  std::string out = "[";
  for (size_t i = 0; i < answers->size(); ++i) out += (i ? "," : "") + (*answers)[i];
  return JsonResponse(200, out + "]");
}

void SqlEndpoint::Subscribe(const http::ServerRequest& request, http::WebSocket& socket) {
  stream::Subscribe(meta_, tables_, request, socket);
}

}  // namespace mink::stream
