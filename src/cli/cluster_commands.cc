// mink cluster nodes

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "client/table_printer.h"

namespace mink::cli {
namespace {

using nlohmann::json;

struct ClusterOptions {
  ClientOptions client;
  std::string format;
};

int Nodes(const ClusterOptions& o) {
  const char* kCommand = "cluster nodes";
  auto node = ConnectToNode(o.client);
  if (!node.ok()) return ReportError(kCommand, node.status());
  auto result = client::RunAction(**node, "list-nodes", json::object());
  if (!result.ok()) return ReportError(kCommand, result.status());
  const bool as_json = o.format.empty() ? !IsTerminal(STDOUT_FILENO) : o.format == "json";
  std::string out;
  client::TablePrinter printer(
      {"node", "epoch", "flight", "kafka", "live", "coordinator", "buckets"},
      {true, true, false, false, false, false, true});
  if (auto it = result->find("nodes"); it != result->end() && it->is_array()) {
    for (const auto& n : *it) {
      if (!n.is_object()) continue;
      // One object per line, the keys as the node sends them.
      json line = {{"node", n.value("node", 0)},       {"epoch", n.value("epoch", 0)},
                   {"flight", n.value("flight", "")},  {"kafka", n.value("kafka", "")},
                   {"live", n.value("live", false)},   {"buckets", n.value("buckets", 0)},
                   {"coordinator", n.value("coordinator", false)}};
      if (as_json) {
        out += line.dump() + "\n";
      } else {
        printer.AddRow({std::to_string(line["node"].get<int64_t>()),
                        std::to_string(line["epoch"].get<int64_t>()),
                        line["flight"].get<std::string>(), line["kafka"].get<std::string>(),
                        line["live"].get<bool>() ? "yes" : "no",
                        line["coordinator"].get<bool>() ? "yes" : "",
                        std::to_string(line["buckets"].get<int64_t>())});
      }
    }
  }
  if (!as_json) printer.Render(&out);
  WriteStdout(out);
  return kExitOk;
}

}  // namespace

void AddClusterCommands(CLI::App* app, int* exit_code) {
  CLI::App* cluster = app->add_subcommand("cluster", "The nodes of the cluster");
  cluster->require_subcommand(1);
  auto o = std::make_shared<ClusterOptions>();
  CLI::App* nodes = cluster->add_subcommand(
      "nodes",
      "Every node: id, epoch, advertised Flight and Kafka addresses, live, coordinator, buckets");
  nodes->add_option("--format", o->format, "json (one object per line) or text (default: text on "
                                           "a terminal, json otherwise)")
      ->check(CLI::IsMember({"json", "text"}));
  AddBootstrapOption(nodes, &o->client);
  nodes->callback([o, exit_code] { *exit_code = Nodes(*o); });
}

}  // namespace mink::cli
