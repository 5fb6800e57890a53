#include "query/common.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "base/strings.h"

namespace mink::query {

int ExitCodeFor(const Status& status) {
  if (status.ok()) return kExitOk;
  return status.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitError;
}

int ReportError(std::string_view command, const Status& status) {
  std::string text = "mink-query ";
  text += command;
  text += ": ";
  text += status.message().empty() ? std::string(StatusCodeName(status.code())) : status.message();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  text += '\n';
  std::fflush(stdout);
  std::fwrite(text.data(), 1, text.size(), stderr);
  return ExitCodeFor(status);
}

Result<std::unique_ptr<Engine>> OpenEngine(const CommonOptions& options) {
  EngineOptions engine_options;
  engine_options.bootstrap = options.bootstrap;
  engine_options.threads = options.threads;
  engine_options.allow_local_files = options.allow_local_files;
  engine_options.authorization = options.authorization;
  if (!options.memory_limit.empty()) {
    MINK_ASSIGN_OR_RETURN(engine_options.memory_bytes, ParseByteSize(options.memory_limit));
  }
  if (!options.timeout.empty()) {
    MINK_ASSIGN_OR_RETURN(engine_options.timeout.limit, ParseDuration(options.timeout));
    engine_options.timeout.setting = "--timeout";
  }
  return Engine::Open(engine_options);
}

bool IsTerminal(int fd) { return isatty(fd) == 1; }

bool WriteStdout(std::string_view text) {
  while (!text.empty()) {
    ssize_t n = write(STDOUT_FILENO, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace mink::query
