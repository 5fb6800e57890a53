// mink lookup <db.table> [name=value ...] [--prefix] [--columns a,b] [--format json|table]
//
// Rows of a primary-key table by key, from the KV state of the bucket owners (no scan). The key
// is given as name=value arguments, or, without them, as JSON lines on stdin (one key each,
// sent in batches of --batch-keys over one DoExchange lookup session). A key that has no row
// prints nothing; the rows come out in the order of their keys.

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/json_to_arrow.h"
#include "cli/line_reader.h"
#include "cli/rows_output.h"
#include "client/action.h"
#include "flight/client/exchange_batches.h"

namespace mink::cli {
namespace {

using nlohmann::json;

constexpr const char* kCommand = "lookup";

struct LookupOptions {
  ClientOptions client;
  std::string table;
  std::vector<std::string> key;  // name=value
  bool prefix = false;
  std::string columns;
  std::string format;
  int64_t batch_keys = 1000;
};

// The columns a key names, in table order: the primary key, or for a prefix lookup the bucket
// key and the partition keys.
std::vector<std::string> KeyColumns(const client::TableDescription& table, bool prefix) {
  std::vector<std::string> names;
  for (const auto& c : table.columns) {
    auto in = [&](const std::vector<std::string>& list) {
      return std::find(list.begin(), list.end(), c.name) != list.end();
    };
    if (prefix ? in(table.bucket_keys) || in(table.partition_keys) : in(table.primary_key)) {
      names.push_back(c.name);
    }
  }
  return names;
}

// name=value arguments as one JSON object: a STRING or BYTES value is always text; any other
// value is taken as JSON when it is JSON (1, 2.5, true), else as text ("2024-05-01").
Result<std::string> KeyArgumentsToJson(const client::TableDescription& table,
                                       const std::vector<std::string>& arguments) {
  json key = json::object();
  for (const auto& arg : arguments) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgumentError("a key is given as name=value, not '" + arg + "'");
    }
    const std::string name = arg.substr(0, eq);
    const std::string value = arg.substr(eq + 1);
    const int i = table.Find(name);
    if (i < 0) return InvalidArgumentError("unknown column '" + name + "' in " + table.table);
    const table::TypeKind kind = table.columns[static_cast<size_t>(i)].type.kind;
    json parsed = json::parse(value, nullptr, false);
    const bool text = kind == table::TypeKind::kString || kind == table::TypeKind::kBytes ||
                      parsed.is_discarded();
    key[name] = text ? json(value) : parsed;
  }
  return key.dump();
}

int Run(const LookupOptions& o) {
  if (Status s = CheckTableName(o.table); !s.ok()) return ReportError(kCommand, s);
  if (o.batch_keys < 1) {
    return ReportError(kCommand, InvalidArgumentError("--batch-keys must be at least 1"));
  }
  auto client = ConnectToNode(o.client);
  if (!client.ok()) return ReportError(kCommand, client.status());
  auto table = DescribeTable(**client, o.table);
  if (!table.ok()) return ReportError(kCommand, table.status());
  if (!table->has_primary_key()) {
    return ReportError(kCommand, InvalidArgumentError("lookups need a primary-key table; " +
                                                      o.table + " is a log table"));
  }
  auto converter = JsonRowConverter::ForKeys(*table, KeyColumns(*table, o.prefix));
  if (!converter.ok()) return ReportError(kCommand, converter.status());
  auto builder = BatchBuilder::Make(converter->schema(), converter->types());
  if (!builder.ok()) return ReportError(kCommand, builder.status());

  json command = {{"table", o.table}, {"lookup", o.prefix ? "prefix" : "key"}};
  std::vector<std::string> columns = SplitList(o.columns);
  if (!columns.empty()) command["columns"] = columns;
  auto exchange = flight::BatchExchange::Open(**client, command.dump(), *converter->schema());
  if (!exchange.ok()) return ReportError(kCommand, exchange.status());
  RowsOutput output(o.format);
  output.Begin(*(*exchange)->answer_schema());

  // Sends the keys built so far; false when stdout is gone.
  auto send = [&]() -> Result<bool> {
    if (builder->num_rows() == 0) return true;
    MINK_ASSIGN_OR_RETURN(auto keys, builder->Finish());
    MINK_ASSIGN_OR_RETURN(auto rows, (*exchange)->Call(*keys));
    return output.Add(*rows);
  };
  auto add = [&](std::string_view line, const std::string& where) -> Status {
    auto row = converter->ConvertLine(line);
    if (!row.ok()) return InvalidArgumentError(where + row.status().message());
    return builder->Append(*row);
  };

  if (!o.key.empty()) {
    auto text = KeyArgumentsToJson(*table, o.key);
    if (!text.ok()) return ReportError(kCommand, text.status());
    if (Status s = add(*text, ""); !s.ok()) return ReportError(kCommand, s);
  } else {
    if (IsTerminal(STDIN_FILENO)) {
      std::fputs("mink lookup: reading keys as JSON lines from the terminal (end with Ctrl-D)\n",
                 stderr);
    }
    LineReader input(stdin);
    int64_t line_number = 0;
    while (true) {
      std::string_view line;
      auto more = input.Next(&line);
      if (!more.ok()) return ReportError(kCommand, more.status());
      if (!*more) break;
      ++line_number;
      if (IsBlankLine(line)) continue;
      if (Status s = add(line, "line " + std::to_string(line_number) + ": "); !s.ok()) {
        return ReportError(kCommand, s);
      }
      if (builder->num_rows() >= o.batch_keys) {
        auto printed = send();
        if (!printed.ok()) return ReportError(kCommand, printed.status());
        if (!*printed) return kExitOk;
      }
    }
  }
  auto printed = send();
  if (!printed.ok()) return ReportError(kCommand, printed.status());
  if (!*printed) return kExitOk;
  output.Finish();
  if (Status s = (*exchange)->Finish(); !s.ok()) return ReportError(kCommand, s);
  return kExitOk;
}

}  // namespace

void AddLookupCommand(CLI::App* app, int* exit_code) {
  auto o = std::make_shared<LookupOptions>();
  CLI::App* lookup = app->add_subcommand(
      "lookup",
      "Look rows of a primary-key table up by key: name=value arguments for one key, or JSON "
      "lines on stdin, one key each. Keys without a row print nothing");
  lookup->add_option("table", o->table, "The table, as database.table")->required();
  lookup->add_option("key", o->key,
                     "The key's columns as name=value (every primary-key column; with --prefix "
                     "the bucket key and the partition keys)");
  lookup->add_flag("--prefix", o->prefix,
                   "A prefix lookup: the key is the bucket key (and the partition keys); every "
                   "row with it is printed");
  lookup->add_option("--columns", o->columns, "Print only these columns, comma-separated");
  lookup->add_option("--format", o->format,
                     "json (one object per line) or table; default: table on a terminal, json "
                     "otherwise")
      ->check(CLI::IsMember({"json", "table"}));
  lookup->add_option("--batch-keys", o->batch_keys,
                     "Keys from stdin sent per batch (default 1000)");
  AddBootstrapOption(lookup, &o->client);
  lookup->callback([o, exit_code] { *exit_code = Run(*o); });
}

}  // namespace mink::cli
