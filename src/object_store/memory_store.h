#pragma once
// mem:// — objects in process memory, with injectable latency and faults for tests: fail the Nth
// call of an operation, fail a fraction of calls, add latency and latency spikes, and "ambiguous"
// Puts that store the object but report a failure (as a timeout after the write would).

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <string>

#include "object_store/object_store.h"

namespace mink::object_store {

enum class Op { kPut, kGet, kGetRange, kHead, kList, kDelete };

struct FaultPlan {
  // Which operations the faults below apply to; by default only Put.
  bool on_put = true;
  bool on_get = false;     // Get and GetRange
  bool on_list = false;
  bool on_delete = false;
  // Fail the Nth call (1-based, counted over the operations above); 0 = never.
  uint64_t fail_nth_call = 0;
  // Fail this fraction of calls (0..1) with Unavailable.
  double fail_fraction = 0;
  // Of the failed Puts, this fraction stores the object before reporting the failure.
  double ambiguous_fraction = 0;
  // Added to every call of every operation.
  std::chrono::milliseconds latency{0};
  // This fraction of calls waits `spike_latency` instead.
  double spike_fraction = 0;
  std::chrono::milliseconds spike_latency{0};
  uint64_t seed = 42;
};

class MemoryStore final : public ObjectStore {
 public:
  explicit MemoryStore(std::string name = "test") : name_(std::move(name)) {}

  void SetFaults(const FaultPlan& plan);
  // Counts of injected failures, for tests that need to know faults really happened.
  uint64_t injected_failures() const;
  // Replaces the stored bytes of an object (tests use it to corrupt data).
  void Overwrite(const std::string& key, std::string data);

  Status Put(std::string_view key, std::string_view data) override;
  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return "mem://" + name_; }

 private:
  struct Object {
    std::string data;
    int64_t last_modified_ms;
  };
  // Applies latency and decides whether this call fails; returns the failure, if any.
  Status Inject(Op op, bool* ambiguous);

  const std::string name_;
  mutable std::mutex mutex_;
  std::map<std::string, Object, std::less<>> objects_;
  FaultPlan plan_;
  std::mt19937_64 rng_{42};
  uint64_t fault_calls_ = 0;
  uint64_t injected_ = 0;
};

}  // namespace mink::object_store
