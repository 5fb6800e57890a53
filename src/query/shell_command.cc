// mink-query shell: an interactive SQL prompt with line editing and history (libedit), statements
// over several lines (a statement ends with ';' outside quotes and comments), and dot commands:
// .tables, .schema, .format, .stats, .help, .quit. Ctrl-C cancels the running query. Without a
// terminal on stdin it reads a script from stdin (no prompt, no history) and exits with status 2
// if a statement failed.

#include <editline/readline.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "query/commands.h"
#include "query/common.h"
#include "query/continuous.h"
#include "query/output.h"

namespace mink::query {
namespace {

constexpr char kHelp[] =
    "Statements end with ';' and may span lines. Tables are mink.<database>.<table>.\n"
    ".tables [DB]        list the tables of the cluster (of one database)\n"
    ".schema [DB.TABLE]  the columns of a table (of every table)\n"
    ".format FORMAT      table | json | csv (how rows print)\n"
    ".stats on|off       after each statement, what the scans read from storage\n"
    ".help               this text\n"
    ".quit               leave (also Ctrl-D)\n"
    "Ctrl-C cancels the running query.\n";

std::atomic<Session*> g_running{nullptr};

void OnInterrupt(int) {
  Session* session = g_running.load();
  if (session != nullptr) session->Interrupt();
}

// Tracks quotes and comments across the lines of a statement.
class StatementScanner {
 public:
  // Feeds one line; true when the text so far ends a statement (last significant char ';').
  bool Feed(const std::string& line) {
    bool ends = false;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      char next = i + 1 < line.size() ? line[i + 1] : '\0';
      if (block_comment_) {
        if (c == '*' && next == '/') {
          block_comment_ = false;
          ++i;
        }
        continue;
      }
      if (quote_ != '\0') {
        if (c == quote_) quote_ = '\0';
        continue;
      }
      if (c == '-' && next == '-') break;  // a comment to the end of the line
      if (c == '/' && next == '*') {
        block_comment_ = true;
        ++i;
        continue;
      }
      if (c == '\'' || c == '"') {
        quote_ = c;
        ends = false;
        continue;
      }
      if (c == ';') {
        ends = true;
      } else if (!std::isspace(static_cast<unsigned char>(c))) {
        ends = false;
      }
    }
    if (!ends && quote_ == '\0' && !block_comment_) {
      // The line ended without ';' (perhaps after a comment): keep the earlier state.
      ends = false;
    }
    return ends && quote_ == '\0' && !block_comment_;
  }
  void Reset() {
    quote_ = '\0';
    block_comment_ = false;
  }

 private:
  char quote_ = '\0';
  bool block_comment_ = false;
};

class Shell {
 public:
  Shell(Engine* engine, std::unique_ptr<Session> session, bool interactive)
      : engine_(engine), session_(std::move(session)), interactive_(interactive) {
    format_ = IsTerminal(1) ? OutputFormat::kTable : OutputFormat::kJson;
  }

  int Run() {
    if (interactive_) {
      const char* home = std::getenv("HOME");
      const char* file = std::getenv("MINK_QUERY_HISTORY");
      history_ = file != nullptr ? file : (home != nullptr ? std::string(home) + "/.mink_query_history" : "");
      using_history();
      stifle_history(1000);
      if (!history_.empty()) read_history(history_.c_str());
      WriteStdout("mink-query shell (DuckDB " + LoadedDuckDBVersion() + ") on " +
                  engine_->cluster().bootstrap() + ". Enter .help for help.\n");
    }
    std::string statement;
    StatementScanner scanner;
    while (true) {
      std::string line;
      if (!ReadLine(statement.empty() ? "mink> " : "  ...> ", &line)) break;
      if (statement.empty()) {
        std::string trimmed = Trim(line);
        if (trimmed.empty()) continue;
        if (trimmed[0] == '.') {
          AddHistory(trimmed);
          if (!DotCommand(trimmed)) break;
          continue;
        }
      }
      statement += line;
      statement += '\n';
      if (scanner.Feed(line)) {
        AddHistory(Trim(statement));
        RunSql(statement);
        statement.clear();
        scanner.Reset();
      }
    }
    if (!Trim(statement).empty()) RunSql(statement);  // the last statement may lack its ';'
    if (interactive_) {
      WriteStdout("\n");
      if (!history_.empty()) write_history(history_.c_str());
    }
    return failed_ && !interactive_ ? kExitUsage : kExitOk;
  }

 private:
  static std::string Trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
  }

  bool ReadLine(const char* prompt, std::string* line) {
    if (interactive_) {
      char* text = readline(prompt);
      if (text == nullptr) return false;
      *line = text;
      std::free(text);
      return true;
    }
    return static_cast<bool>(std::getline(std::cin, *line));
  }

  void AddHistory(const std::string& entry) {
    if (interactive_ && !entry.empty()) add_history(entry.c_str());
  }

  void Error(const Status& status) {
    failed_ = true;
    std::string text = "Error: " + status.message() + "\n";
    std::fflush(stdout);
    std::fwrite(text.data(), 1, text.size(), stderr);
  }

  void RunSql(const std::string& sql) {
    auto statements = SplitScript(*session_, sql);
    if (!statements.ok()) return Error(statements.status());
    for (const auto& statement : *statements) {
      g_running.store(session_.get());
      Status status = statement.continuous ? RunContinuous(engine_->cluster(), *statement.continuous, format_)
                                           : RunOne(statement.text);
      g_running.store(nullptr);
      if (stats_) {
        for (const auto& report : engine_->scans().TakeWhenEnded()) {
          std::string line = "scan " + FormatScanReport(report) + "\n";
          std::fwrite(line.data(), 1, line.size(), stderr);
        }
      }
      if (!status.ok()) return Error(status);
    }
  }

