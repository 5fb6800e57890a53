#pragma once
// stream_append_bench's results: one phase's figures and where its latency goes, printed as text
// and as JSON (stream_append_bench.cc is the driver; bench/README.md the phases).

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "bench_util.h"
#include "stream_append_timing.h"

namespace mink::bench {

// Where the acknowledgement latency of the appends goes, by tracing each append to the Put of
// the WAL object that carried it: [called, put start) is the wait in the open object until the
// seal, the seal (encode + crc) and the upload queue; [put start, put end) is the object write;
// [put end, ack) is the metadata commit, including waiting for earlier objects (commits go in
// seal order) and the commit transaction itself.
struct Breakdown {
  uint64_t traced = 0;
  Distribution open_seal, put, commit;
  // Mean of each part over the slowest 1% of appends (latency >= p99).
  double slow_open_seal_ms = 0, slow_put_ms = 0, slow_commit_ms = 0;
};

struct PhaseResult {
  double seconds = 0;
  uint64_t acked_appends = 0;
  uint64_t acked_bytes = 0;
  double mb_s = 0;
  double records_s = 0;
  Distribution latency;
  Breakdown breakdown;
  double max_lag_ms = 0;
  uint64_t errors = 0;
  std::string first_error;
  bool drained = true;
  double target_mb_s = 0;  // open loop only
  // Where the time goes.
  CallTimes::Taken puts;
  CallTimes::Taken commits;
  CallTimes::Taken snapshots;
  uint64_t metadata_body_bytes = 0;
  double cpu_user = 0, cpu_system = 0;
  double run_delay_s = 0;   // summed over our threads: runnable, waiting for a CPU
  double load_average = 0;  // 1-minute load average of the machine when the window opened
  PauseWatch::Reading pauses;
};

// ---------------------------------------------------------------------------------------------
// Output

inline void PrintPhase(const char* name, const PhaseResult& r) {
  fmt::print("\n{}\n", name);
  if (r.target_mb_s > 0)
    fmt::print("  offered load          {:10.1f} MB/s (paced)\n", r.target_mb_s);
  fmt::print("  acknowledged          {:10.1f} MB/s   {:10.0f} records/s   {:8.0f} appends/s\n",
             r.mb_s, r.records_s, static_cast<double>(r.acked_appends) / r.seconds);
  fmt::print(
      "  ack latency           p50 {:7.2f} ms   p99 {:7.2f} ms   max {:7.2f} ms   ({} appends)\n",
      r.latency.p50_ms, r.latency.p99_ms, r.latency.max_ms, r.latency.count);
  const Breakdown& b = r.breakdown;
  fmt::print("  latency parts         (traced {} appends to the Put of their WAL object)\n",
             b.traced);
  fmt::print(
      "    open object + seal  p50 {:7.2f} ms   p99 {:7.2f} ms   mean in slowest 1% {:7.2f} ms\n",
      b.open_seal.p50_ms, b.open_seal.p99_ms, b.slow_open_seal_ms);
  fmt::print(
      "    object put          p50 {:7.2f} ms   p99 {:7.2f} ms   mean in slowest 1% {:7.2f} ms\n",
      b.put.p50_ms, b.put.p99_ms, b.slow_put_ms);
  fmt::print(
      "    commit (in order)   p50 {:7.2f} ms   p99 {:7.2f} ms   mean in slowest 1% {:7.2f} ms\n",
      b.commit.p50_ms, b.commit.p99_ms, b.slow_commit_ms);
  if (r.target_mb_s > 0) {
    fmt::print("  schedule lag          max {:7.2f} ms (how late an append was called)\n",
               r.max_lag_ms);
  }
  double mean_object = r.puts.calls ? static_cast<double>(r.puts.bytes) / r.puts.calls / 1e6 : 0;
  fmt::print(
      "  WAL objects           {:6} put, {:6.2f} MB mean; put (write+fdatasync+rename+dir fsync) "
      "p50 {:6.2f} ms p99 {:6.2f} ms max {:6.2f} ms\n",
      r.puts.calls, mean_object, r.puts.time.p50_ms, r.puts.time.p99_ms, r.puts.time.max_ms);
  fmt::print(
      "  metadata commits      {:6} txn, {:6.0f} B JSON mean; txn (catch-up+build+insert+COMMIT) "
      "p50 {:6.2f} ms p99 {:6.2f} ms max {:6.2f} ms\n",
      r.commits.calls,
      r.commits.calls ? static_cast<double>(r.metadata_body_bytes) / r.commits.calls : 0.0,
      r.commits.time.p50_ms, r.commits.time.p99_ms, r.commits.time.max_ms);
  if (r.snapshots.calls > 0) {
    fmt::print("  metadata snapshots    {:6}, {:6.2f} MB mean, max {:6.2f} ms\n", r.snapshots.calls,
               static_cast<double>(r.snapshots.bytes) / r.snapshots.calls / 1e6,
               r.snapshots.time.max_ms);
  }
  fmt::print("  CPU                   user {:5.2f} s  sys {:5.2f} s  = {:4.2f} of {} cores\n",
             r.cpu_user, r.cpu_system, (r.cpu_user + r.cpu_system) / r.seconds,
             std::thread::hardware_concurrency());
  fmt::print(
      "  CPU contention        our threads waited {:.2f} s for a CPU ({:.0f} ms per s); "
      "load average {:.2f}\n",
      r.run_delay_s, r.run_delay_s * 1000 / r.seconds, r.load_average);
  fmt::print("  pauses                {}\n", PauseWatch::Describe(r.pauses));
  if (r.errors > 0) fmt::print("  ERRORS                {} (first: {})\n", r.errors, r.first_error);
  if (!r.drained)
    fmt::print("  WARNING               appends still unacknowledged after the drain\n");
}

inline std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out;
}

