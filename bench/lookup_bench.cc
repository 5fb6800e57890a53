// lookup_bench: the figures of primary-key lookups (issue 21). It starts a node in this process
// (SQLite metadata, file:// store, Flight on a free loopback port), fills one primary-key table
// of one bucket (the "hot bucket") with --keys keys, and measures:
//   (a) the table layer alone: TableStore::Lookup of batches of --batch keys, in this process,
//       with no RPC (the limit the node's own work sets);
//   (b) the RPC floor: one DoExchange session answering empty key batches (a round trip with
//       nothing to look up);
//   (c) batches of --batch keys over one DoExchange session: keys/s, and keys per CPU-second of
//       this process (client and node together, so a lower bound of the node's own rate);
//   (d) single-key lookups on an open session: latency p50/p99, beside the floor's;
//   (e) single-key lookups each on a new DoExchange call (what mink-query's lookup does).
// Keys are drawn uniformly from the table (a fixed seed); every answer is checked to hold the key
// asked for. Bounded: each phase lasts at most --seconds (<= 60) and --max-calls calls; the
// directory is removed at exit.

#include <fmt/format.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "arrow_format/builder.h"
#include "arrow_format/record_batch_builder.h"
#include "base/log.h"
#include "bench_util.h"
#include "flight/client/exchange_batches.h"
#include "bench_node.h"

namespace mink::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  int64_t keys = 200'000;
  int batch = 100;
  int seconds = 5;
  int64_t max_calls = 2'000'000;
  bool json = false;
};

double CpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

