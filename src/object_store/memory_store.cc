#include "object_store/memory_store.h"

#include <thread>

#include "base/clock.h"

namespace mink::object_store {

void MemoryStore::SetFaults(const FaultPlan& plan) {
  std::lock_guard<std::mutex> lock(mutex_);
  plan_ = plan;
  rng_.seed(plan.seed);
  fault_calls_ = 0;
}

uint64_t MemoryStore::injected_failures() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return injected_;
}

void MemoryStore::Overwrite(const std::string& key, std::string data) {
  std::lock_guard<std::mutex> lock(mutex_);
  objects_[key] = Object{std::move(data), SystemClock::Get()->NowMillis()};
}

Status MemoryStore::Inject(Op op, bool* ambiguous) {
  std::chrono::milliseconds delay{0};
  Status failure;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::uniform_real_distribution<double> uniform(0, 1);
    delay = plan_.latency;
    if (plan_.spike_fraction > 0 && uniform(rng_) < plan_.spike_fraction) {
      delay = plan_.spike_latency;
    }
    bool applies = (op == Op::kPut && plan_.on_put) ||
                   ((op == Op::kGet || op == Op::kGetRange) && plan_.on_get) ||
                   (op == Op::kList && plan_.on_list) || (op == Op::kDelete && plan_.on_delete);
    if (applies) {
      ++fault_calls_;
      bool fail = (plan_.fail_nth_call != 0 && fault_calls_ == plan_.fail_nth_call) ||
                  (plan_.fail_fraction > 0 && uniform(rng_) < plan_.fail_fraction);
      if (fail) {
        ++injected_;
        *ambiguous = op == Op::kPut && plan_.ambiguous_fraction > 0 &&
                     uniform(rng_) < plan_.ambiguous_fraction;
        failure = UnavailableError("injected fault in " + Describe() + " (call " +
                                   std::to_string(fault_calls_) + ")");
      }
    }
  }
  if (delay.count() > 0) std::this_thread::sleep_for(delay);
  return failure;
}

Status MemoryStore::Put(std::string_view key, std::string_view data) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  bool ambiguous = false;
  Status fault = Inject(Op::kPut, &ambiguous);
  if (fault.ok() || ambiguous) {
    std::lock_guard<std::mutex> lock(mutex_);
    objects_[std::string(key)] = Object{std::string(data), SystemClock::Get()->NowMillis()};
  }
  return fault;
}

Result<std::string> MemoryStore::Get(std::string_view key) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  bool ambiguous = false;
  MINK_RETURN_IF_ERROR(Inject(Op::kGet, &ambiguous));
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return NotFoundError("no object " + std::string(key));
  return it->second.data;
}

Result<std::string> MemoryStore::GetRange(std::string_view key, uint64_t offset,
                                          uint64_t length) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  bool ambiguous = false;
  MINK_RETURN_IF_ERROR(Inject(Op::kGetRange, &ambiguous));
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return NotFoundError("no object " + std::string(key));
  const std::string& data = it->second.data;
  if (length == 0) return std::string();
  if (offset >= data.size()) {
    return OutOfRangeError("range starts at " + std::to_string(offset) + " beyond the end (" +
                           std::to_string(data.size()) + " bytes) of object " + std::string(key));
  }
  return data.substr(offset, length);
}

Result<ObjectInfo> MemoryStore::Head(std::string_view key) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  bool ambiguous = false;
  MINK_RETURN_IF_ERROR(Inject(Op::kHead, &ambiguous));
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = objects_.find(key);
  if (it == objects_.end()) return NotFoundError("no object " + std::string(key));
  return ObjectInfo{it->first, it->second.data.size(), it->second.last_modified_ms};
}

Result<std::vector<ObjectInfo>> MemoryStore::List(std::string_view prefix) {
  bool ambiguous = false;
  MINK_RETURN_IF_ERROR(Inject(Op::kList, &ambiguous));
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<ObjectInfo> out;
  for (auto it = objects_.lower_bound(prefix);
       it != objects_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    out.push_back(ObjectInfo{it->first, it->second.data.size(), it->second.last_modified_ms});
  }
  return out;
}

Status MemoryStore::Delete(std::string_view key) {
  MINK_RETURN_IF_ERROR(ValidateKey(key));
  bool ambiguous = false;
  MINK_RETURN_IF_ERROR(Inject(Op::kDelete, &ambiguous));
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = objects_.find(key);
  if (it != objects_.end()) objects_.erase(it);
  return Status::Ok();
}

}  // namespace mink::object_store
