#pragma once
// CpuMeter: the cores a load phase used, split between the clients' threads (librdkafka's
// "rdk:..." and the drivers' "bench-...") and the node's, with how long the node's threads
// waited for a CPU: on a small machine clients and node share the cores.

#include <fmt/format.h>
#include <time.h>

#include <map>
#include <mutex>
#include <string>

#include "bench_util.h"

namespace mink::bench {

// The clients' threads: librdkafka's ("rdk:...") and the benchmark's load threads.
inline bool IsClientThread(const std::string& name) {
  return name.rfind("rdk:", 0) == 0 || name.rfind("bench-", 0) == 0;
}

// Cores used between two readings over `seconds` of wall time, and how the live threads split
// them between the clients and the node: on a small machine they share the cores, and one
// librdkafka broker thread (one per connection) near a full core caps its client.
struct CpuMeter {
  double cpu0 = ProcessCpuSeconds();
  SteadyTime wall0 = SteadyNow();
  std::map<int, ThreadSample> threads0 = SampleThreads();
  std::mutex mutex;
  double exited_client_seconds = 0;  // of load threads that ended before Mark
  std::string split;

  // Called by a load thread as it ends (it is gone from /proc by the time Mark runs).
  void ClientThreadEnds() {
    timespec t{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    std::lock_guard<std::mutex> lock(mutex);
    exited_client_seconds += static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
  }

  // Notes the split of the threads alive now; call it before the clients are destroyed.
  void Mark() {
    const double wall = Seconds(wall0, SteadyNow());
    if (wall <= 0) return;
    double client = 0, node = 0, busiest = 0, node_waited = 0;
    {
      std::lock_guard<std::mutex> lock(mutex);
      client = exited_client_seconds;
    }
    std::string busiest_name;
    for (const auto& [tid, now] : SampleThreads()) {
      auto before = threads0.find(tid);
      const bool existed = before != threads0.end();
      const double used = now.cpu_seconds - (existed ? before->second.cpu_seconds : 0);
      if (IsClientThread(now.name)) {
        client += used;
        if (used > busiest) busiest = used, busiest_name = now.name;
      } else {
        node += used;
        node_waited +=
            static_cast<double>(now.run_delay_ns - (existed ? before->second.run_delay_ns : 0)) / 1e9;
      }
    }
    // The node's threads waiting for a CPU is how much the clients' load delays its answers.
    split = fmt::format(
        ": clients {:.2f} (busiest thread {} {:.2f}), node {:.2f}; node threads waited {:.0f} ms "
        "per s for a CPU",
        client / wall, busiest_name, busiest / wall, node / wall, node_waited / wall * 1000);
  }
  std::string Report() const {
    const double wall = Seconds(wall0, SteadyNow());
    const double cpu = ProcessCpuSeconds() - cpu0;
    return fmt::format("process CPU {:.1f} s in {:.1f} s = {:.2f} cores{}", cpu, wall,
                       wall > 0 ? cpu / wall : 0, split);
  }
};

}  // namespace mink::bench
