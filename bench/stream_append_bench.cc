// stream_append_bench: appends 1 KiB records through the stream layer (StreamStore on a SQLite
// metadata log and a file:// object store) and prints the acknowledged throughput and the
// acknowledgement latency beside the disk's own bandwidth, measured in the same run and the same
// directory. bench/README.md describes the phases; docs/performance.md has the results.
//
// Vocabulary: a "record" is --record-bytes of opaque payload; an "append" is one
// StreamStore::Append call carrying one batch of --records-per-batch records to one stream. MB is
// 10^6 bytes and counts record payload bytes only (not the 56-byte batch header).
//
// Every loop is bounded by a count and a deadline; the process only touches its own directory.

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/clock.h"
#include "base/log.h"
#include "base/memory.h"
#include "metadata/log_store.h"
#include "metadata/metadata_log.h"
#include "metrics/metrics.h"
#include "object_store/file_store.h"
#include "object_store/forwarding_store.h"
#include "storage/batch_format.h"
#include "storage/object_format.h"
#include "storage/stream_store.h"
#include "bench_util.h"
#include "stream_append_report.h"
#include "stream_append_timing.h"

namespace mink::bench {
namespace {

using Millis = std::chrono::milliseconds;
using Micros = std::chrono::microseconds;

constexpr auto kDrainTimeout = std::chrono::seconds(60);
constexpr uint64_t kMaxAppendsPerPhase = 50'000'000;  // a count bound beside the deadline
constexpr uint64_t kMaxErrors = 1000;                 // a phase gives up after this many
constexpr size_t kMaxTraces = 2'000'000;              // appends traced per phase


// ---------------------------------------------------------------------------------------------
// Flags

struct Flags {
  std::string dir;  // parent of the run directory; empty = $TMPDIR or /tmp
  bool keep = false;
  int seconds = 10;
  int warmup_ms = 1000;
  size_t record_bytes = 1024;
  int records_per_batch = 64;
  int streams = 8;
  int producers = 4;
  int flush_interval_ms = 10;
  size_t max_pending = 128 << 20;
  size_t wal_max_bytes = storage::StorageOptions{}.wal_max_bytes;
  int inflight_uploads = storage::StorageOptions{}.wal_max_inflight_uploads;
  int eager_uploads = 1;
  size_t seal_bytes = storage::StorageOptions{}.wal_seal_bytes;
  double paced_mb_s = 0;  // > 0: only the open-loop phase, at this rate (A/B experiments)
  std::string wal_put = "in-place";
  int64_t snapshot_every = metadata::MetadataOptions{}.snapshot_every;
  int maintenance_every_ms = 0;  // > 0: compaction and garbage collection run during the phases
  bool json = false;
  bool metrics = true;  // record metrics (the WAL's latencies): their cost is on vs off
};

// Fills `f`; nullopt to run, else the exit status after --help (0) or a bad flag (printed).
std::optional<int> ParseFlags(int argc, char** argv, Flags* f) {
  CLI::App app{"stream_append_bench: 1 KiB records through the stream layer beside the disk's "
               "own bandwidth (bench/README.md)"};
  app.add_option("--dir", f->dir,
                 "the run works in a new directory under it, removed at exit (default $TMPDIR "
                 "or /tmp)");
  app.add_flag("--keep", f->keep, "keep the run directory");
  app.add_option("--seconds", f->seconds, "measured seconds per phase")->check(CLI::Range(1, 600));
  app.add_option("--warmup-ms", f->warmup_ms, "unmeasured start of each stream phase")
      ->check(CLI::Range(0, 60'000));
  app.add_option("--record-bytes", f->record_bytes, "payload bytes of one record")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--records-per-batch", f->records_per_batch, "records carried by one Append")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--streams", f->streams, "streams written, round-robin")
      ->check(CLI::Range(1, 10'000));
  app.add_option("--producers", f->producers, "appending threads")->check(CLI::Range(1, 64));
  app.add_option("--flush-interval-ms", f->flush_interval_ms, "wal.flush_interval")
      ->check(CLI::Range(1, 10'000));
  app.add_option("--max-pending", f->max_pending,
                 "phase 2: bytes in flight (appended, not yet acknowledged); "
                 "StorageOptions::max_pending_bytes is 2x, 256 MiB by default as in a node")
      ->check(CLI::Range(int64_t{1} << 16, int64_t{1} << 34));
  app.add_option("--wal-max-bytes", f->wal_max_bytes,
                 "wal.max_bytes: seal the open WAL object at this size")
      ->check(CLI::Range(int64_t{1} << 12, int64_t{1} << 30));
  app.add_option("--inflight-uploads", f->inflight_uploads,
                 "wal.max_inflight_uploads; also the writer count of the parallel disk "
                 "measurement")
      ->check(CLI::Range(1, 64));
  app.add_option("--paced-mb-s", f->paced_mb_s,
                 "experiments: skip phase 2 and run the open loop at this rate (MB/s), so two "
                 "builds or settings meet the same load; no targets are judged")
      ->check(CLI::Range(0.0, 100000.0));
  app.add_option("--seal-bytes", f->seal_bytes,
                 "wal.seal_bytes: seal at once when the open object holds this many bytes and an "
                 "upload slot is free (0: by flush interval and max bytes only)")
      ->check(CLI::Range(size_t{0}, size_t{1} << 30));
  app.add_option("--eager-uploads", f->eager_uploads,
                 "wal.eager_uploads: seal at once while fewer than this many uploads run "
                 "(0: by flush interval and size only; 1, the node's default)")
      ->check(CLI::Range(0, 64));
  app.add_option("--snapshot-every", f->snapshot_every,
                 "metadata state snapshot every this many commands (0: none), as a node does")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  app.add_option("--wal-put", f->wal_put,
                 "in-place: WAL objects are written as a node does (PutUnpublished: in place, "
                 "O_DIRECT from 256 KiB, directory fsync alongside); in-place-buffered: the "
                 "same through the page cache; rename: through Put (temporary file, rename, "
                 "directory fsync after), for comparison")
      ->check(CLI::IsMember({"in-place", "in-place-buffered", "rename"}));
  app.add_option("--maintenance-every-ms", f->maintenance_every_ms,
                 "experiments: run compaction and garbage collection during the phases, every "
                 "this many ms, on WAL objects and replaced objects this old (a node: 30 s "
                 "compaction, 60 s GC, 5 min grace); 0, the default, runs neither")
      ->check(CLI::Range(0, 600'000));
  app.add_flag("--json", f->json, "also print one JSON line with every figure");
  app.add_option("--metrics", f->metrics, "record metrics (true, false: their cost)");
  try {
    app.parse(argc, argv);
    if (f->record_bytes * static_cast<size_t>(f->records_per_batch) > (64u << 20)) {
      throw CLI::ValidationError("--record-bytes x --records-per-batch",
                                 "one append may carry at most 64 MiB");
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Phases 2 and 3: the stream layer

// One append called inside the measured window.
struct AppendTrace {
  uint64_t stream = 0;
  int64_t base_offset = -1;  // set once Append returns
  SteadyTime called, acked;
  bool ok = false;
};

// What the producers and the callbacks of one phase share. Callbacks hold it by shared_ptr, so it
// outlives any callback that comes late.
struct PhaseState {
  std::mutex mutex;
  std::condition_variable cv;
  SteadyTime window_start, window_end;  // what counts towards the figures
  size_t inflight_bytes = 0;
  uint64_t outstanding = 0;
  uint64_t acked_appends = 0;  // acknowledged inside the window
  uint64_t acked_bytes = 0;
  uint64_t errors = 0;
  std::string first_error;
  std::vector<std::shared_ptr<AppendTrace>> traces;  // appends called inside the window
  int64_t max_lag_us = 0;                            // open loop: how late an append was called
};


class StreamBench {
 public:
  StreamBench(const Flags& flags, storage::StreamStore* store, std::vector<uint64_t> streams,
              TimedObjectStore* objects, CallTimes* commits, CallTimes* snapshots,
              TimedLogStore* log)
      : flags_(flags),
        store_(store),
        streams_(std::move(streams)),
        objects_(objects),
        commits_(commits),
        snapshots_(snapshots),
        log_(log),
        payload_(
            RandomBytes(flags.record_bytes * static_cast<size_t>(flags.records_per_batch), 3)) {}

  // Closed loop: the producers keep --max-pending bytes in flight.
  PhaseResult RunMax() { return Run(/*rate_bytes_s=*/0, flags_.warmup_ms); }
  // Open loop: appends are called on a fixed schedule at `rate_bytes_s`, measured once the
  // closed loop before it has settled (kSettleAfterFullSpeedMs).
  PhaseResult RunPaced(double rate_bytes_s) { return Run(rate_bytes_s, PacedWarmupMs()); }
  int PacedWarmupMs() const { return std::max(flags_.warmup_ms, kSettleAfterFullSpeedMs); }

 private:
  PhaseResult Run(double rate_bytes_s, int warmup_ms) {
    auto st = std::make_shared<PhaseState>();
    const SteadyTime start = SteadyNow() + Millis(20);
    st->window_start = start + Millis(warmup_ms);
    st->window_end = st->window_start + std::chrono::seconds(flags_.seconds);
    const SteadyTime end = st->window_end;
    CpuTime cpu0;
    std::map<int, uint64_t> delays0;
    double load_average = 0;
    std::thread opener([&] {
      // Reset the per-call timers and read the CPU clock when the window opens.
      std::this_thread::sleep_until(st->window_start);
      objects_->puts().Take();
      commits_->Take();
      snapshots_->Take();
      log_->TakeInsertedBytes();
      cpu0 = CpuTime::Now();
      delays0 = RunDelays();
      pauses_.Take();
      load_average = LoadAverage();
    });
    std::vector<std::thread> producers;
    for (int p = 0; p < flags_.producers; ++p) {
      producers.emplace_back([&, p] {
        if (rate_bytes_s > 0) {
          PacedProducer(st, p, start, end, rate_bytes_s);
        } else {
          ClosedProducer(st, p, start, end);
        }
      });
    }
    // The window closes while producers still run, so the figures are not diluted by the drain.
    while (SteadyNow() < end && !g_interrupted.load()) {
      std::this_thread::sleep_until(std::min(end, SteadyNow() + Millis(100)));
    }
    const SteadyTime stopped = std::min(SteadyNow(), end);  // earlier only when interrupted
    CpuTime cpu1 = CpuTime::Now();
    std::map<int, uint64_t> delays1 = RunDelays();
    PhaseResult r;
    r.pauses = pauses_.Take();
    r.puts = objects_->puts().Take();
    r.commits = commits_->Take();
    r.snapshots = snapshots_->Take();
    r.metadata_body_bytes = log_->TakeInsertedBytes();
    for (auto& t : producers) t.join();
    opener.join();
    r.cpu_user = cpu1.user - cpu0.user;
    r.cpu_system = cpu1.system - cpu0.system;
    r.run_delay_s = RunDelaySeconds(delays0, delays1);
    r.load_average = load_average;

    std::unique_lock<std::mutex> lock(st->mutex);
    r.drained = st->cv.wait_for(lock, kDrainTimeout, [&] { return st->outstanding == 0; });
    r.seconds = std::max(1e-3, Seconds(st->window_start, stopped));
    r.acked_appends = st->acked_appends;
    r.acked_bytes = st->acked_bytes;
    r.mb_s = static_cast<double>(r.acked_bytes) / r.seconds / 1e6;
    r.records_s = static_cast<double>(r.acked_appends) * flags_.records_per_batch / r.seconds;
    std::vector<int64_t> latency_us;
    for (const auto& t : st->traces) {
      if (t->ok)
        latency_us.push_back(std::chrono::duration_cast<Micros>(t->acked - t->called).count());
    }
    r.latency = Summarize(std::move(latency_us));
    r.breakdown = Trace(st->traces, r.latency.p99_ms);
    r.max_lag_ms = st->max_lag_us / 1000.0;
    r.errors = st->errors;
    r.first_error = st->first_error;
    r.target_mb_s = rate_bytes_s / 1e6;
    return r;
  }

  storage::BatchInput NextInput() const {
    storage::BatchInput in;
    in.record_count = flags_.records_per_batch;
    in.payload = payload_;
    return in;
  }

  uint64_t StreamFor(int producer, uint64_t k) const {
    return streams_[(static_cast<uint64_t>(producer) + k * flags_.producers) % streams_.size()];
  }

  // Calls Append and wires its callback into the phase state. False when the phase should stop.
  bool AppendOne(const std::shared_ptr<PhaseState>& st, uint64_t stream, SteadyTime scheduled) {
    const size_t bytes = payload_.size();
    storage::BatchInput in = NextInput();
    auto trace = std::make_shared<AppendTrace>();
    trace->stream = stream;
    trace->called = SteadyNow();
    const bool in_window = trace->called >= st->window_start && trace->called < st->window_end;
    {
      std::lock_guard<std::mutex> lock(st->mutex);
      st->inflight_bytes += bytes;
      ++st->outstanding;
      if (in_window) {
        st->max_lag_us = std::max<int64_t>(
            st->max_lag_us, std::chrono::duration_cast<Micros>(trace->called - scheduled).count());
        if (st->traces.size() < kMaxTraces) st->traces.push_back(trace);
      }
    }
    auto done = [st, trace, bytes](Status s) {
      const SteadyTime now = SteadyNow();
      {
        std::lock_guard<std::mutex> lock(st->mutex);
        st->inflight_bytes -= bytes;
        --st->outstanding;
        trace->acked = now;
        trace->ok = s.ok();
        if (!s.ok()) {
          if (st->errors++ == 0) st->first_error = s.ToString();
        } else if (now >= st->window_start && now < st->window_end) {
          ++st->acked_appends;
          st->acked_bytes += bytes;
        }
      }
      st->cv.notify_all();
    };
    Result<int64_t> r = store_->Append(stream, std::move(in), std::move(done));
    std::lock_guard<std::mutex> lock(st->mutex);
    if (r.ok()) {
      trace->base_offset = *r;
    } else {
      st->inflight_bytes -= bytes;
      --st->outstanding;
      if (st->errors++ == 0) st->first_error = r.status().ToString();
    }
    return st->errors < kMaxErrors;
  }

  Breakdown Trace(const std::vector<std::shared_ptr<AppendTrace>>& traces, double p99_ms) const {
    Breakdown b;
    std::vector<int64_t> open_seal, put, commit;
    double slow[3] = {0, 0, 0};
    uint64_t slow_count = 0;
    auto us = [](SteadyTime from, SteadyTime to) {
      return std::chrono::duration_cast<Micros>(to - from).count();
    };
    for (const auto& t : traces) {
      if (!t->ok || t->base_offset < 0) continue;
      std::optional<ObjectTiming> o = objects_->Find(t->stream, t->base_offset);
      if (!o) continue;
      int64_t parts[3] = {us(t->called, o->put_start), us(o->put_start, o->put_end),
                          us(o->put_end, t->acked)};
      open_seal.push_back(parts[0]);
      put.push_back(parts[1]);
      commit.push_back(parts[2]);
      if (us(t->called, t->acked) / 1000.0 >= p99_ms) {
        ++slow_count;
        for (int i = 0; i < 3; ++i) slow[i] += parts[i] / 1000.0;
      }
    }
    b.traced = open_seal.size();
    b.open_seal = Summarize(std::move(open_seal));
    b.put = Summarize(std::move(put));
    b.commit = Summarize(std::move(commit));
    if (slow_count > 0) {
      b.slow_open_seal_ms = slow[0] / slow_count;
      b.slow_put_ms = slow[1] / slow_count;
      b.slow_commit_ms = slow[2] / slow_count;
    }
    return b;
  }

  void ClosedProducer(const std::shared_ptr<PhaseState>& st, int p, SteadyTime start,
                      SteadyTime end) {
    std::this_thread::sleep_until(start);
    for (uint64_t k = 0; k < kMaxAppendsPerPhase && !g_interrupted.load(); ++k) {
      {
        std::unique_lock<std::mutex> lock(st->mutex);
        bool room = st->cv.wait_until(lock, end, [&] {
          return st->inflight_bytes == 0 ||
                 st->inflight_bytes + payload_.size() <= flags_.max_pending;
        });
        if (!room) return;
      }
      if (SteadyNow() >= end) return;
      if (!AppendOne(st, StreamFor(p, k), SteadyNow())) return;
    }
  }

  void PacedProducer(const std::shared_ptr<PhaseState>& st, int p, SteadyTime start, SteadyTime end,
                     double rate_bytes_s) {
    // Append i (over all producers) is due at start + i * interval; producer p calls
    // i = p, p + P, p + 2P, ... and never waits for acknowledgements (open loop).
    const double interval_s = static_cast<double>(payload_.size()) / rate_bytes_s;
    for (uint64_t k = 0; k < kMaxAppendsPerPhase && !g_interrupted.load(); ++k) {
      const uint64_t i = static_cast<uint64_t>(p) + k * flags_.producers;
      const SteadyTime due =
          start + std::chrono::duration_cast<SteadyTime::duration>(
                      std::chrono::duration<double>(static_cast<double>(i) * interval_s));
      if (due >= end) return;
      std::this_thread::sleep_until(due);
      if (!AppendOne(st, StreamFor(p, k), due)) return;
    }
  }

  const Flags flags_;
  storage::StreamStore* const store_;
  const std::vector<uint64_t> streams_;
  TimedObjectStore* const objects_;
  CallTimes* const commits_;
  CallTimes* const snapshots_;
  TimedLogStore* const log_;
  const std::string payload_;
  PauseWatch pauses_;  // the machine's own pauses during each measured window
};

// ---------------------------------------------------------------------------------------------

int Main(int argc, char** argv) {
  Flags flags;
  if (std::optional<int> exit = ParseFlags(argc, argv, &flags)) return *exit;
  log::SetLevel(log::Level::kWarn);
  metrics::SetEnabled(flags.metrics);
  InstallStopSignals();

  std::string parent = flags.dir;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = (tmp != nullptr && *tmp != '\0') ? tmp : "/tmp";
  }
  std::string templ = parent + "/mink-stream-bench-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) {
    fmt::print(stderr, "stream_append_bench: cannot create a directory under {}: {}\n", parent,
               std::strerror(errno));
    return 1;
  }
  const std::string dir = templ;
  struct Cleanup {
    std::string dir;
    bool keep;
    ~Cleanup() {
      if (keep) return;
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir, flags.keep};

  const double limit_ms = flags.flush_interval_ms + 5.0;
  fmt::print("stream_append_bench: directory {}\n", dir);
  fmt::print(
      "  record = {} B of opaque payload; append = one StreamStore::Append of one batch of {} "
      "records ({} B payload + {} B batch header)\n",
      flags.record_bytes, flags.records_per_batch,
      flags.record_bytes * static_cast<size_t>(flags.records_per_batch), storage::kBatchHeaderSize);
  fmt::print(
      "  {} streams written round-robin by {} producer threads; wal.flush_interval {} ms; "
      "{} s measured per phase after {} ms warm-up; MB = 10^6 B of record payload{}{}\n",
      flags.streams, flags.producers, flags.flush_interval_ms, flags.seconds, flags.warmup_ms,
      flags.eager_uploads > 0 ? fmt::format("; eager uploads below {}", flags.eager_uploads) : "",
      flags.wal_put == "rename" ? "; WAL objects put through a rename" : "");
  if (flags.maintenance_every_ms > 0) {
    fmt::print("  compaction and garbage collection every {} ms, of objects that old\n",
               flags.maintenance_every_ms);
  }

  // Phase 1.
  fmt::print("\nphase 1: disk, write + fdatasync of 8 MiB files (at most {} files / {} s)\n",
             kMaxDiskFiles, flags.seconds);
  std::fflush(stdout);
  auto print_disk = [](const char* what, const DiskResult& d) {
    fmt::print(
        "  {:<22} {:2} files, {:6.1f} MB in {:5.2f} s = {:6.1f} MB/s; per file p50 {:5.1f} ms "
        "p99 {:5.1f} ms\n",
        what, d.files, d.bytes / 1e6, d.seconds, d.mb_s, d.file_time.p50_ms, d.file_time.p99_ms);
    if (!d.error.empty()) fmt::print("  ERROR {}\n", d.error);
  };
  const bool measure = flags.paced_mb_s <= 0;
  DiskResult disk = MeasureDisk(dir, flags.seconds, 1);
  print_disk("1 writer (baseline)", disk);
  std::fflush(stdout);
  DiskResult disk_parallel = MeasureDisk(dir, flags.seconds, flags.inflight_uploads);
  print_disk(fmt::format("{} writers", flags.inflight_uploads).c_str(), disk_parallel);
  Distribution small_sync = MeasureSmallSync(dir);
  fmt::print("  4 KiB write + fdatasync: p50 {:.2f} ms p99 {:.2f} ms ({} syncs)\n",
             small_sync.p50_ms, small_sync.p99_ms, small_sync.count);
  std::fflush(stdout);

  // The node: SQLite metadata log and a file:// store for data (bucket -2) and WAL (bucket -3).
  CallTimes commits, snapshots;
  auto sqlite = metadata::OpenLogStore("sqlite:" + dir + "/meta.db");
  if (!sqlite.ok()) {
    fmt::print(stderr, "stream_append_bench: {}\n", sqlite.status().ToString());
    return 1;
  }
  auto timed_log = std::make_unique<TimedLogStore>(std::move(*sqlite), &commits, &snapshots);
  TimedLogStore* log_store = timed_log.get();
  metadata::MetadataOptions mo;
  mo.node_label = "bench-node-1";
  mo.snapshot_every = flags.snapshot_every;
  auto meta = metadata::MetadataLog::Open(std::move(timed_log), mo);
  if (!meta.ok()) {
    fmt::print(stderr, "stream_append_bench: metadata: {}\n", meta.status().ToString());
    return 1;
  }
  auto files = object_store::FileStore::Open(dir + "/objects");
  if (!files.ok()) {
    fmt::print(stderr, "stream_append_bench: object store: {}\n", files.status().ToString());
    return 1;
  }
  (*files)->set_direct_io(flags.wal_put == "in-place");
  auto objects = std::make_shared<TimedObjectStore>(std::move(*files), flags.wal_put == "rename");
  storage::StoreSet stores;
  stores.data = objects;
  stores.data_bucket_id = -2;
  stores.wal = objects;
  stores.wal_bucket_id = -3;
  storage::StorageOptions options;
  options.wal_flush_interval = Millis(flags.flush_interval_ms);
  options.max_pending_bytes = 2 * flags.max_pending;
  options.wal_max_bytes = flags.wal_max_bytes;
  options.wal_max_inflight_uploads = flags.inflight_uploads;
  options.wal_eager_uploads = flags.eager_uploads;
  options.wal_seal_bytes = flags.seal_bytes;
  const bool maintenance = flags.maintenance_every_ms > 0;
  if (maintenance) {
    const Millis every(flags.maintenance_every_ms);
    options.compaction_interval = options.compaction_min_age = every;
    options.gc_interval = options.delete_grace = every;
  }
  auto identity = storage::StreamStore::RegisterNode(meta->get(), 1);
  if (!identity.ok()) {
    fmt::print(stderr, "stream_append_bench: register node: {}\n", identity.status().ToString());
    return 1;
  }
  auto store = storage::StreamStore::Open(options, meta->get(), stores, *identity, maintenance);
  if (!store.ok()) {
    fmt::print(stderr, "stream_append_bench: storage: {}\n", store.status().ToString());
    return 1;
  }
  std::vector<uint64_t> streams;
  for (int i = 0; i < flags.streams; ++i) {
    auto id = (*store)->CreateStream("bench-" + std::to_string(i));
    Status opened = id.ok() ? (*store)->OpenStream(*id) : id.status();
    if (!opened.ok()) {
      fmt::print(stderr, "stream_append_bench: stream {}: {}\n", i, opened.ToString());
      return 1;
    }
    streams.push_back(*id);
  }

  StreamBench bench(flags, store->get(), streams, objects.get(), &commits, &snapshots, log_store);

  // Phase 2.
  if (measure) {
    fmt::print("\nphase 2: maximum throughput, closed loop, at most {} bytes in flight\n",
               flags.max_pending);
  } else {
    fmt::print("\nphase 2: skipped (--paced-mb-s)\n");
  }
  std::fflush(stdout);
  PhaseResult max = measure ? bench.RunMax() : PhaseResult{};
  if (measure) PrintPhase("  result", max);
  std::fflush(stdout);

  // Phase 3.
  PhaseResult half;
  const double paced_mb_s = measure ? max.mb_s / 2 : flags.paced_mb_s;
  if (paced_mb_s > 0 && !g_interrupted.load()) {
    fmt::print("\nphase 3: {}, open loop at {:.1f} MB/s, measured from {} ms on\n",
               measure ? "half load (50% of phase 2)" : "fixed load (--paced-mb-s)", paced_mb_s,
               bench.PacedWarmupMs());
    std::fflush(stdout);
    half = bench.RunPaced(paced_mb_s * 1e6);
    PrintPhase("  result", half);
    if (maintenance) {
      const storage::MaintenanceStats m = (*store)->maintenance_stats();
      fmt::print("  maintenance since the start: {} compactions, {} replaced objects deleted\n",
                 m.compactions, m.objects_deleted);
    }
  } else {
    fmt::print("\nphase 3: skipped (phase 2 acknowledged nothing)\n");
  }

  (*store)->Stop();
  store->reset();
  meta->reset();
  if (!measure) {
    fmt::print("\n(--paced-mb-s: no maximum measured, no targets judged)\n");
    return 0;
  }

  const double ratio = disk.mb_s > 0 ? max.mb_s / disk.mb_s : 0;
  const bool throughput_ok = ratio >= 0.70;
  const bool latency_ok = half.latency.count > 0 && half.latency.p99_ms <= limit_ms;
  fmt::print("\nsummary\n");
  fmt::print("  {:<44} {:>10}   {:<22} {}\n", "figure", "value", "target", "");
  fmt::print("  {:<44} {:>10.1f}\n", "disk bandwidth, 8 MiB write+fdatasync (MB/s)", disk.mb_s);
  fmt::print("  {:<44} {:>10.1f}\n",
             fmt::format("disk bandwidth, {} parallel writers (MB/s)", flags.inflight_uploads),
             disk_parallel.mb_s);
  fmt::print("  {:<44} {:>10.1f}\n", "stream append, acknowledged (MB/s)", max.mb_s);
  fmt::print("  {:<44} {:>10.2f}   {:<22} {}\n", "ratio stream / disk (1 writer)", ratio, ">= 0.70",
             throughput_ok ? "PASS" : "MISS");
  fmt::print("  {:<44} {:>10.2f}\n",
             fmt::format("ratio stream / disk ({} writers)", flags.inflight_uploads),
             disk_parallel.mb_s > 0 ? max.mb_s / disk_parallel.mb_s : 0.0);
  fmt::print("  {:<44} {:>10.2f}\n", "ack latency p50 at max throughput (ms)", max.latency.p50_ms);
  fmt::print("  {:<44} {:>10.2f}\n", "ack latency p99 at max throughput (ms)", max.latency.p99_ms);
  fmt::print("  {:<44} {:>10.2f}\n", "ack latency p50 at half load (ms)", half.latency.p50_ms);
  fmt::print("  {:<44} {:>10.2f}   {:<22} {}\n", "ack latency p99 at half load (ms)",
             half.latency.p99_ms, fmt::format("<= {:.0f} (flush + 5)", limit_ms),
             latency_ok ? "PASS" : "MISS");
  fmt::print("  (measures only: the exit status does not depend on the targets)\n");

  if (flags.json) {
    fmt::print(
        "{{\"bench\":\"stream_append\",\"record_bytes\":{},\"records_per_batch\":{},"
        "\"streams\":{},\"producers\":{},\"flush_interval_ms\":{},\"max_pending\":{},"
        "\"seconds\":{},\"wal_max_bytes\":{},\"inflight_uploads\":{},\"eager_uploads\":{},\"wal_put\":\"{}\","
        "\"dir\":\"{}\","
        "\"disk_parallel_mb_s\":{:.2f},\"disk\":{{\"mb_s\":{:.2f},\"files\":{},"
        "\"file_p50_ms\":{:.3f},\"file_p99_ms\":{:.3f},\"sync4k_p50_ms\":{:.3f},"
        "\"sync4k_p99_ms\":{:.3f}}},\"max\":{},\"half\":{},\"ratio\":{:.3f},"
        "\"ratio_target\":0.70,\"throughput_pass\":{},\"p99_limit_ms\":{:.1f},"
        "\"latency_pass\":{}}}\n",
        flags.record_bytes, flags.records_per_batch, flags.streams, flags.producers,
        flags.flush_interval_ms, flags.max_pending, flags.seconds, flags.wal_max_bytes,
        flags.inflight_uploads, flags.eager_uploads, flags.wal_put, JsonEscape(dir), disk_parallel.mb_s, disk.mb_s, disk.files,
        disk.file_time.p50_ms, disk.file_time.p99_ms, small_sync.p50_ms, small_sync.p99_ms,
        JsonPhase(max), JsonPhase(half), ratio, throughput_ok ? "true" : "false", limit_ms,
        latency_ok ? "true" : "false");
  }
  return 0;
}

}  // namespace
}  // namespace mink::bench

int main(int argc, char** argv) {
  mink::RetainLargeAllocations();  // as `mink serve` does
  return mink::bench::Main(argc, argv);
}
