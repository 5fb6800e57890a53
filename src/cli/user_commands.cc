// mink user create <name> (--password P | --password-stdin) [--replace] | delete <name> | list

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"

namespace mink::cli {
namespace {

using nlohmann::json;

struct UserOptions {
  ClientOptions client;
  std::string name;
  std::string password;
  bool password_stdin = false;
  bool replace = false;
};

}  // namespace

void AddUserCommands(CLI::App* app, int* exit_code) {
  CLI::App* user = app->add_subcommand("user", "Create, delete and list the users clients authenticate as");
  user->require_subcommand(1);

  auto create_options = std::make_shared<UserOptions>();
  CLI::App* create = user->add_subcommand(
      "create", "Create a user (its password's SCRAM-SHA-256 and -512 credentials are stored, never the password)");
  create->add_option("name", create_options->name, "The user's name")->required();
  create->add_option("--password", create_options->password, "The password (visible to other processes: prefer "
                                                             "--password-stdin)");
  create->add_flag("--password-stdin", create_options->password_stdin, "Read the password from the first line of stdin");
  create->add_flag("--replace", create_options->replace, "Give an existing user a new password");
  AddBootstrapOption(create, &create_options->client);
  create->callback([o = create_options, exit_code] {
    std::string password = o->password;
    if (o->password_stdin) std::getline(std::cin, password);
    if (password.empty()) {
      *exit_code = ReportError("user create", InvalidArgumentError("give a password: --password or --password-stdin"));
      return;
    }
    *exit_code = RunNodeAction("user create", o->client, "create-user",
                               json{{"name", o->name}, {"password", password}, {"replace", o->replace}}, nullptr);
  });

  auto delete_options = std::make_shared<UserOptions>();
  CLI::App* remove = user->add_subcommand("delete", "Delete a user");
  remove->add_option("name", delete_options->name, "The user's name")->required();
  AddBootstrapOption(remove, &delete_options->client);
  remove->callback([o = delete_options, exit_code] {
    *exit_code = RunNodeAction("user delete", o->client, "delete-user", json{{"name", o->name}}, nullptr);
  });

  auto list_options = std::make_shared<UserOptions>();
  CLI::App* list = user->add_subcommand("list", "List the users and their SCRAM mechanisms, one per line");
  AddBootstrapOption(list, &list_options->client);
  list->callback([o = list_options, exit_code] {
    json result;
    *exit_code = RunNodeAction("user list", o->client, "list-users", json::object(), &result);
    if (*exit_code != kExitOk) return;
    std::string out;
    for (const auto& u : result.value("users", json::array())) {
      std::string mechanisms;
      for (const auto& m : u.value("mechanisms", json::array())) {
        mechanisms += (mechanisms.empty() ? "" : ",") + m.get<std::string>();
      }
      out += u.value("name", "") + "\t" + mechanisms + "\n";
    }
    WriteStdout(out);
  });
}

}  // namespace mink::cli
