#include "object_store/latency_store.h"

#include <cmath>
#include <thread>

namespace mink::object_store {
namespace {

// The standard normal's 99th percentile: a log-normal with median m and p99 q has
// sigma = ln(q / m) / 2.326.
constexpr double kZ99 = 2.3263478740408408;

}  // namespace

Result<LatencyProfile> LatencyProfile::Named(std::string_view name) {
  LatencyProfile p;
  p.name = std::string(name);
  if (name == "s3-express") {
    // S3 Express One Zone: "consistent single-digit milliseconds" per request.
    p.put_median_ms = 5, p.put_p99_ms = 10;
    p.get_median_ms = 3, p.get_p99_ms = 8;
    p.other_median_ms = 3, p.other_p99_ms = 8;
    p.megabytes_per_second = 200;
  } else if (name == "s3-standard") {
    // S3 Standard: tens of milliseconds to the first byte, with a long tail.
    p.put_median_ms = 30, p.put_p99_ms = 120;
    p.get_median_ms = 25, p.get_p99_ms = 80;
    p.other_median_ms = 20, p.other_p99_ms = 60;
    p.megabytes_per_second = 80;
  } else {
    return InvalidArgumentError("unknown latency profile '" + std::string(name) +
                                "' (known: s3-express, s3-standard)");
  }
  return p;
}

LatencyStore::LatencyStore(std::shared_ptr<ObjectStore> inner, LatencyProfile profile,
                           uint64_t seed)
    : ForwardingStore(std::move(inner)), profile_(std::move(profile)), rng_(seed) {}

std::chrono::microseconds LatencyStore::Draw(double median_ms, double p99_ms, uint64_t bytes) {
  double z;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    z = std::normal_distribution<double>(0.0, 1.0)(rng_);
  }
  double sigma = median_ms > 0 && p99_ms > median_ms ? std::log(p99_ms / median_ms) / kZ99 : 0;
  double ms = median_ms > 0 ? median_ms * std::exp(sigma * z) : 0;
  if (profile_.megabytes_per_second > 0) {
    ms += static_cast<double>(bytes) / (profile_.megabytes_per_second * 1e3);
  }
  return std::chrono::microseconds(static_cast<int64_t>(ms * 1e3));
}

void LatencyStore::Wait(double median_ms, double p99_ms, uint64_t bytes) {
  std::this_thread::sleep_for(Draw(median_ms, p99_ms, bytes));
}

Status LatencyStore::Put(std::string_view key, std::string_view data) {
  Wait(profile_.put_median_ms, profile_.put_p99_ms, data.size());
  return ForwardingStore::Put(key, data);
}

Status LatencyStore::PutInBackground(std::string_view key, std::string_view data) {
  Wait(profile_.put_median_ms, profile_.put_p99_ms, data.size());
  return ForwardingStore::PutInBackground(key, data);
}

Status LatencyStore::PutUnpublished(std::string_view key, std::string_view data) {
  Wait(profile_.put_median_ms, profile_.put_p99_ms, data.size());
  return ForwardingStore::PutUnpublished(key, data);
}

Result<std::string> LatencyStore::Get(std::string_view key) {
  auto got = ForwardingStore::Get(key);
  Wait(profile_.get_median_ms, profile_.get_p99_ms, got.ok() ? got->size() : 0);
  return got;
}

Result<std::string> LatencyStore::GetRange(std::string_view key, uint64_t offset,
                                           uint64_t length) {
  Wait(profile_.get_median_ms, profile_.get_p99_ms, length);
  return ForwardingStore::GetRange(key, offset, length);
}

Result<Buffer> LatencyStore::GetRangeBuffer(std::string_view key, uint64_t offset,
                                            uint64_t length, Reuse reuse) {
  Wait(profile_.get_median_ms, profile_.get_p99_ms, length);
  return ForwardingStore::GetRangeBuffer(key, offset, length, reuse);
}

Result<ObjectInfo> LatencyStore::Head(std::string_view key) {
  Wait(profile_.other_median_ms, profile_.other_p99_ms, 0);
  return ForwardingStore::Head(key);
}

Result<std::vector<ObjectInfo>> LatencyStore::List(std::string_view prefix) {
  Wait(profile_.other_median_ms, profile_.other_p99_ms, 0);
  return ForwardingStore::List(prefix);
}

Status LatencyStore::Delete(std::string_view key) {
  Wait(profile_.other_median_ms, profile_.other_p99_ms, 0);
  return ForwardingStore::Delete(key);
}

std::string LatencyStore::Describe() const {
  return ForwardingStore::Describe() + " (latency " + profile_.name + ")";
}

}  // namespace mink::object_store
