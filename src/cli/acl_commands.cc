// mink acl grant|revoke <user> <operation> (--cluster | --database DB | --table DB.T | --group G)
// mink acl list [--user U]

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"

namespace mink::cli {
namespace {

using nlohmann::json;

struct AclOptions {
  ClientOptions client;
  std::string user;
  std::string operation;
  bool cluster = false;
  std::string database;
  std::string table;
  std::string group;
};

// The resource the options name, as a grant holds it ("" when not exactly one is named).
std::string ResourceOf(const AclOptions& o) {
  const int named = o.cluster + !o.database.empty() + !o.table.empty() + !o.group.empty();
  if (named != 1) return "";
  if (o.cluster) return "cluster";
  if (!o.database.empty()) return "database:" + o.database;
  if (!o.table.empty()) return "table:" + o.table;
  return "group:" + o.group;
}

void AddChange(CLI::App* acl, const char* name, const char* help, const char* action, int* exit_code) {
  auto o = std::make_shared<AclOptions>();
  CLI::App* cmd = acl->add_subcommand(name, help);
  cmd->add_option("user", o->user, "A user's name, or * for every user")->required();
  cmd->add_option("operation", o->operation,
                  "describe, read, write or admin (admin includes the others; read and write include describe)")
      ->required()
      ->check(CLI::IsMember({"describe", "read", "write", "admin"}));
  cmd->add_flag("--cluster", o->cluster, "On the cluster: every database, table and group");
  cmd->add_option("--database", o->database, "On a database and its tables (* for every database)");
  cmd->add_option("--table", o->table, "On a table, <database>.<table> (<database>.* or * for many)");
  cmd->add_option("--group", o->group, "On a Kafka consumer group (* for every group)");
  AddBootstrapOption(cmd, &o->client);
  const std::string what = std::string("acl ") + name;
  cmd->callback([o, exit_code, what, action] {
    const std::string resource = ResourceOf(*o);
    if (resource.empty()) {
      *exit_code = ReportError(what, InvalidArgumentError("name one of --cluster, --database, --table, --group"));
      return;
    }
    *exit_code = RunNodeAction(what, o->client, action,
                               json{{"principal", o->user}, {"resource", resource}, {"operation", o->operation}},
                               nullptr);
  });
}

}  // namespace

void AddAclCommands(CLI::App* app, int* exit_code) {
  CLI::App* acl = app->add_subcommand("acl", "Grant, revoke and list what users may do (with authentication on)");
  acl->require_subcommand(1);
  AddChange(acl, "grant", "Allow a user an operation on a resource", "grant-acl", exit_code);
  AddChange(acl, "revoke", "Take a grant back", "revoke-acl", exit_code);

  auto o = std::make_shared<AclOptions>();
  CLI::App* list = acl->add_subcommand("list", "List the grants, one per line: user, operation, resource");
  list->add_option("--user", o->user, "Only this user's grants (and those to *)");
  AddBootstrapOption(list, &o->client);
  list->callback([o, exit_code] {
    json result;
    *exit_code = RunNodeAction("acl list", o->client, "list-acls", json{{"principal", o->user}}, &result);
    if (*exit_code != kExitOk) return;
    std::string out;
    for (const auto& e : result.value("acls", json::array())) {
      out += e.value("principal", "") + "\t" + e.value("operation", "") + "\t" + e.value("resource", "") + "\n";
    }
    WriteStdout(out);
  });
}

}  // namespace mink::cli