int64_t Micros(Clock::duration d) {
  return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

// A batch of `ids` of the key column.
arrow::RecordBatchPtr Keys(const arrow::SchemaPtr& schema, const std::vector<int64_t>& ids) {
  auto builder = arrow::RecordBatchBuilder::Make(schema);
  for (int64_t id : ids) (*builder)->GetFieldAs<arrow::Int64Builder>(0)->Append(id);
  return *(*builder)->Flush();
}

// The first column of an answer, as int64 (the key), to check what came back.
int64_t KeyAt(const arrow::RecordBatch& rows, int64_t i) {
  return rows.Column(0)->buffers[1]->data_as<int64_t>()[i];
}

struct Phase {
  std::string name;
  int64_t calls = 0;
  int64_t keys = 0;
  double seconds = 0;
  double cpu_seconds = 0;
  Distribution latency;
  int64_t wrong = 0;  // answers that did not hold the keys asked for
  double keys_per_s() const { return seconds > 0 ? double(keys) / seconds : 0; }
  double keys_per_cpu_s() const { return cpu_seconds > 0 ? double(keys) / cpu_seconds : 0; }
};

// Runs `call(ids)` (returns the rows found) with batches of `batch` random keys until the
// deadline or the call budget.
template <typename Call>
Phase Measure(const std::string& name, const Flags& f, int batch, Call call) {
  Phase p;
  p.name = name;
  std::mt19937_64 random(42);
  std::uniform_int_distribution<int64_t> pick(0, f.keys - 1);
  std::vector<int64_t> us;
  const auto deadline = Clock::now() + std::chrono::seconds(f.seconds);
  const double cpu0 = CpuSeconds();
  const auto t0 = Clock::now();
  while (Clock::now() < deadline && p.calls < f.max_calls && !g_interrupted) {
    std::vector<int64_t> ids(static_cast<size_t>(batch));
    for (auto& id : ids) id = pick(random);
    const auto start = Clock::now();
    arrow::RecordBatchPtr rows = call(ids);
    us.push_back(Micros(Clock::now() - start));
    ++p.calls;
    p.keys += batch;
    if (rows == nullptr || rows->num_rows() != batch) {
      ++p.wrong;
      continue;
    }
    for (int64_t i = 0; i < batch; ++i) p.wrong += KeyAt(*rows, i) != ids[static_cast<size_t>(i)];
  }
  p.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  p.cpu_seconds = CpuSeconds() - cpu0;
  p.latency = Summarize(std::move(us));
  return p;
}

int Run(const Flags& f) {
  log::SetLevel(log::Level::kWarn);
  InstallStopSignals();
  auto fail = [](const std::string& what, const Status& s) {
    fmt::print(stderr, "lookup_bench: {}: {}\n", what, s.ToString());
    return 1;
  };
  auto started = BenchNode::Start("lookup-bench");
  if (!started.ok()) return fail("start node", started.status());
  BenchNode& bench_node = **started;
  table::TableStore* tables = bench_node.tables();
  const std::string address = bench_node.address();

  // One bucket of --keys keys: id, v = id * 3, s = a 16-byte string.
  if (Status s = tables->CreateDatabase("bench"); !s.ok()) return fail("create database", s);
  table::TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "v BIGINT", "s STRING"};
  spec.primary_key = {"id"};
  spec.bucket_count = 1;
  if (auto t = tables->CreateTable("bench.kv", spec); !t.ok()) return fail("create table", t.status());
  auto schema = tables->TableSchema("bench.kv");
  if (!schema.ok()) return fail("schema", schema.status());
  const auto fill0 = Clock::now();
  for (int64_t from = 0; from < f.keys; from += 50'000) {
    auto builder = arrow::RecordBatchBuilder::Make(*schema);
    for (int64_t id = from; id < std::min(f.keys, from + 50'000); ++id) {
      (*builder)->GetFieldAs<arrow::Int64Builder>(0)->Append(id);
      (*builder)->GetFieldAs<arrow::Int64Builder>(1)->Append(id * 3);
      (void)(*builder)->GetFieldAs<arrow::StringBuilder>(2)->Append(fmt::format("{:016d}", id));
    }
    auto batch = (*builder)->Flush();
    auto written = tables->Write({"bench.kv"}, {*batch});
    if (!written.ok()) return fail("fill", written.status());
  }
  const double fill_s = std::chrono::duration<double>(Clock::now() - fill0).count();
  auto key_schema = std::make_shared<arrow::Schema>(
      std::vector<arrow::Field>{arrow::Field("id", arrow::Int64(), false)});

  std::vector<Phase> phases;
  table::LookupRequest request{"bench.kv"};
  phases.push_back(Measure("table layer, in process", f, f.batch, [&](const std::vector<int64_t>& ids) {
    auto rows = tables->Lookup(request, *Keys(key_schema, ids));
    return rows.ok() ? *rows : nullptr;
  }));

  auto client = flight::FlightClient::Connect(address);
  if (!client.ok()) return fail("connect", client.status());
  const std::string command = R"({"table": "bench.kv", "lookup": "key"})";
  auto session = flight::BatchExchange::Open(**client, command, *key_schema);
  if (!session.ok()) return fail("open exchange", session.status());
  auto over_session = [&](const std::vector<int64_t>& ids) -> arrow::RecordBatchPtr {
    auto rows = (*session)->Call(*Keys(key_schema, ids));
    return rows.ok() ? *rows : nullptr;
  };
  phases.push_back(Measure("RPC floor: empty batches, one session", f, 0, over_session));
  phases.push_back(Measure(fmt::format("batches of {} keys, one session", f.batch), f, f.batch,
                           over_session));
  phases.push_back(Measure("single keys, one session", f, 1, over_session));
  phases.push_back(Measure("single keys, a new call each", f, 1,
                           [&](const std::vector<int64_t>& ids) -> arrow::RecordBatchPtr {
                             auto s = flight::BatchExchange::Open(**client, command, *key_schema);
                             if (!s.ok()) return nullptr;
                             auto rows = (*s)->Call(*Keys(key_schema, ids));
                             (void)(*s)->Finish();
                             return rows.ok() ? *rows : nullptr;
                           }));
  (void)(*session)->Finish();

  const Phase& floor = phases[1];
  const Phase& batched = phases[2];
  const Phase& single = phases[3];
  if (f.json) {
    nlohmann::json out = {{"keys", f.keys}, {"batch", f.batch}, {"fill_seconds", fill_s}};
    for (const auto& p : phases) {
      out["phases"].push_back({{"name", p.name},
                               {"calls", p.calls},
                               {"keys_per_s", p.keys_per_s()},
                               {"keys_per_cpu_s", p.keys_per_cpu_s()},
                               {"p50_ms", p.latency.p50_ms},
                               {"p99_ms", p.latency.p99_ms},
                               {"wrong", p.wrong}});
    }
    fmt::print("{}\n", out.dump());
    return 0;
  }
  fmt::print("lookup_bench: {} keys in one bucket (filled in {:.1f} s), node in this process\n",
             f.keys, fill_s);
  for (const auto& p : phases) {
    fmt::print("  {:<42} {:>8} calls  {:>10.0f} keys/s  {:>10.0f} keys/CPU-s  p50 {:.3f} ms  "
               "p99 {:.3f} ms{}\n",
               p.name, p.calls, p.keys_per_s(), p.keys_per_cpu_s(), p.latency.p50_ms,
               p.latency.p99_ms, p.wrong ? fmt::format("  WRONG ANSWERS: {}", p.wrong) : "");
  }
  fmt::print("  batches of {}: {:.0f} keys per CPU-second of client and node (target >= 200,000 "
             "on one core); {:.2f} of the table layer's own rate\n",
             f.batch, batched.keys_per_cpu_s(), batched.keys_per_s() / phases[0].keys_per_s());
  fmt::print("  single key p99 {:.3f} ms (target < 1 ms) = {:.2f}x the RPC floor's p99 {:.3f} ms\n",
             single.latency.p99_ms, single.latency.p99_ms / std::max(1e-9, floor.latency.p99_ms),
             floor.latency.p99_ms);
  return 0;
}

}  // namespace
}  // namespace mink::bench

int main(int argc, char** argv) {
  mink::bench::Flags f;
  CLI::App app{"lookup_bench: primary-key lookups through Flight DoExchange (bench/README.md)"};
  app.add_option("--keys", f.keys, "Keys in the table (one bucket)")->check(CLI::Range(1, 5'000'000));
  app.add_option("--batch", f.batch, "Keys per batch in the batched phases")->check(CLI::Range(1, 10'000));
  app.add_option("--seconds", f.seconds, "Length of each phase")->check(CLI::Range(1, 60));
  app.add_option("--max-calls", f.max_calls, "Calls per phase at most");
  app.add_flag("--json", f.json, "One JSON object instead of text");
  CLI11_PARSE(app, argc, argv);
  return mink::bench::Run(f);
}
