// stream_bench: continuous SQL's figures (docs/performance.md), on a node in this process.
//   (a) throughput: a tumbling-window aggregate (COUNT, SUM per key and second) over a Mink log
//       table of N events written beforehand: events per CPU-second of the whole process from
//       the stream's creation until its pipeline has read every event; the peer is DuckDB
//       computing the same aggregate in batch over the same rows (one thread), as a ratio.
//   (b) latency: events written live (a batch every few milliseconds, event time = now) into a
//       100 ms tumbling window with no out-of-orderness allowed, so the watermark passes a
//       window's end when the first event after it is committed; latency = the commit time of
//       the window's row in the output table minus that event's commit. p50, p99, max.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "arrow_format/builder.h"
#include "arrow_format/record_batch_builder.h"
#include "bench_node.h"
#include "bench_util.h"
#include "sql/database.h"
#include "stream/catalog.h"

namespace mink::bench {
namespace {

using Steady = std::chrono::steady_clock;

struct Flags {
  int64_t rows = 2'000'000;
  int keys = 100;
  int latency_seconds = 15;
  int latency_batch_ms = 5;
};

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status RunSql(stream::Catalog& catalog, const std::string& sql) {
  MINK_ASSIGN_OR_RETURN(auto statements, stream::ParseStatements(sql));
  for (const auto& s : statements) MINK_RETURN_IF_ERROR(catalog.Execute(s, 0).status());
  return Status::Ok();
}

// `rows` events (k: one of `keys`, v, ts from `first_us`, `step_us` apart) as one batch.
Result<arrow::RecordBatchPtr> Events(const arrow::SchemaPtr& schema, int64_t first, int64_t rows, int keys,
                                     int64_t first_us, int64_t step_us) {
  MINK_ASSIGN_OR_RETURN(auto b, arrow::RecordBatchBuilder::Make(schema));
  for (int64_t i = first; i < first + rows; ++i) {
    MINK_RETURN_IF_ERROR(b->GetFieldAs<arrow::StringBuilder>(0)->Append("key" + std::to_string(i % keys)));
    b->GetFieldAs<arrow::Int64Builder>(1)->Append(i % 1000);
    b->GetFieldAs<arrow::TimestampBuilder>(2)->Append(first_us + (i - first) * step_us);
  }
  return b->Flush();
}

// Waits until `name`'s pipeline has read `rows` events (or `limit` passes); whether it did.
bool WaitForRows(node::Node& node, const std::string& name, int64_t rows, std::chrono::seconds limit) {
  const auto deadline = Steady::now() + limit;
  while (Steady::now() < deadline && !g_interrupted) {
    auto stats = node.pipelines()->Stats();
    if (auto it = stats.find(name); it != stats.end() && it->second.rows_in >= rows) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

int Run(const Flags& f) {
  InstallStopSignals();
  auto started = BenchNode::Start("stream-bench");
  if (!started.ok()) {
    fmt::print(stderr, "stream_bench: {}\n", started.status().ToString());
    return 1;
  }
  BenchNode& bench = **started;
  node::Node& node = bench.node();
  auto db = sql::Database::Open(sql::DatabaseOptions{1});
  if (!db.ok()) return 1;
  stream::Catalog catalog(node.meta(), node.tables(), db->get());
  auto check = [](const Status& s, const char* what) {
    if (!s.ok()) {
      fmt::print(stderr, "stream_bench: {}: {}\n", what, s.ToString());
      std::exit(1);
    }
  };
  check(node.tables()->CreateDatabase("bench"), "database");
  table::TableSpec spec;
  spec.columns = {"k STRING NOT NULL", "v BIGINT NOT NULL", "ts TIMESTAMP(6) NOT NULL"};
  check(node.tables()->CreateTable("bench.events", spec).status(), "table");
  check(node.tables()->CreateTable("bench.live", spec).status(), "table");
  auto schema = node.tables()->TableSchema("bench.events");
  check(schema.status(), "schema");

  // (a) Throughput: the events first, then the stream reads them all.
  constexpr int64_t kBatch = 20'000;
  const int64_t start_us = 1'790'000'000'000'000;
  std::vector<arrow::RecordBatchPtr> all;
  for (int64_t at = 0; at < f.rows; at += kBatch) {
    auto batch = Events(*schema, at, std::min(kBatch, f.rows - at), f.keys, start_us + at * 1000, 1000);
    check(batch.status(), "events");
    table::WriteRequest request;
    request.table = "bench.events";
    check(node.tables()->Write(request, {*batch}).status(), "write");
    all.push_back(*batch);
  }
  const std::string aggregate =
      "SELECT k, tumble(ts, INTERVAL '1' SECOND) AS w, COUNT(*) AS c, SUM(v) AS total FROM events "
      "GROUP BY k, tumble(ts, INTERVAL '1' SECOND)";
  double cpu0 = ProcessCpuSeconds();
  auto t0 = Steady::now();
  check(RunSql(catalog, "CREATE SOURCE events (WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) FROM MINK "
                        "('table' = 'bench.events'); CREATE STREAM per_second AS " + aggregate +
                            " EMIT ON WINDOW CLOSE"),
        "create");
  if (!WaitForRows(node, "per_second", f.rows, std::chrono::seconds(300))) {
    fmt::print(stderr, "stream_bench: the pipeline did not read every event\n");
    return 1;
  }
  const double ours_s = Seconds(t0, Steady::now()), ours_cpu = ProcessCpuSeconds() - cpu0;

  auto session = (*db)->Connect();
  check(session.status(), "session");
  check((*session)->RegisterBatches("events", *schema, all), "register");
  check((*session)->Run("SET TimeZone = 'UTC'"), "tz");
  cpu0 = ProcessCpuSeconds();
  t0 = Steady::now();
  auto peer = (*session)->Collect(
      "SELECT k, time_bucket(INTERVAL '1' SECOND, ts) AS w, COUNT(*) AS c, SUM(v) AS total FROM events GROUP BY ALL");
  check(peer.status(), "duckdb");
  const double peer_s = Seconds(t0, Steady::now()), peer_cpu = ProcessCpuSeconds() - cpu0;
  const double ours_rate = static_cast<double>(f.rows) / ours_cpu, peer_rate = static_cast<double>(f.rows) / peer_cpu;

  // (b) Latency: live events, 100 ms windows, the watermark at the highest event time.
  check(RunSql(catalog, "CREATE SOURCE live (WATERMARK FOR ts) FROM MINK ('table' = 'bench.live'); "
                        "CREATE STREAM live_windows AS SELECT tumble(ts, INTERVAL '100' MILLISECOND) AS w, "
                        "COUNT(*) AS c FROM live GROUP BY tumble(ts, INTERVAL '100' MILLISECOND) EMIT ON WINDOW CLOSE"),
        "create live");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the pipeline starts
  std::vector<std::pair<int64_t, int64_t>> commits;  // (highest event time us, commit time us)
  const auto end = Steady::now() + std::chrono::seconds(f.latency_seconds);
  int64_t written = 0;
  while (Steady::now() < end && !g_interrupted) {
    const int64_t now = NowMicros();
    auto batch = Events(*schema, written, 20, f.keys, now, 1);
    check(batch.status(), "live events");
    table::WriteRequest request;
    request.table = "bench.live";
    check(node.tables()->Write(request, {*batch}).status(), "live write");
    commits.emplace_back(now + 19, NowMicros());
    written += 20;
    std::this_thread::sleep_for(std::chrono::milliseconds(f.latency_batch_ms));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  // The output's rows with their commit times.
  table::ReadRequest out;
  out.table = "continuous.live_windows";
  out.timestamp = true;
  std::vector<int64_t> latencies_us;
  check(node.tables()->Read(out,
                            [&](const arrow::RecordBatchPtr& b) {
                              auto w = b->Column(0);
                              auto ts = b->Column(b->num_columns() - 1);
                              const auto* starts = reinterpret_cast<const int64_t*>(w->buffers[1]->data());
                              const auto* committed = reinterpret_cast<const int64_t*>(ts->buffers[1]->data());
                              for (int64_t i = 0; i < b->num_rows(); ++i) {
                                // w is TIMESTAMP(3): the window's start in milliseconds.
                                const int64_t window_end_us = (starts[i] + 100) * 1000;
                                auto passed = std::find_if(commits.begin(), commits.end(), [&](const auto& c) {
                                  return c.first >= window_end_us;
                                });
                                if (passed == commits.end() || passed == commits.begin()) continue;
                                latencies_us.push_back(committed[i] * 1000 - passed->second);
                              }
                              return true;
                            }),
        "read output");
  // The first windows waited for the pipeline to start.
  if (latencies_us.size() > 10) latencies_us.erase(latencies_us.begin(), latencies_us.begin() + 5);
  Distribution d = Summarize(latencies_us);

  fmt::print("stream_bench: {} events, {} keys, 1 s tumbling COUNT/SUM per key; node in this process\n", f.rows, f.keys);
  fmt::print("  (a) throughput: {:.2f} s, {:.2f} CPU-s: {:.0f} events per CPU-s (target >= 1,000,000); DuckDB in "
             "batch {:.3f} s, {:.3f} CPU-s: {:.0f} events per CPU-s; ratio {:.3f}\n",
             ours_s, ours_cpu, ours_rate, peer_s, peer_cpu, peer_rate, ours_rate / peer_rate);
  fmt::print("  (b) window close latency (100 ms windows, {} batches of 20 events every {} ms): {} windows, p50 "
             "{:.1f} ms, p99 {:.1f} ms, max {:.1f} ms (target p99 <= 50 ms)\n",
             commits.size(), f.latency_batch_ms, d.count, d.p50_ms, d.p99_ms, d.max_ms);
  return 0;
}

}  // namespace
}  // namespace mink::bench

int main(int argc, char** argv) {
  mink::bench::Flags f;
  CLI::App app{"stream_bench: continuous SQL throughput and window-close latency (bench/README.md)"};
  app.add_option("--rows", f.rows, "Events of the throughput phase")->check(CLI::Range(int64_t{10'000}, int64_t{50'000'000}));
  app.add_option("--keys", f.keys, "Distinct keys")->check(CLI::Range(1, 1'000'000));
  app.add_option("--latency-seconds", f.latency_seconds, "Length of the latency phase")->check(CLI::Range(2, 120));
  CLI11_PARSE(app, argc, argv);
  return mink::bench::Run(f);
}
