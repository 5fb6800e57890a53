#include "query/continuous.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "arrow_format/ipc.h"
#include "arrow_json/arrow_to_json.h"
#include "client/action.h"
#include "query/common.h"
#include "stream/output_table.h"

namespace mink::query {
namespace {

bool IsContinuous(const stream::Statement& s) {
  if (s.kind == stream::StatementKind::kQuery) return false;
  if (s.kind != stream::StatementKind::kExplain) return true;
  // EXPLAIN of a stream or view is the node's; of a query, DuckDB's.
  auto inner = stream::ParseStatement(s.query);
  return inner.ok() && (inner->kind == stream::StatementKind::kCreateStream ||
                        inner->kind == stream::StatementKind::kCreateView);
}

// SUBSCRIBE name: the changes of a stream's or view's output table as they come (a follow read
// of its log or changelog from the start, with each change's kind), one JSON line each, until
// interrupted.
Status Subscribe(client::Cluster& cluster, const std::string& name) {
  MINK_ASSIGN_OR_RETURN(auto endpoints, cluster.Endpoints(stream::kOutputDatabase, name));
  if (endpoints.empty()) return NotFoundError(name + " has no output table");
  MINK_ASSIGN_OR_RETURN(auto client, cluster.ClientFor(endpoints[0].location));
  MINK_ASSIGN_OR_RETURN(auto meta, cluster.DescribeTable(stream::kOutputDatabase, name));
  std::vector<std::string> columns;  // the query's (not a global aggregate's hidden key)
  for (const auto& f : meta->schema->fields()) {
    if (f.name() != stream::kHiddenKey) columns.push_back(f.name());
  }
  const nlohmann::json ticket = {{"table", stream::OutputTableName(name)}, {"mode", "log"}, {"from", "earliest"},
                                 {"follow", true}, {"meta", true}, {"columns", columns}};
  MINK_ASSIGN_OR_RETURN(auto reader, client->DoGet(ticket.dump()));
  arrow::IpcDecoder decoder;
  while (true) {
    flight::FlightData data;
    MINK_ASSIGN_OR_RETURN(bool more, reader->Next(&data));
    if (!more) return Status::Ok();
    if (data.data_header.empty()) continue;
    MINK_ASSIGN_OR_RETURN(auto decoded, decoder.Decode(data.data_header, arrow::Buffer::FromString(std::move(data.body))));
    if (decoded.kind != arrow::IpcDecoder::Kind::kRecordBatch) continue;
    // The columns and the change's kind (+I, -U, +U, -D; +A for a stream's rows).
    const auto& batch = *decoded.batch;
    std::vector<arrow::Field> fields;
    std::vector<arrow::ArrayDataPtr> columns_shown;
    for (int c = 0; c < batch.num_columns(); ++c) {
      const std::string& field = batch.schema()->field(c).name();
      if (field == "__bucket" || field == "__offset") continue;
      fields.push_back(batch.schema()->field(c));
      columns_shown.push_back(batch.Column(c));
    }
    MINK_ASSIGN_OR_RETURN(auto shown, arrow::RecordBatch::Make(std::make_shared<arrow::Schema>(std::move(fields)),
                                                               batch.num_rows(), std::move(columns_shown)));
    MINK_ASSIGN_OR_RETURN(std::string lines, arrow_json::BatchToJsonLines(*shown));
    if (!WriteStdout(lines)) {
      reader->Cancel();
      return Status::Ok();
    }
  }
}

// A continuous statement's answers, as the node gave them.
void PrintContinuous(const nlohmann::json& results, OutputFormat format) {
  for (const auto& r : results) {
    if (format != OutputFormat::kTable) {
      WriteStdout(client::DumpJson(r) + "\n");
      continue;
    }
    if (!r.contains("data")) {
      WriteStdout(r.value("result_type", "") + " " + r.value("object_name", "") + "\n");
      continue;
    }
    for (const auto& row : r["data"]) {
      std::string line;
      for (auto it = row.begin(); it != row.end(); ++it) {
        line += (line.empty() ? "" : " | ") + it.key() + ": " + it.value().get<std::string>();
      }
      WriteStdout(line + "\n");
    }
  }
}

}  // namespace

Result<std::vector<ScriptStatement>> SplitScript(sql::Session& session, const std::string& script) {
  std::vector<ScriptStatement> out;
  auto parsed = stream::ParseStatements(script);
  if (parsed.ok() && std::any_of(parsed->begin(), parsed->end(), IsContinuous)) {
    for (auto& s : *parsed) {
      ScriptStatement item{s.text, std::nullopt};
      if (IsContinuous(s)) item.continuous = std::move(s);
      out.push_back(std::move(item));
    }
    return out;
  }
  MINK_ASSIGN_OR_RETURN(auto statements, session.SplitStatements(script));
  for (auto& text : statements) out.push_back(ScriptStatement{std::move(text), std::nullopt});
  return out;
}

Result<std::optional<int64_t>> RunContinuousUpdate(client::Cluster& cluster, const std::string& sql) {
  auto statements = stream::ParseStatements(sql);
  if (!statements.ok() || statements->empty() ||
      !std::all_of(statements->begin(), statements->end(), [](const stream::Statement& s) {
        return IsContinuous(s) && s.kind != stream::StatementKind::kSubscribe;
      })) {
    return std::optional<int64_t>();
  }
  MINK_ASSIGN_OR_RETURN(auto results, cluster.ContinuousSql(sql));
  return std::optional<int64_t>(static_cast<int64_t>(results.size()));
}

Status RunContinuous(client::Cluster& cluster, const stream::Statement& statement, OutputFormat format) {
  if (statement.kind == stream::StatementKind::kSubscribe) return Subscribe(cluster, statement.name);
  MINK_ASSIGN_OR_RETURN(nlohmann::json results, cluster.ContinuousSql(statement.text));
  PrintContinuous(results, format);
  return Status::Ok();
}

}  // namespace mink::query
