#pragma once
// What the mink-query commands share: the cluster address and engine options, opening the
// engine, and the Status -> exit code mapping of the `mink` CLI (0 ok, 1 failed, 2 bad usage or
// a SQL error).

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "query/engine.h"

namespace mink::query {

struct CommonOptions {
  std::string bootstrap = client::kDefaultBootstrap;
  int threads = 0;
  std::string memory_limit;  // "2GiB"; "": DuckDB's default
  std::string timeout;       // "30s"; "": none
  // exec and shell: SQL may read and write this machine's files as the user running it
  // (COPY TO a file, read_parquet), never a URL or an extension. serve has no such flag.
  bool allow_local_files = false;
  // Who the engine's own sessions read as (EngineOptions::authorization); unset: the environment.
  std::optional<std::string> authorization;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;

int ExitCodeFor(const Status& status);
// Prints "mink-query <command>: <message>" on stderr and returns ExitCodeFor(status).
int ReportError(std::string_view command, const Status& status);

Result<std::unique_ptr<Engine>> OpenEngine(const CommonOptions& options);

bool IsTerminal(int fd);
bool WriteStdout(std::string_view text);

}  // namespace mink::query
