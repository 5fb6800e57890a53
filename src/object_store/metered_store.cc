#include "object_store/metered_store.h"

namespace mink::object_store {

MeteredStore::MeteredStore(std::shared_ptr<ObjectStore> inner, const std::string& role)
    : ForwardingStore(std::move(inner)) {
  const char* names[kOperations] = {"put", "get", "head", "list", "delete"};
  for (int op = 0; op < kOperations; ++op) {
    const metrics::Labels labels = {{"store", role}, {"operation", names[op]}};
    series_[op].requests =
        metrics::CounterOf("mink_object_store_requests_total", "Object store calls, by store and operation.", labels);
    series_[op].errors = metrics::CounterOf("mink_object_store_errors_total",
                                            "Object store calls that failed (a missing object is not a failure).",
                                            labels);
    series_[op].bytes = metrics::CounterOf("mink_object_store_bytes_total",
                                           "Bytes written (put) and read (get) through the object store.", labels);
    series_[op].duration =
        metrics::HistogramOf("mink_object_store_request_duration_seconds", "Object store call latency.",
                             metrics::LatencyBuckets(), labels);
  }
}

void MeteredStore::Record(Operation op, int64_t start_ns, const Status& status, size_t bytes) {
  const Series& s = series_[op];
  s.requests.Add();
  s.duration.Observe(metrics::SecondsSince(start_ns));
  if (!status.ok() && status.code() != StatusCode::kNotFound) s.errors.Add();
  if (bytes > 0) s.bytes.Add(static_cast<double>(bytes));
}

Status MeteredStore::Put(std::string_view key, std::string_view data) {
  const int64_t start = metrics::NowNanos();
  Status status = ForwardingStore::Put(key, data);
  Record(kPut, start, status, status.ok() ? data.size() : 0);
  return status;
}

Status MeteredStore::PutInBackground(std::string_view key, std::string_view data) {
  const int64_t start = metrics::NowNanos();
  Status status = ForwardingStore::PutInBackground(key, data);
  Record(kPut, start, status, status.ok() ? data.size() : 0);
  return status;
}

Status MeteredStore::PutUnpublished(std::string_view key, std::string_view data) {
  const int64_t start = metrics::NowNanos();
  Status status = ForwardingStore::PutUnpublished(key, data);
  Record(kPut, start, status, status.ok() ? data.size() : 0);
  return status;
}

Result<std::string> MeteredStore::Get(std::string_view key) {
  const int64_t start = metrics::NowNanos();
  auto got = ForwardingStore::Get(key);
  Record(kGet, start, got.status(), got.ok() ? got->size() : 0);
  return got;
}

Result<std::string> MeteredStore::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  const int64_t start = metrics::NowNanos();
  auto got = ForwardingStore::GetRange(key, offset, length);
  Record(kGet, start, got.status(), got.ok() ? got->size() : 0);
  return got;
}

Result<Buffer> MeteredStore::GetRangeBuffer(std::string_view key, uint64_t offset, uint64_t length, Reuse reuse) {
  const int64_t start = metrics::NowNanos();
  auto got = ForwardingStore::GetRangeBuffer(key, offset, length, reuse);
  Record(kGet, start, got.status(), got.ok() ? got->size() : 0);
  return got;
}

Result<ObjectInfo> MeteredStore::Head(std::string_view key) {
  const int64_t start = metrics::NowNanos();
  auto info = ForwardingStore::Head(key);
  Record(kHead, start, info.status(), 0);
  return info;
}

Result<std::vector<ObjectInfo>> MeteredStore::List(std::string_view prefix) {
  const int64_t start = metrics::NowNanos();
  auto listed = ForwardingStore::List(prefix);
  Record(kList, start, listed.status(), 0);
  return listed;
}

Status MeteredStore::Delete(std::string_view key) {
  const int64_t start = metrics::NowNanos();
  Status status = ForwardingStore::Delete(key);
  Record(kDelete, start, status, 0);
  return status;
}

}  // namespace mink::object_store
