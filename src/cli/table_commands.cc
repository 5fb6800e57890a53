// mink table create | list | describe | alter | drop | offsets | lake-snapshot

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/json_value.h"
#include "arrow_json/json_string.h"
#include "client/table_description.h"
#include "arrow_json/temporal.h"
#include "table/types.h"

namespace mink::cli {
namespace {

using nlohmann::json;

struct TableOptions {
  ClientOptions client;
  std::string table;
  std::vector<std::string> columns;
  std::string primary_key;
  std::string partition_by;
  std::optional<int> bucket_count;
  std::string bucket_key;
  std::vector<std::string> options;
  std::string auto_increment;
  std::string lake;            // --lake iceberg
  std::string lake_freshness;  // --lake-freshness 5s
  std::string database;
  std::string at;
  std::string format;
  // alter
  std::vector<std::string> add_columns, drop_columns, rename_columns, modify_columns;
  std::string after;
  std::vector<std::string> set_options, reset_options;
};

// Runs one action of the node (RunNodeAction).
int Run(const char* command, const TableOptions& o, const char* action, const json& body, json* result) {
  return RunNodeAction(command, o.client, action, body, result);
}

void AddTableArgument(CLI::App* command, TableOptions* o) {
  command->add_option("table", o->table, "The table, as database.table")->required();
}

int Create(const TableOptions& o) {
  const char* kCommand = "table create";
  if (Status s = CheckTableName(o.table); !s.ok()) return ReportError(kCommand, s);
  for (const auto& c : o.columns) {
    if (auto parsed = table::ParseColumn(c); !parsed.ok()) {
      return ReportError(kCommand, parsed.status());
    }
  }
  json options = json::object();
  for (const auto& item : o.options) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return ReportError(kCommand,
                         InvalidArgumentError("--option '" + item + "' is not key=value"));
    }
    options[item.substr(0, eq)] = item.substr(eq + 1);
  }
  if (!o.auto_increment.empty()) options["auto-increment.fields"] = o.auto_increment;
  if (!o.lake.empty()) {
    options["table.datalake.enabled"] = "true";
    options["table.datalake.format"] = o.lake;
  }
  if (!o.lake_freshness.empty()) {
    if (o.lake.empty()) {
      return ReportError(kCommand, InvalidArgumentError("--lake-freshness goes with --lake iceberg"));
    }
    options["table.datalake.freshness"] = o.lake_freshness;
  }
  json body = {{"table", o.table},
               {"columns", o.columns},
               {"primary_key", SplitList(o.primary_key)},
               {"partition_by", SplitList(o.partition_by)},
               {"bucket_key", SplitList(o.bucket_key)},
               {"options", options}};
  if (o.bucket_count) {
    if (*o.bucket_count < 1) {
      return ReportError(kCommand, InvalidArgumentError("--bucket-count must be at least 1"));
    }
    body["bucket_count"] = *o.bucket_count;
  }
  return Run(kCommand, o, "create-table", body, nullptr);
}

int List(const TableOptions& o) {
  json body = json::object();
  if (!o.database.empty()) body["database"] = o.database;
  json result;
  if (int code = Run("table list", o, "list-tables", body, &result); code != kExitOk) return code;
  std::string out;
  if (auto it = result.find("tables"); it != result.end() && it->is_array()) {
    for (const auto& name : *it) {
      if (name.is_string()) out += name.get<std::string>() + "\n";
    }
  }
  WriteStdout(out);
  return kExitOk;
}

int Describe(const TableOptions& o) {
  const char* kCommand = "table describe";
  if (Status s = CheckTableName(o.table); !s.ok()) return ReportError(kCommand, s);
  json result;
  int code = Run(kCommand, o, "describe-table", json{{"table", o.table}}, &result);
  if (code != kExitOk) return code;
  if (o.format == "json") {
    WriteStdout(client::DumpJson(result) + "\n");
    return kExitOk;
  }
  auto description = client::ParseTableDescription(result);
  if (!description.ok()) return ReportError(kCommand, description.status());
  WriteStdout(client::FormatTableDescription(*description));
  return kExitOk;
}

