// mink-query serve: Flight SQL (FlightSqlService) on --listen until SIGINT or SIGTERM.

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "flight/server/flight_server.h"
#include "query/commands.h"
#include "query/common.h"
#include "query/flight_sql_service.h"

namespace mink::query {
namespace {

constexpr char kDefaultListen[] = "0.0.0.0:9130";

Status RunServe(const CommonOptions& common, const std::string& listen) {
  // Block the stop signals before any thread starts, then wait for them here.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  MINK_ASSIGN_OR_RETURN(auto engine, OpenEngine(common));
  FlightSqlService service(engine.get());
  MINK_ASSIGN_OR_RETURN(auto server, flight::FlightServer::Start(listen, &service));
  std::string line = "mink-query: Flight SQL on " + server->address() + " (cluster " +
                     engine->cluster().bootstrap() + ", DuckDB " + LoadedDuckDBVersion() + ")\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  int signal_number = 0;
  sigwait(&stop, &signal_number);
  server->Shutdown(std::chrono::seconds(2));
  return Status::Ok();
}

}  // namespace

void AddServeCommand(CLI::App* app, CommonOptions* common, int* exit_code) {
  auto listen = std::make_shared<std::string>(kDefaultListen);
  CLI::App* cmd = app->add_subcommand("serve", "Serve Arrow Flight SQL (JDBC/ADBC drivers)");
  cmd->add_option("--listen", *listen, std::string("host:port to listen on (default ") +
                                           kDefaultListen + ")")
      ->envname("MINK_QUERY_LISTEN");
  cmd->callback([common, listen, exit_code] {
    Status status = RunServe(*common, *listen);
    if (!status.ok()) *exit_code = ReportError("serve", status);
  });
}

}  // namespace mink::query
