#pragma once
// The subcommands of mink-query; each adds itself to the CLI11 app and sets *exit_code.

namespace CLI {
class App;
}

namespace mink::query {

struct CommonOptions;

void AddExecCommand(CLI::App* app, CommonOptions* common, int* exit_code);
void AddShellCommand(CLI::App* app, CommonOptions* common, int* exit_code);
void AddServeCommand(CLI::App* app, CommonOptions* common, int* exit_code);

}  // namespace mink::query
