// query_bench: SQL over Mink against DuckDB on a local Parquet file holding the same rows, in the
// same run and the same DuckDB (docs/performance.md, "SQL: mink-query").
//
// Starts a node in this process (SQLite metadata, file:// objects in a temporary directory),
// writes --rows rows into a partitioned log table, writes the same rows to a Parquet file with
// DuckDB, then times
//   Q1  SELECT k, sum(v), count(*) FROM <t> GROUP BY k            (every row, two columns)
// on both sources (best of --runs after a warm-up), on Mink locked down as the node's and
// mink-query's SQL run (external access off, a 60 s statement limit) against this engine's, and on Mink twice more: with its column
// statistics off (SET mink_column_statistics = false) and with uncompressed batches (SET
// mink_compressed_scan = false); checks that the answers are equal, and measures partition
// pruning:
//   Q2  SELECT sum(v) FROM mink.bench.t WHERE p = 'p3'           (one partition of --partitions)
// reporting the bytes the scan received against a scan of the same columns (p and v) that keeps
// every partition (WHERE p >= 'p').
// Bounded: --rows at most 50,000,000, every step runs once (plus --runs timings).
//
// Usage: query_bench [--rows N] [--partitions P] [--buckets B] [--runs R] [--threads T]
//                    [--block-cache-mb M]   (the node's block cache; mink serve's default is 64)
//                    [--explain]            (EXPLAIN ANALYZE of Q1 on both sources, to stderr)
//                    [--hold-seconds S]     (then Q1 on mink for S seconds: a profiler's window)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "arrow_format/builder.h"
#include "arrow_format/record_batch_builder.h"
#include "node/node.h"
#include "query/engine.h"
#include "test_env.h"

namespace mink::query {
namespace {

struct Flags {
  int64_t rows = 10'000'000;
  int partitions = 8;
  int buckets = 2;
  int runs = 3;
  int threads = 2;
  int64_t block_cache_mb = 64;  // the node's block cache (mink serve's default)
  bool explain = false;          // print EXPLAIN ANALYZE of Q1 on both sources
  int hold_seconds = 0;          // then run Q1 on mink this long (a window for a profiler)
  bool scattered = false;        // --data scattered: pseudo-random k and v (little to compress)
};

using BenchClock = std::chrono::steady_clock;
double Seconds(BenchClock::time_point since) {
  return std::chrono::duration<double>(BenchClock::now() - since).count();
}

[[noreturn]] void Die(const std::string& what, const Status& status) {
  std::fprintf(stderr, "query_bench: %s: %s\n", what.c_str(), status.ToString().c_str());
  std::exit(1);
}

template <typename T>
T Check(Result<T> result, const std::string& what) {
  if (!result.ok()) Die(what, result.status());
  return std::move(*result);
}

// Every row of a query, as text lines "v1|v2|..." (for comparing answers), and its time.
struct Answer {
  std::vector<std::string> rows;
  double seconds = 0;
};

std::string Text(const arrow::ArrayDataPtr& d, int64_t i) {
  const int64_t j = i;
  switch (d->type->id()) {
    case arrow::TypeId::kInt32:
      return std::to_string(d->buffers[1]->data_as<int32_t>()[j]);
    case arrow::TypeId::kInt64:
      return std::to_string(d->buffers[1]->data_as<int64_t>()[j]);
    case arrow::TypeId::kFloat64: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.6f", d->buffers[1]->data_as<double>()[j]);
      return buf;
    }
    default:
      return "?";
  }
}

// Runs `sql` in a new session (after `setup`, untimed, in the same session).
Answer Run(Engine& engine, const std::string& sql, const std::string& setup = "") {
  auto session = Check(engine.Connect(), "connect");
  if (!setup.empty()) {
    auto done = Check(session->Execute(setup), setup);
    while (Check(done->Next(), setup) != nullptr) {
    }
  }
  Answer answer;
  auto start = BenchClock::now();
  auto result = Check(session->Execute(sql), sql);
  while (true) {
    auto batch = Check(result->Next(), sql);
    if (batch == nullptr) break;
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      std::string row;
      for (int c = 0; c < batch->num_columns(); ++c) {
        row += (c ? "|" : "") + Text(batch->Column(c), i);
      }
      answer.rows.push_back(std::move(row));
    }
  }
  result.reset();
  answer.seconds = Seconds(start);
  return answer;
}

