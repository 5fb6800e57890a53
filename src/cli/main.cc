// `mink`: `mink serve` runs a node; the other subcommands are clients of a node.

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "base/log.h"
#include "config/serve_config.h"
#include "node/node.h"

namespace mink::cli {
namespace {

int RunServe(const std::map<std::string, std::string>& flags, const std::string& config_file) {
  config::ConfigSources sources;
  auto config = config::LoadServeConfig(flags, config_file, config::MinkEnvironment(), &sources);
  if (!config.ok()) {
    std::fprintf(stderr, "mink serve: %s\n", config.status().message().c_str());
    return 2;
  }
  log::Level level;
  if (!log::ParseLevel(config->log_level, &level)) {
    std::fprintf(stderr, "mink serve: unknown log level '%s' (debug, info, warn, error)\n",
                 config->log_level.c_str());
    return 2;
  }
  log::SetLevel(level);
  // Signals are taken synchronously by this thread; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto node = node::Node::Start(*config);
  if (!node.ok()) {
    std::fprintf(stderr, "mink serve: %s\n", node.status().ToString().c_str());
    return 1;
  }
  int sig = 0;
  sigwait(&signals, &sig);
  MINK_LOG_INFO("node", "received {}, stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
  (*node)->Stop();
  return 0;
}

}  // namespace
}  // namespace mink::cli

int main(int argc, char** argv) {
  CLI::App app{"Mink: a streaming storage system for tables.\n"
               "`mink serve` runs a node; the other commands are clients of a node."};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every command");

  CLI::App* serve = app.add_subcommand("serve", "Run a node");
  std::string config_file;
  serve->add_option("--config", config_file, "TOML configuration file (env MINK_CONFIG)")
      ->envname("MINK_CONFIG");
  std::map<std::string, std::string> values;
  std::vector<std::pair<std::string, CLI::Option*>> options;
  for (const auto& s : mink::config::ServeSettings()) {
    std::string help = s.help + " (env " + s.Env() + ", config key " + s.key;
    if (!s.default_text.empty()) help += ", default " + s.default_text;
    help += ")";
    auto* opt = serve->add_option(s.Flag(), values[s.key], help);
    options.emplace_back(s.key, opt);
  }

  CLI11_PARSE(app, argc, argv);

  if (serve->parsed()) {
    std::map<std::string, std::string> given;
    for (auto& [key, opt] : options) {
      if (opt->count() > 0) given[key] = values[key];
    }
    return mink::cli::RunServe(given, config_file);
  }
  return 0;
}
