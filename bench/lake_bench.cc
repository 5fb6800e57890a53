// lake_bench: the lakehouse's figures (issue 22), on a node in this process (SQLite, file://
// store and warehouse). Tables are created with a long freshness so that only the bench tiers.
//   (a) tiering throughput: --rows rows (8 columns) in a log table of 4 buckets, tiered as one
//       snapshot: MB/s of Parquet written per CPU-second, beside DuckDB writing the same rows
//       (the same Arrow batches) to Parquet from memory in this run (target >= 0.5x);
//   (b) lake lag: a steady write load (--lag-rate rows/s for --lag-seconds) on a table of
//       freshness --freshness-ms, tiered by the node's own worker; each row's lag is the time
//       from its write's acknowledgement to the first lake snapshot that holds it (target:
//       max <= freshness + 1 s);
//   (c) union read of a table 90% in the lake against the log-only read of the same rows
//       (target <= 1.0x).
// Bounded: row counts and phases are capped; the directory is removed at exit.

#include <fmt/format.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "arrow_format/builder.h"
#include "arrow_format/record_batch_builder.h"
#include "base/log.h"
#include "bench_node.h"
#include "bench_util.h"
#include "lake/lake.h"
#include "sql/database.h"

namespace mink::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  int64_t rows = 1'000'000;
  int lag_seconds = 20;
  int lag_rate = 2000;
  int64_t freshness_ms = 2000;
  bool json = false;
};

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Rows [from, to) of the bench's 8 columns.
arrow::RecordBatchPtr Rows(const arrow::SchemaPtr& schema, int64_t from, int64_t to) {
  auto b = *arrow::RecordBatchBuilder::Make(schema);
  for (int64_t i = from; i < to; ++i) {
    b->GetFieldAs<arrow::Int64Builder>(0)->Append(i);
    b->GetFieldAs<arrow::Int32Builder>(1)->Append(static_cast<int32_t>(i % 1000));
    b->GetFieldAs<arrow::DoubleBuilder>(2)->Append(double(i) * 0.25);
    (void)b->GetFieldAs<arrow::StringBuilder>(3)->Append(fmt::format("user-{}", i % 50000));
    (void)b->GetFieldAs<arrow::StringBuilder>(4)->Append(i % 3 == 0 ? "click" : "view");
    b->GetFieldAs<arrow::Int64Builder>(5)->Append(1700000000000 + i);
    b->GetFieldAs<arrow::BooleanBuilder>(6)->Append(i % 2 == 0);
    (void)b->GetFieldAs<arrow::StringBuilder>(7)->Append(fmt::format("{:032x}", i * 2654435761ULL));
  }
  return *b->Flush();
}

table::TableSpec EventsSpec(int64_t freshness_ms) {
  table::TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "kind INT",   "score DOUBLE", "user STRING",
                  "action STRING",      "at BIGINT", "flag BOOLEAN", "tag STRING"};
  spec.bucket_key = {"id"};
  spec.bucket_count = 4;
  spec.options = {{"table.datalake.enabled", "true"},
                  {"table.datalake.freshness", std::to_string(freshness_ms) + "ms"}};
  return spec;
}