// The best time of each query over `runs` rounds after a warm-up round. The queries take turns
// in every round, so that load from outside the bench falls on all of them alike.
struct Query {
  std::string sql;
  std::string setup;
};
std::vector<Answer> Best(Engine& engine, const std::vector<Query>& queries, int runs) {
  std::vector<Answer> best;
  for (const auto& q : queries) best.push_back(Run(engine, q.sql, q.setup));  // warm-up
  for (int r = 0; r < runs; ++r) {
    for (size_t i = 0; i < queries.size(); ++i) {
      Answer a = Run(engine, queries[i].sql, queries[i].setup);
      if (a.seconds < best[i].seconds || r == 0) best[i] = std::move(a);
    }
  }
  return best;
}

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> int64_t {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "query_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::atoll(argv[++i]);
    };
    if (a == "--rows") f.rows = next();
    else if (a == "--partitions") f.partitions = static_cast<int>(next());
    else if (a == "--buckets") f.buckets = static_cast<int>(next());
    else if (a == "--runs") f.runs = static_cast<int>(next());
    else if (a == "--threads") f.threads = static_cast<int>(next());
    else if (a == "--block-cache-mb") f.block_cache_mb = next();
    else if (a == "--explain") f.explain = true;
    else if (a == "--hold-seconds") f.hold_seconds = static_cast<int>(next());
    else if (a == "--data" && i + 1 < argc && std::string(argv[i + 1]) == "periodic") ++i;
    else if (a == "--data" && i + 1 < argc && std::string(argv[i + 1]) == "scattered") {
      f.scattered = true;
      ++i;
    } else {
      std::fprintf(stderr, "usage: query_bench [--rows N] [--partitions P] [--buckets B] "
                           "[--runs R] [--threads T] [--block-cache-mb M] [--explain] "
                           "[--hold-seconds S] [--data periodic|scattered]\n");
      std::exit(2);
    }
  }
  if (f.rows < 1000 || f.rows > 50'000'000 || f.partitions < 1 || f.partitions > 64 ||
      f.buckets < 1 || f.buckets > 64 || f.runs < 1 || f.runs > 20 || f.threads < 1 ||
      f.block_cache_mb < 1 || f.block_cache_mb > 4096 || f.hold_seconds < 0 ||
      f.hold_seconds > 600) {
    std::fprintf(stderr, "query_bench: out of bounds (rows 1e3..5e7, partitions and buckets "
                         "1..64, runs 1..20, hold 0..600 s)\n");
    std::exit(2);
  }
  return f;
}

// Row i of the data set; DataSql gives the same formulas to DuckDB for the Parquet file.
// Periodic (the default): k and v repeat with short periods, so the stored batches compress
// about 150x. Scattered: k and v come from a multiplicative hash of i, so little compresses
// (v stays a multiple of 0.25, so every sum is exact and the answers can be compared).
std::string PartitionOf(int64_t i, int partitions) { return "p" + std::to_string(i % partitions); }
uint64_t Scatter(int64_t i) { return (static_cast<uint64_t>(i) * 2654435761ULL) % 4294967296ULL; }
int32_t KeyOf(int64_t i, bool scattered) {
  return static_cast<int32_t>(scattered ? Scatter(i) % 100 : (i * 7919) % 100);
}
double ValueOf(int64_t i, bool scattered) {
  return scattered ? static_cast<double>((Scatter(i) / 100) % 100000) * 0.25
                   : static_cast<double>(i % 1000) * 0.5;
}
std::string DataSql(bool scattered) {
  const std::string x = "((range * 2654435761) % 4294967296)";
  return scattered ? "CAST(" + x + " % 100 AS INTEGER) AS k, CAST((" + x +
                         " // 100) % 100000 AS DOUBLE) * 0.25 AS v"
                   : "CAST((range * 7919) % 100 AS INTEGER) AS k, "
                     "CAST((range % 1000) * 0.5 AS DOUBLE) AS v";
}

}  // namespace
}  // namespace mink::query

