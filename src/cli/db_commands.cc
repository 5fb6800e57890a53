// mink db create <name> | list | drop <name> [--cascade]

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"

namespace mink::cli {
namespace {

using nlohmann::json;

struct DbOptions {
  ClientOptions client;
  std::string name;
  bool cascade = false;
};

// Runs one action of the node (RunNodeAction).
int Run(const char* command, const DbOptions& o, const char* action, const json& body, json* result) {
  return RunNodeAction(command, o.client, action, body, result);
}

}  // namespace

void AddDbCommands(CLI::App* app, int* exit_code) {
  CLI::App* db = app->add_subcommand("db", "Create, list and drop databases");
  db->require_subcommand(1);

  auto create_options = std::make_shared<DbOptions>();
  CLI::App* create = db->add_subcommand("create", "Create a database");
  create->add_option("name", create_options->name, "Name of the database")->required();
  AddBootstrapOption(create, &create_options->client);
  create->callback([create_options, exit_code] {
    *exit_code = Run("db create", *create_options, "create-database",
                     json{{"name", create_options->name}}, nullptr);
  });

  auto list_options = std::make_shared<DbOptions>();
  CLI::App* list = db->add_subcommand("list", "List the databases, one per line");
  AddBootstrapOption(list, &list_options->client);
  list->callback([list_options, exit_code] {
    json result;
    *exit_code = Run("db list", *list_options, "list-databases", json::object(), &result);
    if (*exit_code != kExitOk) return;
    std::string out;
    if (auto it = result.find("databases"); it != result.end() && it->is_array()) {
      for (const auto& name : *it) {
        if (name.is_string()) out += name.get<std::string>() + "\n";
      }
    }
    WriteStdout(out);
  });

  auto drop_options = std::make_shared<DbOptions>();
  CLI::App* drop = db->add_subcommand("drop", "Drop a database");
  drop->add_option("name", drop_options->name, "Name of the database")->required();
  drop->add_flag("--cascade", drop_options->cascade,
                 "Also drop its tables (without it, a database that has tables is not dropped)");
  AddBootstrapOption(drop, &drop_options->client);
  drop->callback([drop_options, exit_code] {
    *exit_code =
        Run("db drop", *drop_options, "drop-database",
            json{{"name", drop_options->name}, {"cascade", drop_options->cascade}}, nullptr);
  });
}

}  // namespace mink::cli
