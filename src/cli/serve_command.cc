// mink serve: runs a node until SIGINT or SIGTERM.

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <memory>

#include "base/log.h"
#include "cli/commands.h"
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
  log::Format format;
  if (!log::ParseFormat(config->log_format, &format)) {
    std::fprintf(stderr, "mink serve: unknown log format '%s' (text, json)\n", config->log_format.c_str());
    return 2;
  }
  log::SetFormat(format);
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

struct ServeOptions {
  std::string config_file;
  std::map<std::string, std::string> values;
  std::vector<std::pair<std::string, CLI::Option*>> options;
};

}  // namespace

void AddServeCommand(CLI::App* app, int* exit_code) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* serve = app->add_subcommand("serve", "Run a node");
  serve->add_option("--config", o->config_file, "TOML configuration file (env MINK_CONFIG)")
      ->envname("MINK_CONFIG");
  for (const auto& s : config::ServeSettings()) {
    std::string help = s.help + " (env " + s.Env() + ", config key " + s.key;
    if (!s.default_text.empty()) help += ", default " + s.default_text;
    help += ")";
    auto* opt = serve->add_option(s.Flag(), o->values[s.key], help);
    o->options.emplace_back(s.key, opt);
  }
  serve->callback([o, exit_code] {
    std::map<std::string, std::string> given;
    for (auto& [key, opt] : o->options) {
      if (opt->count() > 0) given[key] = o->values[key];
    }
    *exit_code = RunServe(given, o->config_file);
  });
}

}  // namespace mink::cli
