// mink-query: SQL over a Mink cluster on DuckDB — `exec`, `shell` and `serve` (Flight SQL).

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>

#include "query/commands.h"
#include "query/common.h"

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  CLI::App app{
      "mink-query: SQL over a Mink cluster (DuckDB " + std::string(mink::query::kDuckDBVersion) +
      "). Tables are mink.<database>.<table>; the cluster is -b ADDRESS, MINK_BOOTSTRAP or " +
      mink::client::kDefaultBootstrap + "."};
  app.require_subcommand(1);
  mink::query::CommonOptions common;
  app.add_option("-b,--bootstrap", common.bootstrap,
                 std::string("Address of a node: grpc://host:port or host:port (env ") +
                     mink::client::kBootstrapEnv + ", default " + mink::client::kDefaultBootstrap +
                     ")")
      ->envname(mink::client::kBootstrapEnv);
  app.add_option("--threads", common.threads, "DuckDB worker threads (default: one per core)");
  app.add_option("--memory-limit", common.memory_limit,
                 "Memory DuckDB may use, e.g. 2GiB (default: 80% of the RAM); a query needing more fails");
  app.add_option("--timeout", common.timeout,
                 "Stop a statement that runs longer than this, e.g. 30s (default: no limit)");
  int exit_code = mink::query::kExitOk;
  mink::query::AddExecCommand(&app, &common, &exit_code);
  mink::query::AddShellCommand(&app, &common, &exit_code);
  mink::query::AddServeCommand(&app, &common, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "mink-query: %s (see 'mink-query --help')\n", e.what());
    return mink::query::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mink-query: internal error: %s\n", e.what());
    return mink::query::kExitError;
  }
  return exit_code;
}
