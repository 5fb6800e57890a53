#pragma once
// MeteredStore: a store that counts and times every call it passes on, for /metrics
// (docs/operations.md): mink_object_store_requests_total, mink_object_store_errors_total,
// mink_object_store_request_duration_seconds and mink_object_store_bytes_total, labelled with
// the store's role (data, wal, state) and the operation (put, get, head, list, delete). A
// missing object (NotFound) is an answer, not an error.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/metrics.h"
#include "object_store/forwarding_store.h"

namespace mink::object_store {

class MeteredStore final : public ForwardingStore {
 public:
  MeteredStore(std::shared_ptr<ObjectStore> inner, const std::string& role);

  Status Put(std::string_view key, std::string_view data) override;
  Status PutInBackground(std::string_view key, std::string_view data) override;
  Status PutUnpublished(std::string_view key, std::string_view data) override;
  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<Buffer> GetRangeBuffer(std::string_view key, uint64_t offset, uint64_t length, Reuse reuse) override;
  Result<ObjectInfo> Head(std::string_view key) override;
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Status Delete(std::string_view key) override;

 private:
  enum Operation { kPut, kGet, kHead, kList, kDelete, kOperations };
  struct Series {
    metrics::Counter requests, errors, bytes;
    metrics::Histogram duration;
  };
  // Records one call of `op` that started at `start_ns`, moved `bytes` and ended with `status`.
  void Record(Operation op, int64_t start_ns, const Status& status, size_t bytes);

  Series series_[kOperations];
};

}  // namespace mink::object_store
