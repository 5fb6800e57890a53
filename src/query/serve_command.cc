// mink-query serve: Flight SQL (FlightSqlService) on --listen until SIGINT or SIGTERM. Callers
// authenticate as they would to a node (Callers) and read as themselves.

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "flight/server/flight_server.h"
#include "query/commands.h"
#include "query/callers.h"
#include "query/common.h"
#include "query/flight_sql_service.h"
#include "tls/certificate_reloader.h"
#include "tls/tls_files.h"

namespace mink::query {
namespace {

constexpr char kDefaultListen[] = "0.0.0.0:9130";

Status RunServe(const CommonOptions& common, const std::string& listen, const tls::ServerFiles& tls) {
  // Block the stop signals before any thread starts, then wait for them here.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  flight::FlightServerOptions options;
  MINK_RETURN_IF_ERROR(tls::Check(tls));
  std::shared_ptr<tls::CertificateReloader> certificates;  // outlives the server
  if (tls.enabled()) {
    // gRPC watches a copy of the last certificate that loaded (CertificateReloader).
    MINK_ASSIGN_OR_RETURN(certificates, tls::CertificateReloader::Open(tls));
    MINK_RETURN_IF_ERROR(certificates->StartMirror());
    options.tls_cert_file = options.tls_key_file = certificates->mirror_file();
    options.tls_client_ca_file = certificates->mirror_client_ca();
  }
  // Callers read as themselves: the engine's own client says nobody (never the environment's
  // MINK_TOKEN or MINK_USER), and each call's authorization header goes to the nodes.
  CommonOptions as_nobody = common;
  as_nobody.authorization = "";
  MINK_ASSIGN_OR_RETURN(auto engine, OpenEngine(as_nobody));
  Callers callers(engine->cluster().bootstrap());
  options.authenticate = [&callers](const std::string& authorization) { return callers.Authenticate(authorization); };
  options.issue_token = [&callers](const std::string& key) {
    auto token = callers.IssueToken(key);
    return token.ok() ? *token : std::string();
  };
  FlightSqlService service(engine.get(), &callers);
  MINK_ASSIGN_OR_RETURN(auto server, flight::FlightServer::Start(listen, &service, std::move(options)));
  std::string line = "mink-query: Flight SQL on " + server->address() + (tls.enabled() ? " (TLS)" : "") + " (cluster " +
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
  auto tls = std::make_shared<tls::ServerFiles>();
  cmd->add_option("--tls-cert", tls->cert, "PEM certificate chain: serve Flight SQL over TLS (grpc+tls://)")
      ->envname("MINK_QUERY_TLS_CERT");
  cmd->add_option("--tls-key", tls->key, "PEM private key of --tls-cert")->envname("MINK_QUERY_TLS_KEY");
  cmd->add_option("--tls-client-ca", tls->client_ca,
                  "PEM certificate authorities: callers must present a certificate they signed (mutual TLS)")
      ->envname("MINK_QUERY_TLS_CLIENT_CA");
  cmd->callback([common, listen, tls, exit_code] {
    Status status = RunServe(*common, *listen, *tls);
    if (!status.ok()) *exit_code = ReportError("serve", status);
  });
}

}  // namespace mink::query
