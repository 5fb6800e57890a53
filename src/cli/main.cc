// `mink`: `mink serve` runs a node; the other subcommands are clients of a node.

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "base/memory.h"
#include "cli/cli_common.h"
#include "cli/commands.h"

namespace {

// "db create" for the deepest subcommand that was being parsed.
std::string CommandPath(const CLI::App& app) {
  std::string path;
  const CLI::App* current = &app;
  while (true) {
    auto subcommands = current->get_subcommands();
    if (subcommands.empty()) break;
    current = subcommands.front();
    if (!path.empty()) path += " ";
    path += current->get_name();
  }
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  mink::RetainLargeAllocations();
  // A reader of our output that goes away (mink read ... | head) is a write error, not a signal.
  signal(SIGPIPE, SIG_IGN);

  CLI::App app{
      "Mink: a streaming storage system for tables.\n"
      "`mink serve` runs a node; the other commands are clients of a node (default " +
      std::string(mink::client::kDefaultBootstrap) + ", or -b ADDRESS / " +
      mink::client::kBootstrapEnv + ")."};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every command");

  int exit_code = mink::cli::kExitOk;
  mink::cli::AddServeCommand(&app, &exit_code);
  mink::cli::AddDbCommands(&app, &exit_code);
  mink::cli::AddClusterCommands(&app, &exit_code);
  mink::cli::AddTableCommands(&app, &exit_code);
  mink::cli::AddWriteCommand(&app, &exit_code);
  mink::cli::AddReadCommand(&app, &exit_code);
  mink::cli::AddUserCommands(&app, &exit_code);
  mink::cli::AddAclCommands(&app, &exit_code);
  mink::cli::AddLookupCommand(&app, &exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string path = CommandPath(app);
    std::string where = path.empty() ? "mink" : "mink " + path;
    std::fprintf(stderr, "%s: %s (see '%s --help')\n", where.c_str(), e.what(), where.c_str());
    return mink::cli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mink: internal error: %s\n", e.what());
    return mink::cli::kExitError;
  }
  return exit_code;
}
