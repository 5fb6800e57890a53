#include "metrics/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <variant>

namespace mink::metrics {
namespace {

std::atomic<bool> enabled{true};

prometheus::Labels LabelMap(const Labels& labels) { return prometheus::Labels(labels.begin(), labels.end()); }

// The process-wide registry and its families by name (one type per name).
class Registry {
 public:
  static Registry& Get() {
    static Registry* registry = new Registry();  // never destroyed: handles outlive everything
    return *registry;
  }

  template <typename T, typename Build>
  prometheus::Family<T>& FamilyOf(const std::string& name, const std::string& help, Build build) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = families_.find(name);
    if (it == families_.end()) {
      it = families_.emplace(name, &build().Name(name).Help(help).Register(registry_)).first;
    }
    auto* family = std::get_if<prometheus::Family<T>*>(&it->second);
    if (family == nullptr) {
      std::fprintf(stderr, "metric %s is used with two types\n", name.c_str());
      std::abort();
    }
    return **family;
  }

  std::vector<prometheus::MetricFamily> Collect() const { return registry_.Collect(); }

 private:
  std::mutex mutex_;
  prometheus::Registry registry_;
  std::map<std::string, std::variant<prometheus::Family<prometheus::Counter>*, prometheus::Family<prometheus::Gauge>*,
                                     prometheus::Family<prometheus::Histogram>*>>
      families_;
};

}  // namespace

void SetEnabled(bool on) { enabled.store(on, std::memory_order_relaxed); }
bool Enabled() { return enabled.load(std::memory_order_relaxed); }

void Counter::Add(double amount) const {
  if (series_ != nullptr && Enabled()) series_->Increment(amount);
}
void Gauge::Set(double value) const {
  if (series_ != nullptr && Enabled()) series_->Set(value);
}
void Gauge::Add(double amount) const {
  if (series_ != nullptr && Enabled()) series_->Increment(amount);
}
void Histogram::Observe(double value) const {
  if (series_ != nullptr && Enabled()) series_->Observe(value);
}

Counter CounterOf(const std::string& name, const std::string& help, const Labels& labels) {
  Counter c;
  c.series_ = &Registry::Get()
                   .FamilyOf<prometheus::Counter>(name, help, [] { return prometheus::BuildCounter(); })
                   .Add(LabelMap(labels));
  return c;
}

Gauge GaugeOf(const std::string& name, const std::string& help, const Labels& labels) {
  Gauge g;
  g.series_ = &Registry::Get()
                   .FamilyOf<prometheus::Gauge>(name, help, [] { return prometheus::BuildGauge(); })
                   .Add(LabelMap(labels));
  return g;
}

Histogram HistogramOf(const std::string& name, const std::string& help, const std::vector<double>& buckets,
                      const Labels& labels) {
  Histogram h;
  h.series_ = &Registry::Get()
                   .FamilyOf<prometheus::Histogram>(name, help, [] { return prometheus::BuildHistogram(); })
                   .Add(LabelMap(labels), prometheus::Histogram::BucketBoundaries(buckets));
  return h;
}

const std::vector<double>& LatencyBuckets() {
  static const std::vector<double> buckets = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                              0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,     10};
  return buckets;
}

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string Exposition(const std::vector<Family>& gathered) {
  std::vector<prometheus::MetricFamily> families = Registry::Get().Collect();
  for (const Family& f : gathered) {
    prometheus::MetricFamily out;
    out.name = f.name;
    out.help = f.help;
    out.type = f.type == Family::Type::kCounter ? prometheus::MetricType::Counter : prometheus::MetricType::Gauge;
    for (const Sample& s : f.samples) {
      prometheus::ClientMetric m;
      for (const auto& [name, value] : s.labels) m.label.push_back({name, value});
      if (f.type == Family::Type::kCounter) {
        m.counter.value = s.value;
      } else {
        m.gauge.value = s.value;
      }
      out.metric.push_back(std::move(m));
    }
    families.push_back(std::move(out));
  }
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace mink::metrics
