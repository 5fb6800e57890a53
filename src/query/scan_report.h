#pragma once
// ScanReport: what one scan of a mink table read — buckets chosen after pruning, the columns
// asked for, and the batches, rows and bytes that came over Flight. The scan reports when it
// ends; `mink-query exec --stats` and EXPLAIN ANALYZE show it, and the pushdown tests count on it.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mink::query {

struct ScanReport {
  std::string table;  // database.table
  std::string mode;   // log | snapshot | union | lookup
  int64_t keys = 0;   // a lookup's keys
  std::vector<std::string> columns;
  std::vector<std::string> lake_filters;  // union reads: filters the lake's Parquet reads applied
  int64_t buckets_total = 0;
  int64_t buckets_read = 0;  // after partition and bucket pruning
  int64_t batches = 0;
  int64_t rows = 0;
  int64_t bytes = 0;  // IPC message bytes received (metadata and body)
};

// "mink.shop.orders (snapshot): 1 of 2 buckets, columns [region, amount], 1 batch, 2 rows, 272 bytes"
std::string FormatScanReport(const ScanReport& report);

class ScanRecorder {
 public:
  // A scan began; it reports with Add when it ends. DuckDB may destroy a scan's state on one of
  // its worker threads a moment after the query's result is complete, so a reader of the
  // reports waits for the scans that began (TakeWhenEnded).
  void Begin() {
    std::lock_guard<std::mutex> lock(mu_);
    ++open_;
  }
  void Add(ScanReport report) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (reports_.size() >= kMaxReports) reports_.erase(reports_.begin());
      reports_.push_back(std::move(report));
      if (open_ > 0) --open_;
    }
    ended_.notify_all();
  }
  // The reports so far, once every scan that began has ended, or after `timeout`.
  std::vector<ScanReport> TakeWhenEnded(
      std::chrono::milliseconds timeout = std::chrono::seconds(1)) {
    std::unique_lock<std::mutex> lock(mu_);
    ended_.wait_for(lock, timeout, [&] { return open_ == 0; });
    return std::exchange(reports_, {});
  }

 private:
  static constexpr size_t kMaxReports = 1024;  // a server nobody drains keeps the last ones
  std::mutex mu_;
  std::condition_variable ended_;
  int64_t open_ = 0;
  std::vector<ScanReport> reports_;
};

}  // namespace mink::query