int main(int argc, char** argv) {
  using namespace mink;
  using namespace mink::query;
  Flags f = ParseFlags(argc, argv);
  std::string dir = testing_env::MakeTempDir("query-bench");
  config::ServeConfig config;
  config.listen = "127.0.0.1:" + std::to_string(testing_env::FreePort());
  config.meta_url = "sqlite:" + dir + "/meta.db";
  config.storage_uri = "-2@file://" + dir + "/objects";
  config.block_cache_bytes = static_cast<uint64_t>(f.block_cache_mb) << 20;
  auto node = Check(node::Node::Start(config), "starting the node");
  table::TableStore* tables = node->tables();
  if (Status s = tables->CreateDatabase("bench"); !s.ok()) Die("create database", s);
  table::TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "p STRING NOT NULL", "k INT NOT NULL", "v DOUBLE"};
  spec.partition_by = {"p"};
  spec.bucket_count = f.buckets;
  Check(tables->CreateTable("bench.t", spec), "create table");
  auto schema = Check(tables->TableSchema("bench.t"), "table schema");

  // Write: one batch per partition at a time, 262,144 rows each.
  auto start = BenchClock::now();
  constexpr int64_t kBatchRows = 262'144;
  for (int part = 0; part < f.partitions; ++part) {
    int64_t in_partition = 0;
    auto builder = Check(arrow::RecordBatchBuilder::Make(schema), "builder");
    auto flush = [&] {
      auto batch = Check(builder->Flush(), "flush");
      table::WriteRequest request;
      request.table = "bench.t";
      Check(tables->Write(request, {batch}), "write");
    };
    for (int64_t i = part; i < f.rows; i += f.partitions) {
      builder->GetFieldAs<arrow::Int64Builder>(0)->Append(i);
      (void)builder->GetFieldAs<arrow::StringBuilder>(1)->Append(PartitionOf(i, f.partitions));
      builder->GetFieldAs<arrow::Int32Builder>(2)->Append(KeyOf(i, f.scattered));
      builder->GetFieldAs<arrow::DoubleBuilder>(3)->Append(ValueOf(i, f.scattered));
      if (++in_partition % kBatchRows == 0) flush();
    }
    if (builder->num_rows() > 0) flush();
  }
  double write_seconds = Seconds(start);

  EngineOptions options;
  options.bootstrap = "grpc://" + config.listen;
  options.threads = f.threads;
  options.lock_down = false;  // it writes and reads its Parquet peer with the same DuckDB
  auto engine = Check(Engine::Open(options), "opening the engine");

  // The same rows in Parquet, written by DuckDB.
  std::string parquet = dir + "/t.parquet";
  start = BenchClock::now();
  Run(*engine, "COPY (SELECT range AS id, 'p' || (range % " + std::to_string(f.partitions) +
                   ") AS p, " + DataSql(f.scattered) +
                   " FROM range(" + std::to_string(f.rows) + ")) TO '" + parquet +
                   "' (FORMAT parquet)");
  double parquet_write_seconds = Seconds(start);
  auto parquet_bytes = std::filesystem::file_size(parquet);

  const std::string q1 = "SELECT k, sum(v), count(*) FROM %s GROUP BY k ORDER BY k";
  auto with = [&](const std::string& source) {
    std::string sql = q1;
    return sql.replace(sql.find("%s"), 2, source);
  };
  engine->scans().TakeWhenEnded();
  Run(*engine, with("mink.bench.t"));  // for its ScanReport
  auto scans = engine->scans().TakeWhenEnded();
  // Mink, Parquet, and Mink planned without the nodes' column statistics (so with DuckDB's
  // general hash aggregate), taking turns.
  std::vector<Answer> q1s =
      Best(*engine,
           {{with("mink.bench.t"), ""},
            {with("read_parquet('" + parquet + "')"), ""},
            {with("mink.bench.t"), "SET mink_column_statistics = false"},
            {with("mink.bench.t"), "SET mink_compressed_scan = false"}},
           f.runs);
  engine->scans().TakeWhenEnded();
  const Answer& mink_q1 = q1s[0];
  const Answer& duck_q1 = q1s[1];
  const Answer& plain_q1 = q1s[2];
  const Answer& raw_q1 = q1s[3];
  if (mink_q1.rows != duck_q1.rows || plain_q1.rows != duck_q1.rows ||
      raw_q1.rows != duck_q1.rows || mink_q1.rows.size() != 100) {
    std::fprintf(stderr, "query_bench: the answers differ (%zu and %zu rows)\n",
                 mink_q1.rows.size(), duck_q1.rows.size());
    for (size_t i = 0; i < mink_q1.rows.size() && i < duck_q1.rows.size(); ++i) {
      if (mink_q1.rows[i] != duck_q1.rows[i]) {
        std::fprintf(stderr, "  row %zu: mink %s, parquet %s\n", i, mink_q1.rows[i].c_str(),
                     duck_q1.rows[i].c_str());
        break;
      }
    }
    return 1;
  }
  // The locked-down query path (what the node's SQL endpoint and mink-query run: external access
  // off, configuration locked, a 60 s statement limit with its watcher) against this engine's,
  // Q1 on Mink, taking turns.
  EngineOptions locked_options = options;
  locked_options.lock_down = true;
  locked_options.timeout = sql::StatementTimeout{std::chrono::seconds(60), "sql.timeout"};
  auto locked = Check(Engine::Open(locked_options), "opening the locked-down engine");
  Answer open_q1 = Run(*engine, with("mink.bench.t")), locked_q1 = Run(*locked, with("mink.bench.t"));
  for (int r = 0; r < f.runs; ++r) {
    Answer a = Run(*engine, with("mink.bench.t"));
    if (a.seconds < open_q1.seconds || r == 0) open_q1 = std::move(a);
    Answer b = Run(*locked, with("mink.bench.t"));
    if (b.seconds < locked_q1.seconds || r == 0) locked_q1 = std::move(b);
  }
  engine->scans().TakeWhenEnded();
  locked->scans().TakeWhenEnded();
  if (locked_q1.rows != open_q1.rows) {
    std::fprintf(stderr, "query_bench: the locked-down engine answers differently\n");
    return 1;
  }
  const double lockdown_ratio = locked_q1.seconds / open_q1.seconds;
  locked.reset();
  if (f.explain) {
    const std::string sources[] = {"mink.bench.t", "read_parquet('" + parquet + "')"};
    for (const std::string& source : sources) {
      auto session = Check(engine->Connect(), "connect");
      auto result = Check(session->Execute("EXPLAIN ANALYZE " + with(source)), "explain");
      while (true) {
        auto batch = Check(result->Next(), "explain");
        if (batch == nullptr) break;
        for (int64_t i = 0; i < batch->num_rows(); ++i) {
          const auto& text = batch->Column(1);
          const int32_t* offsets = text->buffers[1]->data_as<int32_t>();
          std::fprintf(stderr, "%.*s\n", static_cast<int>(offsets[i + 1] - offsets[i]),
                       text->buffers[2]->data_as<char>() + offsets[i]);
        }
      }
    }
    engine->scans().TakeWhenEnded();
  }
  if (f.hold_seconds > 0) {
    std::fprintf(stderr, "query_bench: running Q1 on mink for %d s (pid %d)\n", f.hold_seconds,
                 static_cast<int>(getpid()));
    auto until = BenchClock::now() + std::chrono::seconds(f.hold_seconds);
    while (BenchClock::now() < until) Run(*engine, with("mink.bench.t"));
    engine->scans().TakeWhenEnded();
  }
  int64_t full_bytes = scans.empty() ? 0 : scans.back().bytes;
  int64_t full_rows = scans.empty() ? 0 : scans.back().rows;

  // Partition pruning: one partition's bytes.
  // The same columns (p for the filter, and v) from every partition, then from one.
  Answer all_v = Run(*engine, "SELECT sum(v) FROM mink.bench.t WHERE p >= 'p'");
  auto full_v = engine->scans().TakeWhenEnded();
  Answer one_v = Run(*engine, "SELECT sum(v) FROM mink.bench.t WHERE p = 'p3'");
  auto one = engine->scans().TakeWhenEnded();
  Answer duck_one = Run(*engine, "SELECT sum(v) FROM read_parquet('" + parquet + "') WHERE p = 'p3'");
  if (one_v.rows != duck_one.rows) {
    std::fprintf(stderr, "query_bench: the pruned answers differ\n");
    return 1;
  }

  double ratio = mink_q1.seconds / duck_q1.seconds;
  std::printf("query_bench: %lld %s rows, %d partitions x %d buckets, DuckDB threads %d, "
              "best of %d, node block cache %lld MB\n",
              static_cast<long long>(f.rows), f.scattered ? "scattered" : "periodic", f.partitions, f.buckets, f.threads, f.runs,
              static_cast<long long>(f.block_cache_mb));
  std::printf("  load: mink write %.2f s; parquet write %.2f s (%.1f MB)\n", write_seconds,
              parquet_write_seconds, static_cast<double>(parquet_bytes) / 1e6);
  std::printf("  Q1 %s\n", with("<t>").c_str());
  std::printf("    mink     %8.3f s  (%.1f M rows/s; scan received %lld rows, %.1f MB)\n",
              mink_q1.seconds, static_cast<double>(f.rows) / mink_q1.seconds / 1e6,
              static_cast<long long>(full_rows), static_cast<double>(full_bytes) / 1e6);
  std::printf("    parquet  %8.3f s  (%.1f M rows/s)\n", duck_q1.seconds,
              static_cast<double>(f.rows) / duck_q1.seconds / 1e6);
  std::printf("    ratio    %8.2fx  (target <= 1.50x: %s)\n", ratio, ratio <= 1.5 ? "met" : "MISSED");
  std::printf("    mink without column statistics %8.3f s  (%.2fx)\n", plain_q1.seconds,
              plain_q1.seconds / duck_q1.seconds);
  std::printf("    mink with uncompressed batches %8.3f s  (%.2fx)\n", raw_q1.seconds,
              raw_q1.seconds / duck_q1.seconds);
  std::printf("    mink locked down (60 s limit) %8.3f s vs %.3f s: %.3fx (target <= 1.02x: %s)\n",
              locked_q1.seconds, open_q1.seconds, lockdown_ratio, lockdown_ratio <= 1.02 ? "met" : "MISSED");
  if (!full_v.empty() && !one.empty()) {
    std::printf("  Q2 SELECT sum(v) ... WHERE p = 'p3': %lld of %lld buckets, %.2f MB of %.2f MB "
                "(%.1f%%; one partition of %d is %.1f%%), %.3f s vs %.3f s unpruned\n",
                static_cast<long long>(one[0].buckets_read),
                static_cast<long long>(one[0].buckets_total),
                static_cast<double>(one[0].bytes) / 1e6, static_cast<double>(full_v[0].bytes) / 1e6,
                100.0 * static_cast<double>(one[0].bytes) / static_cast<double>(full_v[0].bytes),
                f.partitions, 100.0 / f.partitions, one_v.seconds, all_v.seconds);
  }
  std::printf("{\"rows\":%lld,\"mink_q1_s\":%.4f,\"parquet_q1_s\":%.4f,\"ratio\":%.3f,"
              "\"mink_q1_no_stats_s\":%.4f,\"mink_q1_uncompressed_s\":%.4f,"
              "\"pruned_bytes\":%lld,\"full_bytes\":%lld,\"lockdown_ratio\":%.4f}\n",
              static_cast<long long>(f.rows), mink_q1.seconds, duck_q1.seconds, ratio,
              plain_q1.seconds, raw_q1.seconds,
              static_cast<long long>(one.empty() ? 0 : one[0].bytes),
              static_cast<long long>(full_v.empty() ? 0 : full_v[0].bytes), lockdown_ratio);
  engine.reset();
  node->Stop();
  return 0;
}
