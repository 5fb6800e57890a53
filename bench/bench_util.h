#pragma once
// What every load driver in bench/ shares: the stop flag set by SIGINT/SIGTERM, latency
// distributions, random payloads, and the disk probes that give each run its limit (the disk's
// own bandwidth and the latency of one small durable write, measured in the same directory).

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"

namespace mink::bench {

// Set by SIGINT/SIGTERM once InstallStopSignals() ran: phases end early, drivers clean up.
extern std::atomic<bool> g_interrupted;
void InstallStopSignals();

double Seconds(SteadyTime from, SteadyTime to);
// The steady clock in microseconds.
int64_t SteadyMicros();
// The CPU time (user + system) of this whole process so far.
double ProcessCpuSeconds();

// A half-load phase follows one that wrote as fast as the disk takes, and is measured from at
// least this long after it starts: for about 1.3 s the disk is still answering that burst (puts
// of 20-30 ms, against 1-6 ms later at the same rate). That is the earlier phase's wake.
inline constexpr int kSettleAfterFullSpeedMs = 3000;

struct Distribution {
  uint64_t count = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0, mean_ms = 0;
};
// Nearest-rank percentiles of samples in microseconds.
Distribution Summarize(std::vector<int64_t> us);

// `n` pseudo-random bytes (incompressible payloads), the same for the same seed.
std::string RandomBytes(size_t n, uint64_t seed);

inline constexpr int kMaxDiskFiles = 64;  // the disk probe writes at most this many files
inline constexpr size_t kDiskFileBytes = 8 << 20;

struct DiskResult {
  int files = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  double mb_s = 0;
  Distribution file_time;  // create + write 8 MiB + fdatasync + close
  std::string error;
};
// `writers` threads write and fdatasync new 8 MiB files in `dir` until 64 files are written or
// `seconds` pass; MB/s = bytes / wall time. The files are deleted afterwards.
DiskResult MeasureDisk(const std::string& dir, int seconds, int writers);
// The latency of one 4 KiB write + fdatasync (what a lightly loaded commit pays at least);
// at most 200 samples or 2 s.
Distribution MeasureSmallSync(const std::string& dir);

// One reading of a live thread of this process (/proc/self/task/<tid>).
struct ThreadSample {
  std::string name;
  double cpu_seconds = 0;     // user + system (stat)
  uint64_t run_delay_ns = 0;  // runnable but waiting for a CPU (schedstat)
};
// Every live thread of this process (at most 4096), by thread id.
std::map<int, ThreadSample> SampleThreads();
// The run delays of SampleThreads(), by thread id: how much other load delays our threads.
std::map<int, uint64_t> RunDelays();

// Pauses of the whole machine, as opposed to our threads waiting for each other: a thread of the
// real-time class (SCHED_FIFO priority 1, above every ordinary thread, so none of ours delays it;
// ordinary priority where that is not permitted) sleeps 1 ms at a time and counts how far it
// oversleeps. On this kind of
// virtual machine the host stops both vCPUs for 10-20 ms at the end of a 100 ms period when the
// guest keeps them busy while it writes to the disk (docs/performance.md), and every
// acknowledgement in flight waits that long.
class PauseWatch {
 public:
  struct Reading {
    uint64_t pauses = 0;      // oversleeps longer than kPauseMs
    double paused_ms = 0;     // their sum
    double max_ms = 0;        // the longest
    bool realtime = false;    // the watcher runs SCHED_FIFO
  };
  static constexpr double kPauseMs = 4;

  PauseWatch();
  ~PauseWatch();
  PauseWatch(const PauseWatch&) = delete;
  PauseWatch& operator=(const PauseWatch&) = delete;

  // What was seen since the last Take (or the start), and starts afresh.
  Reading Take();
  // "N pauses of the machine over 4 ms, X ms in all, longest Y ms" for a phase's report.
  static std::string Describe(const Reading& r);

 private:
  void Run();
  std::mutex mutex_;
  Reading current_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace mink::bench