inline std::string JsonPhase(const PhaseResult& r) {
  return fmt::format(
      "{{\"mb_s\":{:.2f},\"records_s\":{:.0f},\"appends\":{},\"p50_ms\":{:.3f},\"p99_ms\":{:.3f},"
      "\"max_ms\":{:.3f},\"max_lag_ms\":{:.3f},\"target_mb_s\":{:.2f},\"errors\":{},"
      "\"objects\":{},\"object_mb_mean\":{:.3f},\"put_p50_ms\":{:.3f},\"put_p99_ms\":{:.3f},"
      "\"commits\":{},\"commit_p50_ms\":{:.3f},\"commit_p99_ms\":{:.3f},\"snapshots\":{},"
      "\"cpu_user_s\":{:.2f},\"cpu_sys_s\":{:.2f},\"run_delay_s\":{:.3f},"
      "\"load_average\":{:.2f},\"pauses\":{},\"paused_ms\":{:.1f},\"parts\":{{\"open_seal_p50_ms\":{:.3f},"
      "\"open_seal_p99_ms\":{:.3f},\"put_p50_ms\":{:.3f},\"put_p99_ms\":{:.3f},"
      "\"commit_p50_ms\":{:.3f},\"commit_p99_ms\":{:.3f},\"slow_open_seal_ms\":{:.3f},"
      "\"slow_put_ms\":{:.3f},\"slow_commit_ms\":{:.3f}}}}}",
      r.mb_s, r.records_s, r.acked_appends, r.latency.p50_ms, r.latency.p99_ms, r.latency.max_ms,
      r.max_lag_ms, r.target_mb_s, r.errors, r.puts.calls,
      r.puts.calls ? static_cast<double>(r.puts.bytes) / r.puts.calls / 1e6 : 0.0,
      r.puts.time.p50_ms, r.puts.time.p99_ms, r.commits.calls, r.commits.time.p50_ms,
      r.commits.time.p99_ms, r.snapshots.calls, r.cpu_user, r.cpu_system, r.run_delay_s,
      r.load_average, r.pauses.pauses, r.pauses.paused_ms, r.breakdown.open_seal.p50_ms, r.breakdown.open_seal.p99_ms,
      r.breakdown.put.p50_ms, r.breakdown.put.p99_ms, r.breakdown.commit.p50_ms,
      r.breakdown.commit.p99_ms, r.breakdown.slow_open_seal_ms, r.breakdown.slow_put_ms,
      r.breakdown.slow_commit_ms);
}

}  // namespace mink::bench
