#pragma once
// What every client command of `mink` shares: the node address (-b / MINK_BOOTSTRAP / the
// default), connecting, error reporting and the one Status -> exit code mapping. The JSON action
// call itself is client/action.h.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "client/action.h"
#include "client/table_description.h"
#include "flight/client/flight_client.h"

namespace CLI {
class App;
}

namespace mink::cli {

// Exit codes: 0 success, 1 the node failed or refused (or cannot be reached), 2 bad usage or bad
// input (including InvalidArgument answers of the node).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

int ExitCodeFor(const Status& status);
// Prints "mink <command>: <message>" on stderr and returns ExitCodeFor(status).
int ReportError(std::string_view command, const Status& status);

struct ClientOptions {
  std::string bootstrap = client::kDefaultBootstrap;
};

// Adds -b/--bootstrap (env MINK_BOOTSTRAP) to a client command.
void AddBootstrapOption(CLI::App* command, ClientOptions* options);

// Connects to the node; a node that cannot be reached is Unavailable
// "cannot reach node at HOST:PORT: ...".
Result<std::unique_ptr<flight::FlightClient>> ConnectToNode(const ClientOptions& options);

// Connects and runs one action; on failure prints "mink <command>: ..." and returns its exit
// code, else kExitOk with the answer in *result (when given).
int RunNodeAction(std::string_view command, const ClientOptions& options, const std::string& action,
                  const nlohmann::json& body, nlohmann::json* result);

// The node's description of a table (describe-table), its name filled in.
Result<client::TableDescription> DescribeTable(flight::FlightClient& client,
                                               const std::string& table);

// "a, b,c" -> {"a", "b", "c"} (blanks trimmed, empty items dropped).
std::vector<std::string> SplitList(const std::string& text);
// Appends SplitList of every item (so both "-x a,b" and "-x a -x b" work).
std::vector<std::string> SplitLists(const std::vector<std::string>& items);

// "database.table": InvalidArgument unless there is exactly one dot between two names.
Status CheckTableName(const std::string& name);

bool IsTerminal(int fd);

// Writes everything to stdout; false when stdout is gone (EPIPE: the reader quit).
bool WriteStdout(std::string_view text);

}  // namespace mink::cli