int Run(const Flags& f) {
  log::SetLevel(log::Level::kWarn);
  InstallStopSignals();
  auto fail = [](const std::string& what, const Status& s) {
    fmt::print(stderr, "lake_bench: {}: {}\n", what, s.ToString());
    return 1;
  };
  auto started = BenchNode::Start("lake-bench");
  if (!started.ok()) return fail("start node", started.status());
  BenchNode& bench = **started;
  table::TableStore* tables = bench.tables();
  lake::Lake* lake = bench.node().lake();
  (void)tables->CreateDatabase("bench");
  constexpr int64_t kHour = 3600 * 1000;

  // ---- (a) tiering throughput against DuckDB alone
  if (auto t = tables->CreateTable("bench.events", EventsSpec(kHour)); !t.ok()) return fail("create", t.status());
  auto schema = *tables->TableSchema("bench.events");
  std::vector<arrow::RecordBatchPtr> batches;
  for (int64_t at = 0; at < f.rows; at += 50'000) batches.push_back(Rows(schema, at, std::min(f.rows, at + 50'000)));
  for (const auto& b : batches) {
    if (auto w = tables->Write({"bench.events"}, {b}); !w.ok()) return fail("write", w.status());
  }
  double cpu0 = ProcessCpuSeconds();
  auto t0 = Clock::now();
  auto tiered = lake->tiering().TierTable("bench.events");
  const double tier_s = Since(t0), tier_cpu = ProcessCpuSeconds() - cpu0;
  if (!tiered.ok() || *tiered == 0) return fail("tier", tiered.ok() ? InternalError("nothing tiered") : tiered.status());
  int64_t tier_bytes = 0;
  bench.node().meta()->Read([&](const metadata::State& s) {
    for (const auto& [id, l] : s.lake_tables()) {
      for (const auto& file : l.files) tier_bytes += file.size;
    }
  });
  auto db = *sql::Database::Open({2});
  auto session = *db->Connect();
  (void)session->RegisterBatches("rows", schema, batches);
  const std::string peer_file = std::filesystem::temp_directory_path() / fmt::format("mink-lake-bench-{}.parquet", ::getpid());
  cpu0 = ProcessCpuSeconds();
  t0 = Clock::now();
  if (Status s = session->Run("COPY rows TO '" + peer_file + "' (FORMAT parquet, COMPRESSION zstd)"); !s.ok()) return fail("peer", s);
  const double peer_s = Since(t0), peer_cpu = ProcessCpuSeconds() - cpu0;
  const int64_t peer_bytes = static_cast<int64_t>(std::filesystem::file_size(peer_file));
  std::filesystem::remove(peer_file);
  const double tier_rate = double(tier_bytes) / 1e6 / tier_cpu, peer_rate = double(peer_bytes) / 1e6 / peer_cpu;

  // ---- (c) union read 90% in the lake against the log read of the same rows
  const int64_t extra = f.rows / 9;
  for (int64_t at = f.rows; at < f.rows + extra; at += 50'000) {
    if (auto w = tables->Write({"bench.events"}, {Rows(schema, at, std::min(f.rows + extra, at + 50'000))}); !w.ok()) return fail("write", w.status());
  }
  auto read = [&](table::ReadMode mode) -> std::pair<double, int64_t> {
    table::ReadRequest r{"bench.events"};
    r.mode = mode;
    int64_t rows = 0;
    auto start = Clock::now();
    Status s = tables->Read(r, [&](const arrow::RecordBatchPtr& b) { rows += b->num_rows(); return true; });
    if (!s.ok()) fmt::print(stderr, "lake_bench: read: {}\n", s.ToString());
    return {Since(start), rows};
  };
  // Cold: each union read decodes the lake's Parquet files (the reader's decoded reads dropped
  // before it); warm: later ones find them decoded in the reader's cache, as log reads find
  // segments in the block cache.
  std::vector<double> union_s, cold_s, log_s;
  for (int run = 0; run < 3; ++run) {
    lake->reader().DropDecoded();
    auto c = read(table::ReadMode::kUnion);
    auto u = read(table::ReadMode::kUnion);
    auto l = read(table::ReadMode::kLog);
    if (c.second != l.second || u.second != l.second || u.second != f.rows + extra) {
      return fail("union read", InternalError(fmt::format("{} and {} rows against {}", c.second, u.second, l.second)));
    }
    cold_s.push_back(c.first);
    union_s.push_back(u.first);
    log_s.push_back(l.first);
  }
  std::sort(cold_s.begin(), cold_s.end());
  std::sort(union_s.begin(), union_s.end());
  std::sort(log_s.begin(), log_s.end());

  // ---- (b) lake lag under a steady write load
  if (auto t = tables->CreateTable("bench.steady", EventsSpec(f.freshness_ms)); !t.ok()) return fail("create", t.status());
  std::vector<std::pair<int64_t, Clock::time_point>> acks;  // rows written so far, when acknowledged
  std::vector<double> lags;
  std::atomic<bool> writing{true};
  std::mutex mu;
  std::thread writer([&] {
    const int per_batch = std::max(1, f.lag_rate / 20);
    auto next = Clock::now();
    int64_t id = 0;
    while (writing && !g_interrupted) {
      auto w = tables->Write({"bench.steady"}, {Rows(schema, id, id + per_batch)});
      if (w.ok()) {
        id += per_batch;
        std::lock_guard<std::mutex> lock(mu);
        acks.emplace_back(id, Clock::now());
      }
      next += std::chrono::milliseconds(50);
      std::this_thread::sleep_until(next);
    }
  });
  size_t seen = 0;
  const auto lag_end = Clock::now() + std::chrono::seconds(f.lag_seconds);
  while (Clock::now() < lag_end && !g_interrupted) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    int64_t in_lake = 0;
    auto info = tables->LakeSnapshot("bench.steady");
    if (info.ok()) {
      for (const auto& [label, offset] : info->buckets) in_lake += offset;
    }
    std::lock_guard<std::mutex> lock(mu);
    while (seen < acks.size() && acks[seen].first <= in_lake) {
      lags.push_back(Since(acks[seen].second));
      ++seen;
    }
  }
  writing = false;
  writer.join();
  std::sort(lags.begin(), lags.end());
  auto pct = [&](double p) { return lags.empty() ? 0.0 : lags[std::min(lags.size() - 1, size_t(p * double(lags.size())))]; };

  fmt::print("lake_bench: {} rows of 8 columns in 4 buckets; node in this process, file:// warehouse\n", f.rows);
  fmt::print("  (a) tiering: {:.2f} s, {:.2f} CPU-s, {:.1f} MB of Parquet: {:.1f} MB per CPU-s; DuckDB alone "
             "{:.2f} s, {:.2f} CPU-s, {:.1f} MB: {:.1f} MB per CPU-s; ratio {:.2f} (target >= 0.5)\n",
             tier_s, tier_cpu, tier_bytes / 1e6, tier_rate, peer_s, peer_cpu, peer_bytes / 1e6, peer_rate,
             tier_rate / peer_rate);
  fmt::print("  (b) lake lag at {} rows/s, freshness {} ms: {} writes, p50 {:.2f} s, p99 {:.2f} s, max {:.2f} s "
             "(target max <= {:.1f} s)\n",
             f.lag_rate, f.freshness_ms, lags.size(), pct(0.5), pct(0.99), lags.empty() ? 0.0 : lags.back(),
             f.freshness_ms / 1000.0 + 1);
  fmt::print("  (c) union read, 90% in the lake: {:.3f} s against the log's {:.3f} s (medians of 3): {:.2f}x "
             "(target <= 1.0); cold (decoding the lake's files) {:.3f} s: {:.2f}x\n",
             union_s[1], log_s[1], union_s[1] / log_s[1], cold_s[1], cold_s[1] / log_s[1]);
  return 0;
}

}  // namespace
}  // namespace mink::bench

int main(int argc, char** argv) {
  mink::bench::Flags f;
  CLI::App app{"lake_bench: tiering throughput, lake lag, union reads (bench/README.md)"};
  app.add_option("--rows", f.rows, "Rows of the throughput and union phases")->check(CLI::Range(int64_t{10'000}, int64_t{20'000'000}));
  app.add_option("--lag-seconds", f.lag_seconds, "Length of the lag phase")->check(CLI::Range(2, 120));
  app.add_option("--lag-rate", f.lag_rate, "Rows per second of the lag phase")->check(CLI::Range(20, 100'000));
  app.add_option("--freshness-ms", f.freshness_ms, "The lag phase's table freshness")->check(CLI::Range(int64_t{200}, int64_t{600'000}));
  CLI11_PARSE(app, argc, argv);
  return mink::bench::Run(f);
}
