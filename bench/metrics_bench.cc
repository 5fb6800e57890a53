// metrics_bench: what one recorded update costs on a hot path, against the same loop with
// metrics off (docs/performance.md, Operations). Each of two threads (the machine's cores) adds
// to one shared counter and observes one shared latency histogram, as Kafka requests on
// different connections do; the time per update is set beside a Kafka Produce request's typical
// time (a few ms), which is what decides whether metrics cost anything there.
//
//   metrics_bench [--updates N]   (default 2,000,000 per thread; bounded to 50,000,000)

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "metrics/metrics.h"

namespace {

// Nanoseconds per update of `threads` threads doing `updates` each.
template <typename F>
double NanosPerUpdate(int threads, int64_t updates, F update) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (int64_t i = 0; i < updates; ++i) update(i);
    });
  }
  for (auto& w : workers) w.join();
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  return ns / static_cast<double>(updates);  // per update of one thread: what a request waits
}

}  // namespace

int main(int argc, char** argv) {
  int64_t updates = 2'000'000;
  if (argc == 3 && std::string(argv[1]) == "--updates") updates = std::strtoll(argv[2], nullptr, 10);
  if (updates < 1 || updates > 50'000'000) {
    fmt::print(stderr, "usage: metrics_bench [--updates 1..50000000]\n");
    return 2;
  }
  using namespace mink;
  const metrics::Counter counter = metrics::CounterOf("mink_bench_requests_total", "Bench.");
  const metrics::Histogram histogram =
      metrics::HistogramOf("mink_bench_request_duration_seconds", "Bench.", metrics::LatencyBuckets());
  auto request = [&](int64_t i) {
    // What the broker records per Kafka request: a start time, a counter, an observation.
    const int64_t start = metrics::NowNanos();
    counter.Add();
    histogram.Observe(metrics::SecondsSince(start) + static_cast<double>(i % 1000) * 1e-5);
  };
  fmt::print("metrics_bench: {} updates per thread, 2 threads, one shared counter and histogram\n", updates);
  for (bool on : {true, false, true, false}) {
    metrics::SetEnabled(on);
    const double ns = NanosPerUpdate(2, updates, request);
    fmt::print("  metrics {:3}: {:7.1f} ns per request recorded = {:.5f}% of a 2 ms Produce request\n",
               on ? "on" : "off", ns, ns / 2e6 * 100);
  }
  return 0;
}
