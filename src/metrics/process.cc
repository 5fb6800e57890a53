// The process's standard metrics, read from /proc/self (Linux).
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "metrics/metrics.h"

namespace mink::metrics {
namespace {

Family OneValue(std::string name, std::string help, double value, Family::Type type = Family::Type::kGauge) {
  return Family{std::move(name), std::move(help), type, {Sample{{}, value}}};
}

// Seconds since the epoch at which the system booted (/proc/stat's btime).
double BootTime() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime") {
      in >> value;
      return value;
    }
    in.ignore(1 << 20, '\n');
  }
  return 0;
}

}  // namespace

std::vector<Family> ProcessFamilies() {
  std::vector<Family> out;
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces, so from its closing parenthesis):
  // state is field 3; utime 14, stime 15, starttime 22, vsize 23, rss 24.
  const size_t close = stat.rfind(')');
  if (close != std::string::npos) {
    std::istringstream fields(stat.substr(close + 2));
    std::vector<std::string> f;
    for (std::string x; fields >> x;) f.push_back(x);
    auto field = [&](size_t n) { return n - 3 < f.size() ? std::stod(f[n - 3]) : 0.0; };
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    out.push_back(OneValue("process_cpu_seconds_total", "User and system CPU time spent in seconds.",
                        (field(14) + field(15)) / ticks, Family::Type::kCounter));
    out.push_back(OneValue("process_virtual_memory_bytes", "Virtual memory size in bytes.", field(23)));
    out.push_back(OneValue("process_resident_memory_bytes", "Resident memory size in bytes.", field(24) * page));
    out.push_back(OneValue("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
                        BootTime() + field(22) / ticks));
  }
  int fds = 0;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (readdir(dir) != nullptr) ++fds;
    closedir(dir);
    fds -= 3;  // ".", ".." and the directory's own descriptor
  }
  out.push_back(OneValue("process_open_fds", "Number of open file descriptors.", fds));
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    out.push_back(OneValue("process_max_fds", "Maximum number of open file descriptors.",
                        static_cast<double>(limit.rlim_cur)));
  }
  return out;
}

}  // namespace mink::metrics