  Status RunOne(const std::string& statement) {
    MINK_ASSIGN_OR_RETURN(auto result, session_->Execute(statement));
    if (!result->returns_rows()) return Status::Ok();
    MINK_ASSIGN_OR_RETURN(auto stats, PrintResult(*result, format_, true, WriteStdout));
    (void)stats;
    return Status::Ok();
  }

  // Returns false to leave the shell.
  bool DotCommand(const std::string& line) {
    std::vector<std::string> words;
    size_t pos = 0;
    while (pos < line.size()) {
      size_t b = line.find_first_not_of(" \t", pos);
      if (b == std::string::npos) break;
      size_t e = line.find_first_of(" \t", b);
      words.push_back(line.substr(b, e == std::string::npos ? std::string::npos : e - b));
      pos = e == std::string::npos ? line.size() : e;
    }
    const std::string& cmd = words[0];
    if (cmd == ".quit" || cmd == ".exit" || cmd == ".q") return false;
    if (cmd == ".help") {
      WriteStdout(kHelp);
    } else if (cmd == ".tables") {
      Tables(words.size() > 1 ? words[1] : "");
    } else if (cmd == ".schema") {
      Schema(words.size() > 1 ? words[1] : "");
    } else if (cmd == ".format" && words.size() == 2) {
      auto format = ParseOutputFormat(words[1]);
      if (!format.ok() || *format == OutputFormat::kArrow) {
        Error(InvalidArgumentError(".format takes table, json or csv"));
      } else {
        format_ = *format;
      }
    } else if (cmd == ".stats" && words.size() == 2 && (words[1] == "on" || words[1] == "off")) {
      stats_ = words[1] == "on";
    } else {
      Error(InvalidArgumentError("unknown command or bad arguments: " + line +
                                 " (enter .help for the commands)"));
    }
    return true;
  }

  void Tables(const std::string& database) {
    client::Cluster& cluster = engine_->cluster();
    std::vector<std::string> databases;
    if (database.empty()) {
      auto list = cluster.ListDatabases();
      if (!list.ok()) return Error(list.status());
      databases = *list;
    } else {
      databases = {database};
    }
    std::string out;
    for (const auto& db : databases) {
      auto tables = cluster.ListTables(db);
      if (!tables.ok()) return Error(tables.status());
      for (const auto& t : *tables) out += "mink." + db + "." + t + "\n";
    }
    WriteStdout(out);
  }

  void Schema(const std::string& table) {
    std::vector<std::string> names;
    if (table.empty()) {
      client::Cluster& cluster = engine_->cluster();
      auto databases = cluster.ListDatabases();
      if (!databases.ok()) return Error(databases.status());
      for (const auto& db : *databases) {
        auto tables = cluster.ListTables(db);
        if (!tables.ok()) return Error(tables.status());
        for (const auto& t : *tables) names.push_back(db + "." + t);
      }
    } else {
      std::string name = table.rfind("mink.", 0) == 0 ? table.substr(5) : table;
      if (name.find('.') == std::string::npos) {
        return Error(InvalidArgumentError(".schema takes database.table, not '" + table + "'"));
      }
      names.push_back(name);
    }
    for (const auto& name : names) {
      size_t dot = name.find('.');
      auto meta = engine_->cluster().DescribeTable(name.substr(0, dot), name.substr(dot + 1));
      if (!meta.ok()) return Error(meta.status());
      if (*meta == nullptr) return Error(NotFoundError("table " + name + " does not exist"));
      const auto& d = (*meta)->description;
      std::string out = "mink." + name + " (";
      for (size_t i = 0; i < d.columns.size(); ++i) {
        out += (i ? ", " : "") + d.columns[i].name + " " + d.columns[i].type_text +
               (d.columns[i].not_null ? " NOT NULL" : "");
      }
      out += ")";
      auto list = [&out](const char* what, const std::vector<std::string>& cols) {
        if (cols.empty()) return;
        out += std::string(" ") + what + " (";
        for (size_t i = 0; i < cols.size(); ++i) out += (i ? ", " : "") + cols[i];
        out += ")";
      };
      list("PRIMARY KEY", d.primary_key);
      list("PARTITIONED BY", d.partition_keys);
      list("BUCKETED BY", d.bucket_keys);
      if (d.bucket_count > 0) out += " BUCKETS " + std::to_string(d.bucket_count);
      out += ";\n";
      WriteStdout(out);
    }
  }

  Engine* engine_;
  std::unique_ptr<Session> session_;
  bool interactive_;
  OutputFormat format_;
  bool stats_ = false;
  bool failed_ = false;
  std::string history_;
};

Status RunShell(const CommonOptions& common, int* exit_code) {
  MINK_ASSIGN_OR_RETURN(auto engine, OpenEngine(common));
  MINK_ASSIGN_OR_RETURN(auto session, engine->Connect());
  struct sigaction action = {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  Shell shell(engine.get(), std::move(session), IsTerminal(0));
  *exit_code = shell.Run();
  return Status::Ok();
}

}  // namespace

void AddShellCommand(CLI::App* app, CommonOptions* common, int* exit_code) {
  CLI::App* cmd = app->add_subcommand(
      "shell", "Interactive SQL (line editing, history in ~/.mink_query_history); reads a "
               "script from stdin when it is not a terminal");
  cmd->add_flag("--allow-local-files", common->allow_local_files,
                "Let SQL read and write this machine's files as you (COPY ... TO, read_parquet); "
                "off: SQL reads only the cluster");
  cmd->callback([common, exit_code] {
    Status status = RunShell(*common, exit_code);
    if (!status.ok()) *exit_code = ReportError("shell", status);
  });
}

}  // namespace mink::query