// The tiered table's lake snapshot: aligned lines on a terminal, one JSON object when piped.
int LakeSnapshot(const TableOptions& o) {
  const char* kCommand = "table lake-snapshot";
  if (Status s = CheckTableName(o.table); !s.ok()) return ReportError(kCommand, s);
  json result;
  if (int code = Run(kCommand, o, "lake-snapshot", json{{"table", o.table}}, &result);
      code != kExitOk) {
    return code;
  }
  const bool as_json = o.format.empty() ? !IsTerminal(STDOUT_FILENO) : o.format == "json";
  if (as_json) {
    WriteStdout(client::DumpJson(result) + "\n");
    return kExitOk;
  }
  const int64_t id = result.value("snapshot_id", int64_t{0});
  std::vector<std::pair<std::string, std::string>> lines;
  if (id == 0) {
    lines.emplace_back("snapshot", "none yet (nothing tiered)");
  } else {
    lines.emplace_back("snapshot", std::to_string(id));
    lines.emplace_back("time", arrow_json::FormatTimestamp(result.value("timestamp_ms", int64_t{0}), 3, true));
    lines.emplace_back("sequence", std::to_string(result.value("sequence_number", int64_t{0})));
    lines.emplace_back("metadata", result.value("metadata_location", std::string()));
  }
  for (const auto& b : result.value("buckets", json::array())) {
    lines.emplace_back(b.value("bucket", std::string()),
                       "tiered to offset " + std::to_string(b.value("offset", int64_t{0})));
  }
  size_t width = 0;
  for (const auto& [k, v] : lines) width = std::max(width, k.size());
  std::string out;
  for (const auto& [k, v] : lines) out += k + std::string(width - k.size() + 2, ' ') + v + "\n";
  WriteStdout(out);
  return kExitOk;
}

int Offsets(const TableOptions& o) {
  const char* kCommand = "table offsets";
  if (Status s = CheckTableName(o.table); !s.ok()) return ReportError(kCommand, s);
  json body = {{"table", o.table}};
  if (!o.at.empty()) {
    auto at = arrow_json::ParseInstantMillis(o.at);
    if (!at.ok()) return ReportError(kCommand, at.status().WithContext("--at"));
    body["at"] = *at;
  }
  json result;
  if (int code = Run(kCommand, o, "offsets", body, &result); code != kExitOk) return code;
  bool as_json = o.format.empty() ? !IsTerminal(STDOUT_FILENO) : o.format == "json";
  struct Line {
    std::string bucket;
    int64_t start = 0, end = 0;
    std::optional<int64_t> at;
    int64_t owner = 0;
  };
  std::vector<Line> lines;
  size_t width = 0;
  if (auto it = result.find("buckets"); it != result.end() && it->is_array()) {
    for (const auto& b : *it) {
      if (!b.is_object()) continue;
      Line line;
      auto text = [&](const char* key) {
        auto it = b.find(key);
        return it != b.end() && it->is_string() ? it->get<std::string>() : std::string();
      };
      auto number = [&](const char* key) -> std::optional<int64_t> {
        auto it = b.find(key);
        if (it == b.end() || !it->is_number_integer()) return std::nullopt;
        return it->get<int64_t>();
      };
      line.bucket = text("bucket");
      line.start = number("start").value_or(0);
      line.end = number("end").value_or(0);
      line.at = number("at");
      line.owner = number("owner").value_or(0);
      width = std::max(width, line.bucket.size());
      lines.push_back(std::move(line));
    }
  }
  std::string out;
  for (const auto& l : lines) {
    if (as_json) {
      out += "{\"bucket\":" + arrow_json::JsonQuote(l.bucket) +
             ",\"start\":" + std::to_string(l.start) + ",\"end\":" + std::to_string(l.end);
      if (l.at) out += ",\"at\":" + std::to_string(*l.at);
      out += ",\"owner\":" + std::to_string(l.owner) + "}\n";
    } else {
      out += l.bucket + std::string(width - l.bucket.size(), ' ') +
             "  start=" + std::to_string(l.start) + " end=" + std::to_string(l.end);
      if (l.at) out += " at=" + std::to_string(*l.at);
      out += " owner=" + std::to_string(l.owner) + "\n";
    }
  }
  WriteStdout(out);
  return kExitOk;
}

