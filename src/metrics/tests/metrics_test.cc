// The registry's series as the text format shows them, turning updates off, the process's own.
#include "metrics/metrics.h"

#include <gtest/gtest.h>

namespace mink::metrics {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

TEST(Metrics, SeriesAppearInTheTextFormat) {
  const Counter a = CounterOf("mink_test_events_total", "Events.", {{"kind", "a"}});
  const Counter b = CounterOf("mink_test_events_total", "Events.", {{"kind", "b"}});
  a.Add();
  a.Add(2);
  b.Add();
  CounterOf("mink_test_events_total", "Events.", {{"kind", "a"}}).Add();  // the same series
  const Histogram h = HistogramOf("mink_test_wait_seconds", "Waits.", {0.1, 1});
  h.Observe(0.05);
  h.Observe(0.5);
  h.Observe(5);
  GaugeOf("mink_test_depth", "Depth.").Set(7);
  const std::string text =
      Exposition({Family{"mink_test_lag", "Lag.", Family::Type::kGauge, {Sample{{{"group", "g"}}, 3}}}});
  EXPECT_TRUE(Has(text, "# TYPE mink_test_events_total counter")) << text;
  EXPECT_TRUE(Has(text, "mink_test_events_total{kind=\"a\"} 4")) << text;
  EXPECT_TRUE(Has(text, "mink_test_events_total{kind=\"b\"} 1")) << text;
  EXPECT_TRUE(Has(text, "mink_test_wait_seconds_bucket{le=\"0.1\"} 1")) << text;
  EXPECT_TRUE(Has(text, "mink_test_wait_seconds_bucket{le=\"1\"} 2")) << text;
  EXPECT_TRUE(Has(text, "mink_test_wait_seconds_bucket{le=\"+Inf\"} 3")) << text;
  EXPECT_TRUE(Has(text, "mink_test_wait_seconds_count 3")) << text;
  EXPECT_TRUE(Has(text, "mink_test_depth 7")) << text;
  EXPECT_TRUE(Has(text, "mink_test_lag{group=\"g\"} 3")) << text;

  SetEnabled(false);
  a.Add(100);
  h.Observe(1);
  SetEnabled(true);
  const std::string after = Exposition({});
  EXPECT_TRUE(Has(after, "mink_test_events_total{kind=\"a\"} 4")) << "off: nothing recorded";
  EXPECT_TRUE(Has(after, "mink_test_wait_seconds_count 3"));
}

TEST(Metrics, TheProcessReportsItsCpuMemoryAndFiles) {
  std::map<std::string, double> values;
  for (const Family& f : ProcessFamilies()) values[f.name] = f.samples.at(0).value;
  EXPECT_GT(values["process_resident_memory_bytes"], 1 << 20);
  EXPECT_GE(values["process_virtual_memory_bytes"], values["process_resident_memory_bytes"]);
  EXPECT_GT(values["process_open_fds"], 2);
  EXPECT_GT(values["process_max_fds"], values["process_open_fds"]);
  EXPECT_GE(values["process_cpu_seconds_total"], 0);
  const double now = static_cast<double>(time(nullptr));
  EXPECT_GT(values["process_start_time_seconds"], now - 3600);
  EXPECT_LE(values["process_start_time_seconds"], now + 1);
}

}  // namespace
}  // namespace mink::metrics
