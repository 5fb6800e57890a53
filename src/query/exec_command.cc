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

#include "client/action.h"
#include "client/cluster.h"
#include "query/commands.h"
#include "query/common.h"
#include "query/continuous.h"
#include "query/output.h"

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
  MINK_ASSIGN_OR_RETURN(auto statements, SplitScript(*session, script));
  bool printed = false;
  for (const auto& item : statements) {
    const std::string& statement = item.text;
    if (item.continuous) {
      MINK_RETURN_IF_ERROR(RunContinuous(engine->cluster(), *item.continuous, format));
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
  cmd->add_flag("--allow-local-files", common->allow_local_files,
                "Let SQL read and write this machine's files as you (COPY ... TO, read_parquet); "
                "off: SQL reads only the cluster");
  cmd->callback([common, options, exit_code] {
    Status status = RunExec(*common, *options);
    if (!status.ok()) *exit_code = ReportError("exec", status);
  });
}

}  // namespace mink::query