// "name TYPE [AFTER col]" -> {"column": "name TYPE", "after": "col"}.
json AddedColumn(const std::string& text, const std::string& after_flag) {
  std::string column = text;
  std::string after = after_flag;
  std::string upper = text;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  if (size_t at = upper.rfind(" AFTER "); at != std::string::npos) {
    after = text.substr(at + 7);
    column = text.substr(0, at);
  }
  json added = {{"column", column}};
  if (!after.empty()) added["after"] = after;
  return added;
}

int Alter(const TableOptions& o) {
  const char* kCommand = "table alter";
  if (Status s = CheckTableName(o.table); !s.ok()) return ReportError(kCommand, s);
  if (!o.after.empty() && o.add_columns.size() != 1) {
    return ReportError(kCommand, InvalidArgumentError("--after goes with exactly one --add-column "
                                                      "(or write \"name TYPE AFTER col\")"));
  }
  json body = {{"table", o.table}};
  json added = json::array();
  for (const auto& c : o.add_columns) added.push_back(AddedColumn(c, o.after));
  if (!added.empty()) body["add_columns"] = added;
  if (!o.drop_columns.empty()) body["drop_columns"] = SplitLists(o.drop_columns);
  json renamed = json::array();
  for (const auto& r : o.rename_columns) {
    size_t eq = r.find('=');
    if (eq == std::string::npos) {
      return ReportError(kCommand, InvalidArgumentError("--rename-column takes old=new, not '" +
                                                        r + "'"));
    }
    renamed.push_back({{"from", r.substr(0, eq)}, {"to", r.substr(eq + 1)}});
  }
  if (!renamed.empty()) body["rename_columns"] = renamed;
  if (!o.modify_columns.empty()) body["modify_columns"] = o.modify_columns;
  json set = json::object();
  for (const auto& kv : o.set_options) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos) {
      return ReportError(kCommand, InvalidArgumentError("--set takes key=value, not '" + kv + "'"));
    }
    set[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (!set.empty()) body["set_options"] = set;
  if (!o.reset_options.empty()) body["reset_options"] = SplitLists(o.reset_options);
  return Run(kCommand, o, "alter-table", body, nullptr);
}

}  // namespace

