#pragma once
// Metrics: what a node counts and times, served in the Prometheus text format on its HTTP
// listener (`GET /metrics`; docs/operations.md lists every metric). Two kinds:
//   - recorded as things happen: counters, gauges and histograms, one series per set of labels,
//     in one process-wide registry (prometheus-cpp's). A handle (Counter, Gauge, Histogram) is
//     looked up once and kept: updating it is an atomic add, looking it up takes a lock;
//   - gathered when scraped: state a node reads then (sizes, lag, positions), as Families it
//     hands to Exposition.
// Names follow Prometheus' conventions: the `mink_` prefix, base units (`_seconds`, `_bytes`),
// counters ending in `_total`.
//
// Thread-safe.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace prometheus {
class Counter;
class Gauge;
class Histogram;
}  // namespace prometheus

namespace mink::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

// Whether updates are recorded (on unless turned off, `--metrics off`): off, every update
// returns at once, so the cost of metrics on a hot path can be measured.
void SetEnabled(bool on);
bool Enabled();

class Counter {
 public:
  Counter() = default;  // records nothing
  void Add(double amount = 1) const;

 private:
  friend Counter CounterOf(const std::string&, const std::string&, const Labels&);
  prometheus::Counter* series_ = nullptr;
};

class Gauge {
 public:
  Gauge() = default;
  void Set(double value) const;
  void Add(double amount) const;

 private:
  friend Gauge GaugeOf(const std::string&, const std::string&, const Labels&);
  prometheus::Gauge* series_ = nullptr;
};

class Histogram {
 public:
  Histogram() = default;
  void Observe(double value) const;

 private:
  friend Histogram HistogramOf(const std::string&, const std::string&, const std::vector<double>&, const Labels&);
  prometheus::Histogram* series_ = nullptr;
};

// The series of metric `name` with `labels` (created the first time; `help` is the first
// caller's). A name used with another type is a programming error and aborts.
Counter CounterOf(const std::string& name, const std::string& help, const Labels& labels = {});
Gauge GaugeOf(const std::string& name, const std::string& help, const Labels& labels = {});
Histogram HistogramOf(const std::string& name, const std::string& help, const std::vector<double>& buckets,
                      const Labels& labels = {});

// Bucket bounds in seconds for request and I/O latencies: 100 µs to 10 s.
const std::vector<double>& LatencyBuckets();

// Seconds since `start_ns` (a steady clock's nanoseconds, NowNanos()), for a histogram.
int64_t NowNanos();
inline double SecondsSince(int64_t start_ns) { return static_cast<double>(NowNanos() - start_ns) / 1e9; }

// A metric gathered when scraped.
struct Sample {
  Labels labels;
  double value = 0;
};
struct Family {
  enum class Type { kGauge, kCounter };
  std::string name;
  std::string help;
  Type type = Type::kGauge;
  std::vector<Sample> samples;
};

// The process's own, by Prometheus' standard names: process_cpu_seconds_total,
// process_resident_memory_bytes, process_virtual_memory_bytes, process_open_fds,
// process_max_fds, process_start_time_seconds (from /proc/self).
std::vector<Family> ProcessFamilies();

// The text exposition (format 0.0.4) of every recorded metric, then `gathered`.
std::string Exposition(const std::vector<Family>& gathered);
inline constexpr char kContentType[] = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace mink::metrics
