#include "cli/cli_common.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/strings.h"

namespace mink::cli {

int ExitCodeFor(const Status& status) {
  if (status.ok()) return kExitOk;
  return status.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitError;
}

int ReportError(std::string_view command, const Status& status) {
  std::string line = "mink ";
  line += command;
  line += ": ";
  line += status.message().empty() ? std::string(StatusCodeName(status.code())) : status.message();
  // One line: a multi-line server message is folded.
  for (auto& c : line) {
    if (c == '\n') c = ' ';
  }
  line += '\n';
  std::fflush(stdout);
  std::fwrite(line.data(), 1, line.size(), stderr);
  return ExitCodeFor(status);
}

void AddBootstrapOption(CLI::App* command, ClientOptions* options) {
  command
      ->add_option("-b,--bootstrap", options->bootstrap,
                   std::string("Address of a node: grpc://host:port, grpc+tls://host:port or host:port (env ") +
                       client::kBootstrapEnv + ", default " + client::kDefaultBootstrap + ")")
      ->envname(client::kBootstrapEnv);
}

Result<std::unique_ptr<flight::FlightClient>> ConnectToNode(const ClientOptions& options) {
  flight::FlightClientOptions client_options;
  client_options.connect_timeout = std::chrono::milliseconds(5'000);
  MINK_RETURN_IF_ERROR(client::ApplyEnvironment(&client_options));
  auto client = flight::FlightClient::Connect(options.bootstrap, client_options);
  if (!client.ok() && client.status().code() == StatusCode::kInvalidArgument) {
    return InvalidArgumentError("bad node address: " + client.status().message());
  }
  return client;
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& item : Split(text, ',')) {
    std::string_view trimmed = Trim(item);
    if (!trimmed.empty()) out.emplace_back(trimmed);
  }
  return out;
}

std::vector<std::string> SplitLists(const std::vector<std::string>& items) {
  std::vector<std::string> out;
  for (const auto& item : items) {
    for (auto& s : SplitList(item)) out.push_back(std::move(s));
  }
  return out;
}

Status CheckTableName(const std::string& name) {
  // The database ends at the first dot; a table name may have more (Kafka topics).
  size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == name.size()) {
    return InvalidArgumentError("'" + name + "' is not a table name: write database.table");
  }
  return Status::Ok();
}

bool IsTerminal(int fd) { return isatty(fd) == 1; }

bool WriteStdout(std::string_view text) {
  if (text.empty()) return true;
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) return false;
  return std::fflush(stdout) == 0;
}

Result<client::TableDescription> DescribeTable(flight::FlightClient& client,
                                               const std::string& table) {
  MINK_ASSIGN_OR_RETURN(auto described,
                        client::RunAction(client, "describe-table", nlohmann::json{{"table", table}}));
  MINK_ASSIGN_OR_RETURN(client::TableDescription description,
                        client::ParseTableDescription(described));
  if (description.table.empty()) description.table = table;
  return description;
}

int RunNodeAction(std::string_view command, const ClientOptions& options, const std::string& action,
                  const nlohmann::json& body, nlohmann::json* result) {
  auto client = ConnectToNode(options);
  if (!client.ok()) return ReportError(command, client.status());
  auto answer = client::RunAction(**client, action, body);
  if (!answer.ok()) return ReportError(command, answer.status());
  if (result != nullptr) *result = std::move(*answer);
  return kExitOk;
}

}  // namespace mink::cli
