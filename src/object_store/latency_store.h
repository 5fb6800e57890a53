#pragma once
// LatencyStore: a store that waits before every call as a cloud object store would, then passes
// the call on. It lets one machine measure how Mink behaves on S3 Standard or S3 Express One
// Zone (the `latency=` option of any storage URI, docs/performance.md) without an account.
//
// Each call waits a time drawn from a log-normal distribution fitted to the profile's median and
// p99 for its kind of call, plus the bytes moved at the profile's per-connection bandwidth.
// Waits overlap freely: concurrent calls do not queue behind each other, as on S3.

#include <chrono>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>

#include "base/result.h"
#include "object_store/forwarding_store.h"

namespace mink::object_store {

struct LatencyProfile {
  std::string name;
  // Per call, before the first byte: median and p99 in milliseconds.
  double put_median_ms = 0, put_p99_ms = 0;
  double get_median_ms = 0, get_p99_ms = 0;
  double other_median_ms = 0, other_p99_ms = 0;  // Head, List, Delete
  double megabytes_per_second = 0;               // per connection; 0: no transfer time

  // "s3-express" or "s3-standard"; InvalidArgument names the known profiles otherwise.
  static Result<LatencyProfile> Named(std::string_view name);
};

class LatencyStore : public ForwardingStore {
 public:
  LatencyStore(std::shared_ptr<ObjectStore> inner, LatencyProfile profile, uint64_t seed = 1);

  Status Put(std::string_view key, std::string_view data) override;
  Status PutInBackground(std::string_view key, std::string_view data) override;
  Status PutUnpublished(std::string_view key, std::string_view data) override;
  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<Buffer> GetRangeBuffer(std::string_view key, uint64_t offset, uint64_t length,
                                Reuse reuse) override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override;

  // The wait of one call (exposed for tests of the distribution).
  std::chrono::microseconds Draw(double median_ms, double p99_ms, uint64_t bytes);

 private:
  void Wait(double median_ms, double p99_ms, uint64_t bytes);

  const LatencyProfile profile_;
  std::mutex mutex_;  // guards rng_ only; the wait itself is outside it
  std::mt19937_64 rng_;
};

}  // namespace mink::object_store
