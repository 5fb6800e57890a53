#pragma once
// The client commands of `mink`, each registered on the CLI11 app by main.cc. A command's
// callback stores its exit code in *exit_code (see cli_common.h for the codes).

namespace CLI {
class App;
}

namespace mink::cli {

// mink serve (runs a node)
void AddServeCommand(CLI::App* app, int* exit_code);
// mink db create|list|drop
void AddDbCommands(CLI::App* app, int* exit_code);
void AddClusterCommands(CLI::App* app, int* exit_code);
// mink table create|list|describe|drop|offsets
void AddTableCommands(CLI::App* app, int* exit_code);
// mink write
void AddWriteCommand(CLI::App* app, int* exit_code);
// mink read
void AddReadCommand(CLI::App* app, int* exit_code);
// mink lookup
void AddLookupCommand(CLI::App* app, int* exit_code);
// mink user create|delete|list
void AddUserCommands(CLI::App* app, int* exit_code);
void AddAclCommands(CLI::App* app, int* exit_code);

}  // namespace mink::cli
