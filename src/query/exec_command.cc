// mink-query exec -e SQL | -f FILE: runs the statements in order and prints the rows of each
// statement that returns rows; stops at the first error. Continuous SQL's statements (CREATE
// SOURCE, CREATE STREAM, ..., docs/streaming-sql.md) go to the node (its continuous-sql action);
// their answers print as JSON objects (json) or lines (table).

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "arrow_format/ipc.h"
#include "arrow_json/arrow_to_json.h"
#include "client/action.h"
#include "client/cluster.h"
#include "query/commands.h"
#include "query/common.h"
#include "query/output.h"
#include "stream/output_table.h"
#include "stream/statement.h"

namespace mink::query {
namespace {

struct ExecOptions {
  std::vector<std::string> sql;
  std::string file;
  std::string format;
  bool stats = false;
};

Result<std::string> ReadScript(const std::string& file) {
  if (file == "-") {
    std::stringstream buffer;
    buffer << std::cin.rdbuf();
    return buffer.str();
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return InvalidArgumentError("cannot read " + file);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

bool IsContinuous(const stream::Statement& s) {
  return s.kind != stream::StatementKind::kQuery && s.kind != stream::StatementKind::kExplain;
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

Status RunExec(const CommonOptions& common, const ExecOptions& options) {
  if (options.sql.empty() == options.file.empty()) {
    return InvalidArgumentError("give the SQL with -e SQL or -f FILE (one of them)");
  }
  OutputFormat format = IsTerminal(1) ? OutputFormat::kTable : OutputFormat::kJson;
  if (!options.format.empty()) {
    MINK_ASSIGN_OR_RETURN(format, ParseOutputFormat(options.format));
  }
  std::string script;
  if (!options.file.empty()) {
    MINK_ASSIGN_OR_RETURN(script, ReadScript(options.file));
  } else {
    for (const auto& s : options.sql) script += s + ";\n";
  }
  MINK_ASSIGN_OR_RETURN(auto engine, OpenEngine(common));
  MINK_ASSIGN_OR_RETURN(auto session, engine->Connect());
  // A script with continuous statements is split by their parser; any other as DuckDB splits it.
  std::vector<std::string> statements;
  std::vector<bool> continuous;
  auto parsed = stream::ParseStatements(script);
  if (parsed.ok() && std::any_of(parsed->begin(), parsed->end(), IsContinuous)) {
    for (const auto& s : *parsed) {
      statements.push_back(s.text);
      continuous.push_back(IsContinuous(s));
    }
  } else {
    MINK_ASSIGN_OR_RETURN(statements, session->SplitStatements(script));
    continuous.assign(statements.size(), false);
  }
  bool printed = false;
  for (size_t i = 0; i < statements.size(); ++i) {
    const std::string& statement = statements[i];
    if (continuous[i] && parsed.ok() && (*parsed)[i].kind == stream::StatementKind::kSubscribe) {
      MINK_RETURN_IF_ERROR(Subscribe(engine->cluster(), (*parsed)[i].name));
      continue;
    }
    if (continuous[i]) {
      MINK_ASSIGN_OR_RETURN(nlohmann::json results, engine->cluster().ContinuousSql(statement));
      PrintContinuous(results, format);
      printed = true;
      continue;
    }
    MINK_ASSIGN_OR_RETURN(auto result, session->Execute(statement));
    if (result->returns_rows()) {
      // Tables of several statements are separated by a blank line.
      if (printed && format == OutputFormat::kTable) WriteStdout("\n");
      MINK_ASSIGN_OR_RETURN(auto stats, PrintResult(*result, format, false, WriteStdout));
      (void)stats;
      printed = true;
    }
    result.reset();
    if (options.stats) {
      for (const auto& report : engine->scans().TakeWhenEnded()) {
        std::string line = "scan " + FormatScanReport(report) + "\n";
        std::fwrite(line.data(), 1, line.size(), stderr);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

void AddExecCommand(CLI::App* app, CommonOptions* common, int* exit_code) {
  auto options = std::make_shared<ExecOptions>();
  CLI::App* cmd = app->add_subcommand("exec", "Run SQL statements and print their rows");
  cmd->add_option("-e,--execute", options->sql,
                  "SQL to run (repeatable; several statements separated by ';')");
  cmd->add_option("-f,--file", options->file, "A file of SQL statements ('-': stdin)");
  cmd->add_option("--format", options->format,
                  "table | json | csv | arrow (default: table on a terminal, else json lines)");
  cmd->add_flag("--stats", options->stats,
                "After each statement, print what every scan of a mink table read (stderr)");
  cmd->callback([common, options, exit_code] {
    Status status = RunExec(*common, *options);
    if (!status.ok()) *exit_code = ReportError("exec", status);
  });
}

}  // namespace mink::query
