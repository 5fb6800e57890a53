#pragma once
// stream_append_bench's measurement helpers: timed object and metadata stores, call-time
// collections, CPU time and the load average.
// (stream_append_bench.cc is the driver; bench/README.md the phases.)

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

namespace mink::bench {

using Millis = std::chrono::milliseconds;
using Micros = std::chrono::microseconds;

// ---------------------------------------------------------------------------------------------
// Small measurement helpers

// Durations of one kind of call, collected per phase (Take() returns them and starts afresh).
class CallTimes {
 public:
  void Add(SteadyTime start, uint64_t bytes) {
    int64_t us = std::chrono::duration_cast<Micros>(SteadyNow() - start).count();
    std::lock_guard<std::mutex> lock(mutex_);
    if (samples_.size() < kMaxSamples) samples_.push_back(us);
    bytes_ += bytes;
    ++calls_;
  }
  struct Taken {
    uint64_t calls = 0;
    uint64_t bytes = 0;
    Distribution time;
  };
  Taken Take() {
    std::vector<int64_t> samples;
    Taken t;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      samples.swap(samples_);
      t.calls = calls_;
      t.bytes = bytes_;
      calls_ = bytes_ = 0;
    }
    t.time = Summarize(std::move(samples));
    return t;
  }

 private:
  static constexpr size_t kMaxSamples = 1'000'000;
  std::mutex mutex_;
  std::vector<int64_t> samples_;
  uint64_t calls_ = 0;
  uint64_t bytes_ = 0;
};

// When the object holding a range of a stream was written: Put called and returned.
struct ObjectTiming {
  int64_t end_offset = 0;
  SteadyTime put_start, put_end;
};

// Times every Put of the wrapped store: for file:// a WAL object's PutUnpublished is write +
// fdatasync in place while its directory is fsynced (a Put: write + fdatasync of a temporary
// file, rename, fsync of its directory). It also reads each WAL object's index to remember which
// stream ranges it carried, so an acknowledged append can be traced to the Put of its object.
class TimedObjectStore final : public object_store::ForwardingStore {
 public:
  // `atomic_wal_puts`: WAL objects take the Put path (the A/B comparison of --wal-put rename).
  TimedObjectStore(std::unique_ptr<object_store::ObjectStore> inner, bool atomic_wal_puts)
      : ForwardingStore(std::move(inner)), atomic_wal_puts_(atomic_wal_puts) {}
  CallTimes& puts() { return puts_; }

  Status Put(std::string_view key, std::string_view data) override {
    return Timed(key, data, [&] { return inner().Put(key, data); });
  }
  Status PutUnpublished(std::string_view key, std::string_view data) override {
    return Timed(key, data, [&] {
      return atomic_wal_puts_ ? inner().Put(key, data) : inner().PutUnpublished(key, data);
    });
  }
  // The Put that carried `offset` of `stream`, if it was seen.
  std::optional<ObjectTiming> Find(uint64_t stream, int64_t offset) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto s = runs_.find(stream);
    if (s == runs_.end()) return std::nullopt;
    auto it = s->second.upper_bound(offset);
    if (it == s->second.begin()) return std::nullopt;
    --it;
    if (offset >= it->second.end_offset) return std::nullopt;
    return it->second;
  }


 private:
  template <typename PutFn>
  Status Timed(std::string_view key, std::string_view data, PutFn put) {
    SteadyTime start = SteadyNow();
    Status s = put();
    SteadyTime end = SteadyNow();
    puts_.Add(start, data.size());
    if (s.ok()) {
      auto index = storage::ReadObjectIndex(data, std::string(key));
      if (index.ok()) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& run : index->runs) {
          if (runs_.size() < kMaxRuns) {
            runs_[run.stream_id][run.start_offset] = ObjectTiming{run.end_offset, start, end};
          }
        }
      }
    }
    return s;
  }

  static constexpr size_t kMaxRuns = 100'000;  // streams tracked (a bound, never reached here)
  const bool atomic_wal_puts_;
  CallTimes puts_;
  mutable std::mutex mutex_;
  std::map<uint64_t, std::map<int64_t, ObjectTiming>> runs_;
};

// Times the metadata log's append transactions (catch-up read, build and validate, JSON encode,
// insert, COMMIT with its fsync) and its snapshots.
class TimedLogStore final : public metadata::ForwardingLogStore {
 public:
  TimedLogStore(std::unique_ptr<metadata::LogStore> inner, CallTimes* appends, CallTimes* snapshots)
      : ForwardingLogStore(std::move(inner)), appends_(appends), snapshots_(snapshots) {}

  Status Insert(const metadata::CommandRecord& record) override {
    inserted_bytes_.fetch_add(record.body.size());
    return ForwardingLogStore::Insert(record);
  }
  Status WithAppendLock(const std::function<Status()>& fn) override {
    SteadyTime start = SteadyNow();
    Status s = ForwardingLogStore::WithAppendLock(fn);
    appends_->Add(start, 0);
    return s;
  }
  Status WriteSnapshot(const metadata::SnapshotRecord& snapshot) override {
    SteadyTime start = SteadyNow();
    Status s = ForwardingLogStore::WriteSnapshot(snapshot);
    snapshots_->Add(start, snapshot.body.size());
    return s;
  }

  uint64_t TakeInsertedBytes() { return inserted_bytes_.exchange(0); }

 private:
  CallTimes* const appends_;
  CallTimes* const snapshots_;
  std::atomic<uint64_t> inserted_bytes_{0};
};

struct CpuTime {
  double user = 0, system = 0;
  static CpuTime Now() {
    struct rusage ru;
    ::getrusage(RUSAGE_SELF, &ru);
    auto sec = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
    return CpuTime{sec(ru.ru_utime), sec(ru.ru_stime)};
  }
};

// Sum of the run_delay growth of the threads present in both samples.
inline double RunDelaySeconds(const std::map<int, uint64_t>& before,
                       const std::map<int, uint64_t>& after) {
  uint64_t ns = 0;
  for (const auto& [tid, wait] : after) {
    auto it = before.find(tid);
    if (it != before.end() && wait >= it->second) ns += wait - it->second;
  }
  return static_cast<double>(ns) / 1e9;
}

inline double LoadAverage() {
  double load = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0;
    std::fclose(f);
  }
  return load;
}


}  // namespace mink::bench