void AddTableCommands(CLI::App* app, int* exit_code) {
  CLI::App* t =
      app->add_subcommand("table", "Create, list, describe, alter and drop tables; offsets");
  t->require_subcommand(1);

  auto c = std::make_shared<TableOptions>();
  CLI::App* create = t->add_subcommand("create", "Create a log table or a primary-key table");
  AddTableArgument(create, c.get());
  create
      ->add_option("-C,--column", c->columns,
                   "A column as \"name TYPE [NOT NULL]\", e.g. \"amount DECIMAL(10,2)\"; repeat "
                   "for every column, in table order")
      ->required();
  create->add_option("--primary-key", c->primary_key,
                     "Primary-key columns, comma-separated (makes a primary-key table; without "
                     "it the table is a log table)");
  create->add_option("--partition-by", c->partition_by,
                     "Partition columns, comma-separated (a partition is created on the first "
                     "write of its value)");
  create->add_option("--bucket-count", c->bucket_count, "Buckets per partition (default: 1)");
  create->add_option("--bucket-key", c->bucket_key,
                     "Columns whose hash picks the bucket, comma-separated (default: the primary "
                     "key minus the partition columns; a log table without one spreads rows)");
  create->add_option("--auto-increment", c->auto_increment,
                     "A column the table fills with a new id (1, 2, ...; unique in the table) "
                     "for each new key: INT or BIGINT, not in a key (primary-key tables)");
  create->add_option("--lake", c->lake,
                     "Tier the table into the lake in this format (iceberg): union reads and SQL "
                     "then read the lake snapshot plus the log after it")
      ->check(CLI::IsMember({"iceberg"}));
  create->add_option("--lake-freshness", c->lake_freshness,
                     "How far the lake may lag the log (default 3m), e.g. 5s");
  create->add_option("--option", c->options,
                     "A table option key=value, repeatable: table.merge-engine=first_row|"
                     "versioned|aggregation, table.changelog.image=wal, table.log.ttl=7d, "
                     "bucket.function=native|paimon|iceberg, ...");
  AddBootstrapOption(create, &c->client);
  create->callback([c, exit_code] { *exit_code = Create(*c); });

  auto l = std::make_shared<TableOptions>();
  CLI::App* list = t->add_subcommand("list", "List tables (of one database, or all), one per line");
  list->add_option("database", l->database, "Only the tables of this database");
  AddBootstrapOption(list, &l->client);
  list->callback([l, exit_code] { *exit_code = List(*l); });

  auto d = std::make_shared<TableOptions>();
  CLI::App* describe = t->add_subcommand(
      "describe", "Columns, primary key, partitioning, buckets, merge engine and partitions");
  AddTableArgument(describe, d.get());
  describe
      ->add_option("--format", d->format,
                   "text (default: human-readable) or json (the node's description)")
      ->check(CLI::IsMember({"text", "json"}));
  AddBootstrapOption(describe, &d->client);
  describe->callback([d, exit_code] { *exit_code = Describe(*d); });

  auto a = std::make_shared<TableOptions>();
  CLI::App* alter = t->add_subcommand(
      "alter",
      "Change a table's columns or options; data written before reads under the new schema. "
      "Applied in this order: renames, drops, type changes, additions, options");
  AddTableArgument(alter, a.get());
  alter->add_option("--add-column", a->add_columns,
                    "Add a nullable column \"name TYPE\" (last, or \"name TYPE AFTER col\"); "
                    "repeatable");
  alter->add_option("--after", a->after, "With one --add-column: the column it follows");
  alter->add_option("--drop-column", a->drop_columns,
                    "Drop a column (not a key column); repeatable or comma-separated");
  alter->add_option("--rename-column", a->rename_columns, "Rename a column: old=new; repeatable");
  alter->add_option("--modify-column", a->modify_columns,
                    "Change a column's type to a wider one, \"name TYPE\" (TINYINT -> SMALLINT -> "
                    "INT -> BIGINT, FLOAT or integers -> DOUBLE, a wider DECIMAL, NOT NULL -> "
                    "nullable); repeatable");
  alter->add_option("--set", a->set_options,
                    "Set an option key=value (table.log.ttl, "
                    "table.log.arrow.compression.type, table.datalake.freshness, "
                    "table.datalake.auto-compaction); repeatable");
  alter->add_option("--reset", a->reset_options, "Reset an option to its default; repeatable");
  AddBootstrapOption(alter, &a->client);
  alter->callback([a, exit_code] { *exit_code = Alter(*a); });

  auto r = std::make_shared<TableOptions>();
  CLI::App* drop = t->add_subcommand("drop", "Drop a table and its data");
  AddTableArgument(drop, r.get());
  AddBootstrapOption(drop, &r->client);
  drop->callback([r, exit_code] {
    if (Status s = CheckTableName(r->table); !s.ok()) {
      *exit_code = ReportError("table drop", s);
      return;
    }
    *exit_code = Run("table drop", *r, "drop-table", json{{"table", r->table}}, nullptr);
  });

  auto ls = std::make_shared<TableOptions>();
  CLI::App* lake_snapshot = t->add_subcommand(
      "lake-snapshot", "A tiered table's lake snapshot: its Iceberg snapshot id, time, and the "
                       "offset each bucket was tiered to");
  AddTableArgument(lake_snapshot, ls.get());
  lake_snapshot
      ->add_option("--format", ls->format,
                   "text or json (one object); default: text on a terminal, json when piped")
      ->check(CLI::IsMember({"text", "json"}));
  AddBootstrapOption(lake_snapshot, &ls->client);
  lake_snapshot->callback([ls, exit_code] { *exit_code = LakeSnapshot(*ls); });

  auto o = std::make_shared<TableOptions>();
  CLI::App* offsets =
      t->add_subcommand("offsets", "Start and end offset of every bucket, one line per bucket");
  AddTableArgument(offsets, o.get());
  offsets->add_option("--at", o->at,
                      "Also resolve this time to an offset per bucket (the first offset committed "
                      "at or after it): ISO-8601 (e.g. 2024-05-01T12:00:00Z; no offset means UTC) "
                      "or epoch milliseconds");
  offsets
      ->add_option("--format", o->format,
                   "text or json (JSON lines); default: text on a terminal, json when piped")
      ->check(CLI::IsMember({"text", "json"}));
  AddBootstrapOption(offsets, &o->client);
  offsets->callback([o, exit_code] { *exit_code = Offsets(*o); });
}

}  // namespace mink::cli
