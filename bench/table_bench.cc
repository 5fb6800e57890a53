// table_bench: the tables issue's figures through the Flight API (issue 3). It starts a node in
// this process (SQLite metadata, file:// store, Flight on a free loopback port) or uses a running
// one (--address), and measures:
//   (a) a 10-column log table: DoPut of --rows rows (rows/s, MB/s of Arrow IPC sent), then DoGet
//       scans of all 10 columns and of 1 column, interleaved, --scans times each (rows/s, MB/s of
//       Arrow IPC received) and their ratio (target: 1 column >= 5x faster than 10);
//   (b) a primary-key table: upserts of --pk-rows keys (inserts), a second pass updating every
//       key, then a snapshot read (DoGet mode snapshot) of all of them.
// Beside them, in the same run (the limits): Arrow IPC encode + decode of the same batches in
// memory, and a reference Flight server with no storage behind it (DoGet from memory, DoPut that
// only decodes), i.e. what loopback gRPC and the Flight framing allow on this machine now.
// bench/README.md describes it; docs/performance.md has the results.
//
// Bounded: every phase has a deadline (--seconds), row counts are capped, everything it creates
// is under a new directory removed at exit (or dropped from the node with --address).

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/log.h"
#include "bench_util.h"
#include "flight/client/flight_client.h"
#include "flight/server/flight_server.h"
#include "node/node.h"
#include "storage/stream_store.h"
#include "table_bench_data.h"
#include "table_bench_flags.h"
#include "table_bench_wire.h"

namespace mink::bench {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string Uptime() {
  std::string out;
  if (std::FILE* p = ::popen("uptime 2>/dev/null", "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.empty() ? "(uptime unavailable)" : out;
}

double LoadAverage() {
  double l = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1) l = 0;
    std::fclose(f);
  }
  return l;
}

// Growth of the wait of the threads alive at both samples, and all of a new thread's.
double RunDelaySeconds(const std::map<int, uint64_t>& before) {
  uint64_t total = 0;
  for (const auto& [tid, wait] : RunDelays()) {
    auto it = before.find(tid);
    uint64_t base = it == before.end() ? 0 : it->second;
    if (wait > base) total += wait - base;
  }
  return static_cast<double>(total) / 1e9;
}

double CpuSeconds() {
  struct rusage ru;
  ::getrusage(RUSAGE_SELF, &ru);
  auto sec = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return sec(ru.ru_utime) + sec(ru.ru_stime);
}

// Wall time, CPU time and CPU wait of one measured step.
struct Meter {
  Clock::time_point start = Clock::now();
  double cpu0 = CpuSeconds();
  std::map<int, uint64_t> delay0 = RunDelays();
  double seconds = 0, cpu = 0, delay = 0, load = 0;
  void Stop() {
    seconds = Since(start);
    cpu = CpuSeconds() - cpu0;
    delay = RunDelaySeconds(delay0);
    load = LoadAverage();
  }
  std::string Note() const {
    return fmt::format("cpu {:.2f} s ({:.2f} cores), waited for a cpu {:.2f} s, load {:.2f}", cpu,
                       seconds > 0 ? cpu / seconds : 0.0, delay, load);
  }
};

// One measured figure: rows and Arrow IPC bytes in `seconds`.
struct Figure {
  int64_t rows = 0;
  double bytes = 0;
  double seconds = 0;
  double rows_s() const { return seconds > 0 ? static_cast<double>(rows) / seconds : 0; }
  double mb_s() const { return seconds > 0 ? bytes / 1e6 / seconds : 0; }
  json ToJson() const {
    return {{"rows", rows},
            {"bytes", bytes},
            {"seconds", seconds},
            {"rows_s", rows_s()},
            {"mb_s", mb_s()}};
  }
};

// What the in-process node's storage did during one step (all zero with --address).
struct StorageDelta {
  storage::ReadStats before;
  node::Node* node = nullptr;
  explicit StorageDelta(node::Node* n) : node(n) {
    if (node) before = node->storage()->read_stats();
  }
  std::string Note() const {
    if (!node) return "";
    storage::ReadStats now = node->storage()->read_stats();
    return fmt::format("; storage: {} ranged GETs, {:.1f} MB, {} block-cache hits, {} tail hits",
                       now.object_reads - before.object_reads,
                       static_cast<double>(now.object_bytes - before.object_bytes) / 1e6,
                       now.cache_hits - before.cache_hits, now.tail_hits - before.tail_hits);
  }
};

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Median over repeats (by rows/s), as one Figure.
Figure MedianOf(const std::vector<Figure>& runs) {
  if (runs.empty()) return {};
  std::vector<Figure> sorted = runs;
  std::sort(sorted.begin(), sorted.end(),
            [](const Figure& a, const Figure& b) { return a.rows_s() < b.rows_s(); });
  return sorted[sorted.size() / 2];
}

class Bench {
 public:
  Bench(const Flags& flags, flight::FlightClient* client) : flags_(flags), client_(client) {}

  Clock::time_point Deadline() const { return Clock::now() + std::chrono::seconds(flags_.seconds); }
  flight::CallOptions Call(Clock::time_point deadline) const {
    flight::CallOptions o;
    o.timeout = std::max<std::chrono::milliseconds>(
        std::chrono::milliseconds(1),
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    return o;
  }

  Result<json> Action(const std::string& type, const json& body) {
    MINK_ASSIGN_OR_RETURN(auto results, client_->DoAction(flight::Action{type, body.dump()}));
    if (results.empty()) return json::object();
    return json::parse(results.front().body, nullptr, false);
  }

  // One DoPut of `batches` (the client encodes them, as `mink write` does). Adds the bytes sent.
  Status Put(const std::string& table, const arrow::SchemaPtr& schema,
             const std::vector<arrow::RecordBatchPtr>& batches, Clock::time_point deadline,
             double* bytes, double* encode_seconds) {
    MINK_ASSIGN_OR_RETURN(auto put, client_->DoPut(Call(deadline)));
    flight::FlightData first;
    first.descriptor = flight::FlightDescriptor::Command(json{{"table", table}}.dump());
    first.data_header = arrow::EncodeSchemaMessage(*schema).metadata;
    Status s = put->Write(std::move(first));
    for (size_t i = 0; s.ok() && i < batches.size(); ++i) {
      auto t = Clock::now();
      MINK_ASSIGN_OR_RETURN(auto m, arrow::EncodeRecordBatchMessage(*batches[i]));
      *encode_seconds += Since(t);
      *bytes += static_cast<double>(m.metadata.size() + m.body.size());
      s = put->Write(
          flight::FlightData{std::nullopt, std::move(m.metadata), std::move(m.body), ""});
    }
    if (s.ok()) s = put->DoneWriting();
    flight::PutResult result;
    while (s.ok()) {
      auto more = put->ReadResult(&result);
      if (!more.ok() || !*more) break;
    }
    Status finished = put->Finish();
    return s.ok() ? finished : (finished.ok() ? s : finished);
  }

  // Loads rows [0, rows) made by `make` in DoPuts of --put-rows rows, batches of --batch-rows.
  template <typename MakeRows>
  Result<Figure> Load(const std::string& table, const arrow::SchemaPtr& schema, int64_t rows,
                      MakeRows make, std::vector<double>* put_ms, double* encode_seconds) {
    // The rows are generated before the clock starts.
    std::vector<std::vector<arrow::RecordBatchPtr>> puts;
    for (int64_t at = 0; at < rows; at += flags_.put_rows) {
      std::vector<arrow::RecordBatchPtr> batches;
      const int64_t end = std::min(rows, at + flags_.put_rows);
      for (int64_t b = at; b < end; b += flags_.batch_rows) {
        MINK_ASSIGN_OR_RETURN(auto batch, make(b, std::min(end - b, flags_.batch_rows)));
        batches.push_back(std::move(batch));
      }
      puts.push_back(std::move(batches));
    }
    const auto deadline = Deadline();
    Figure f;
    const auto start = Clock::now();
    int64_t at = 0;
    for (const auto& batches : puts) {
      if (g_interrupted.load() || Clock::now() >= deadline) {
        return DeadlineExceededError(fmt::format("load stopped after {} rows", at));
      }
      const auto t = Clock::now();
      MINK_RETURN_IF_ERROR(Put(table, schema, batches, deadline, &f.bytes, encode_seconds));
      put_ms->push_back(Since(t) * 1000);
      for (const auto& b : batches) at += b->num_rows();
    }
    f.seconds = Since(start);
    f.rows = at;
    return f;
  }

  // One DoGet, every message read and decoded.
  Result<Figure> Scan(const std::string& ticket, Clock::time_point deadline) {
    Figure f;
    const auto start = Clock::now();
    MINK_ASSIGN_OR_RETURN(auto reader, client_->DoGet(ticket, Call(deadline)));
    arrow::IpcDecoder decoder;
    flight::FlightData data;
    while (true) {
      if (g_interrupted.load()) return CancelledError("interrupted");
      MINK_ASSIGN_OR_RETURN(bool more, reader->Next(&data));
      if (!more) break;
      f.bytes += static_cast<double>(data.data_header.size() + data.body.size());
      MINK_ASSIGN_OR_RETURN(
          auto decoded,
          decoder.Decode(data.data_header, arrow::Buffer::FromString(std::move(data.body))));
      if (decoded.kind == arrow::IpcDecoder::Kind::kRecordBatch)
        f.rows += decoded.batch->num_rows();
    }
    f.seconds = Since(start);
    return f;
  }

 private:
  const Flags& flags_;
  flight::FlightClient* client_;
};

std::string Ticket(const std::string& table, const std::vector<std::string>& columns,
                   const char* mode = "log") {
  json t = {{"table", table}, {"mode", mode}};
  if (!columns.empty()) t["columns"] = columns;
  return t.dump();
}

void PrintFigure(const char* what, const Figure& f, const std::string& extra = "") {
  fmt::print("  {:<40} {:>9} rows in {:7.3f} s = {:>11.0f} rows/s  {:>8.1f} MB/s{}\n", what, f.rows,
             f.seconds, f.rows_s(), f.mb_s(), extra);
}

int Fail(const std::string& what, const Status& s) {
  fmt::print(stderr, "table_bench: {}: {}\n", what, s.ToString());
  return 1;
}

#define BENCH_TRY(what, expr)            \
  do {                                   \
    Status _s = (expr);                  \
    if (!_s.ok()) return Fail(what, _s); \
  } while (0)

int Main(int argc, char** argv) {
  Flags flags;
  if (std::optional<int> exit = ParseFlags(argc, argv, &flags)) return *exit;
  if (flags.print_log_columns) {
    for (const auto& c : LogTableColumns()) fmt::print("{}\n", c);
    return 0;
  }
  if (flags.emit_json >= 0) {  // the log table's rows as JSON lines, for `mink write`
    std::string chunk;
    for (int64_t at = 0; at < flags.emit_json && !g_interrupted.load(); at += 10'000) {
      chunk.clear();
      LogRowsJson(at, std::min<int64_t>(10'000, flags.emit_json - at), &chunk);
      std::fwrite(chunk.data(), 1, chunk.size(), stdout);
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
  }
  log::SetLevel(log::Level::kWarn);
  InstallStopSignals();
  fmt::print("table_bench: {} cores; uptime: {}\n", std::thread::hardware_concurrency(), Uptime());

  // The node: in this process, or --address.
  std::string dir;
  std::unique_ptr<node::Node> node;
  std::string address = flags.address;
  std::string suffix;
  if (address.empty()) {
    std::string parent = flags.dir;
    if (parent.empty()) parent = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp";
    std::string templ = parent + "/mink-table-bench-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) {
      return Fail("mkdtemp under " + parent, UnavailableError(std::strerror(errno)));
    }
    dir = templ;
    config::ServeConfig config;
    config.listen = "127.0.0.1:0";
    config.meta_url = "sqlite:" + dir + "/meta.db";
    config.storage_uri = "-2@file://" + dir + "/objects";
    if (flags.block_cache_mb >= 0) config.block_cache_bytes = uint64_t(flags.block_cache_mb) << 20;
    auto started = node::Node::Start(config);
    if (!started.ok()) return Fail("start node", started.status());
    node = std::move(*started);
    address = "127.0.0.1:" + std::to_string(node->flight_port());
    fmt::print(
        "  node in this process on {}, directory {} (sqlite + file:// store, block cache {} MiB)\n",
        address, dir, config.block_cache_bytes >> 20);
  } else {
    suffix = fmt::format("_{}_{}", ::getpid(), std::time(nullptr) % 100000);
    fmt::print("  node at {} (figures: CPU is this client's only)\n", address);
  }
  struct Cleanup {
    std::string dir;
    bool keep;
    std::unique_ptr<node::Node>* node;
    ~Cleanup() {
      if (*node) (*node)->Stop();
      node->reset();
      std::error_code ec;
      if (!dir.empty() && !keep) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{dir, flags.keep, &node};

  flight::FlightClientOptions client_options;
  client_options.default_timeout = std::chrono::milliseconds(60'000);
  auto client = flight::FlightClient::Connect(address, client_options);
  if (!client.ok()) return Fail("connect", client.status());
  Bench bench(flags, client->get());
  const std::vector<std::string> one_column = {flags.scan_column};
  json out = {{"bench", "table"},
              {"rows", flags.rows},
              {"pk_rows", flags.pk_rows},
              {"put_rows", flags.put_rows},
              {"batch_rows", flags.batch_rows},
              {"scans", flags.scans},
              {"scan_column", flags.scan_column},
              {"in_process", flags.address.empty()},
              {"uptime_start", Uptime()}};
  fmt::print(
      "  log table: 10 columns ({}); {} rows; DoPut of {} rows in batches of {}; MB = 10^6 B of "
      "Arrow IPC messages (metadata + body)\n",
      fmt::join(LogTableColumns(), ", "), flags.rows, flags.put_rows, flags.batch_rows);

  // ---- Limits: Arrow IPC in memory and a Flight server with no storage.
  Figure wire_all, wire_one, wire_put, wire_kv;
  if (flags.Has("limits") && flags.rows > 0) {
    fmt::print("\nlimits (same data, same run)   uptime: {}\n", Uptime());
    std::vector<arrow::RecordBatchPtr> stored, stored_one;  // as the node stores them
    for (int64_t at = 0; at < flags.rows; at += flags.put_rows) {
      auto b = LogRows(at, std::min(flags.put_rows, flags.rows - at));
      if (!b.ok()) return Fail("generate", b.status());
      int col = (*b)->schema()->GetFieldIndex(flags.scan_column);
      if (col < 0) return Fail("--scan-column", NotFoundError(flags.scan_column));
      stored_one.push_back(*(*b)->SelectColumns({col}));
      stored.push_back(std::move(*b));
    }
    for (auto codec : {arrow::CompressionCodec::kNone, arrow::CompressionCodec::kLz4Frame}) {
      auto ipc = MeasureIpc(stored, codec, 3);
      if (!ipc.ok()) return Fail("ipc", ipc.status());
      const double mb = ipc->bytes / 1e6;
      fmt::print(
          "  Arrow IPC in memory, {:<4}  {:7.1f} MB: encode {:7.1f} MB/s {:>11.0f} rows/s; decode "
          "+ validate {:7.1f} MB/s {:>11.0f} rows/s\n",
          codec == arrow::CompressionCodec::kNone ? "raw" : "lz4", mb, mb / ipc->encode_seconds,
          flags.rows / ipc->encode_seconds, mb / ipc->decode_seconds,
          flags.rows / ipc->decode_seconds);
      out["ipc_" + std::string(codec == arrow::CompressionCodec::kNone ? "raw" : "lz4")] = {
          {"mb", mb},
          {"encode_mb_s", mb / ipc->encode_seconds},
          {"decode_mb_s", mb / ipc->decode_seconds}};
    }
    ReferenceFlight reference;
    auto encode_all = [](const std::vector<arrow::RecordBatchPtr>& batches) {
      std::vector<arrow::IpcMessage> messages;
      for (const auto& b : batches) messages.push_back(*arrow::EncodeRecordBatchMessage(*b));
      return messages;
    };
    reference.AddStream("all", *stored.front()->schema(), encode_all(stored));
    reference.AddStream("one", *stored_one.front()->schema(), encode_all(stored_one));
    if (flags.Has("pk") && flags.pk_rows > 0) {  // the snapshot read's rows, in key order
      std::vector<arrow::RecordBatchPtr> keyed;
      for (int64_t at = 0; at < flags.pk_rows; at += 8192) {
        auto b = KeyedRows(at, std::min<int64_t>(8192, flags.pk_rows - at), flags.pk_rows, 1);
        if (!b.ok()) return Fail("generate", b.status());
        keyed.push_back(std::move(*b));
      }
      reference.AddStream("kv", *KeyedTableSchema(), encode_all(keyed));
    }
    auto server = flight::FlightServer::Start("127.0.0.1:0", &reference);
    if (!server.ok()) return Fail("reference server", server.status());
    auto ref_client = flight::FlightClient::Connect((*server)->address(), client_options);
    if (!ref_client.ok()) return Fail("reference client", ref_client.status());
    Bench ref(flags, ref_client->get());
    (void)ref.Scan("one", bench.Deadline());  // connects
    std::vector<Figure> all, one;
    for (int i = 0; i < std::max(1, flags.scans) && !g_interrupted.load(); ++i) {
      auto a = ref.Scan("all", bench.Deadline());
      auto o = ref.Scan("one", bench.Deadline());
      if (!a.ok() || !o.ok()) return Fail("reference scan", a.ok() ? o.status() : a.status());
      all.push_back(*a);
      one.push_back(*o);
    }
    wire_all = MedianOf(all);
    wire_one = MedianOf(one);
    PrintFigure("Flight DoGet from memory, 10 columns", wire_all);
    PrintFigure(("Flight DoGet from memory, " + flags.scan_column).c_str(), wire_one);
    if (flags.Has("pk") && flags.pk_rows > 0) {
      std::vector<Figure> kv;
      for (int i = 0; i < std::max(1, flags.scans) && !g_interrupted.load(); ++i) {
        auto k = ref.Scan("kv", bench.Deadline());
        if (!k.ok()) return Fail("reference scan", k.status());
        kv.push_back(*k);
      }
      wire_kv = MedianOf(kv);
      PrintFigure("Flight DoGet from memory, keyed table", wire_kv);
    }
    std::vector<double> put_ms;
    double encode_s = 0;
    Meter m;
    auto put = ref.Load("reference", LogTableSchema(), flags.rows, LogRows, &put_ms, &encode_s);
    m.Stop();
    if (!put.ok()) return Fail("reference put", put.status());
    wire_put = *put;
    PrintFigure("Flight DoPut, decode + validate only", wire_put, "  " + m.Note());
    out["wire"] = {{"doget_all", wire_all.ToJson()},
                   {"doget_one", wire_one.ToJson()},
                   {"doget_kv", wire_kv.ToJson()},
                   {"doput", wire_put.ToJson()}};
    (*server)->Shutdown();
  }

  // ---- (a) The log table.
  const std::string log_table = "bench.logs" + suffix;
  const std::string kv_table = "bench.kv" + suffix;
  {
    auto created = bench.Action("create-database", json{{"name", "bench"}});
    if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) {
      return Fail("create-database", created.status());
    }
  }
  Figure load, scan_all, scan_one;
  std::vector<double> ratios;  // 1 column / 10 columns, per pair of interleaved scans
  // CPU seconds of this process (node + client) per scan: less sensitive to the machine's load.
  std::vector<double> cpu_all, cpu_one;
  if (flags.Has("log") && flags.rows > 0) {
    fmt::print("\n(a) log table {}   uptime: {}\n", log_table, Uptime());
    BENCH_TRY("create-table", bench
                                  .Action("create-table", json{{"table", log_table},
                                                               {"columns", LogTableColumns()},
                                                               {"bucket_count", flags.buckets}})
                                  .status());
    std::vector<double> put_ms;
    double encode_s = 0;
    Meter m;
    auto loaded = bench.Load(log_table, LogTableSchema(), flags.rows, LogRows, &put_ms, &encode_s);
    m.Stop();
    if (!loaded.ok()) return Fail("load", loaded.status());
    load = *loaded;
    std::sort(put_ms.begin(), put_ms.end());
    PrintFigure("DoPut (write)", load, "  " + m.Note());
    fmt::print(
        "    per DoPut of {} rows: p50 {:.0f} ms, max {:.0f} ms; client IPC encode {:.2f} s\n",
        flags.put_rows, Median(put_ms), put_ms.empty() ? 0.0 : put_ms.back(), encode_s);
    out["log_put"] = load.ToJson();
    out["log_put"]["p50_ms"] = Median(put_ms);
    std::vector<Figure> all, one;
    for (int i = 0; i < flags.scans && !g_interrupted.load(); ++i) {
      for (const bool whole : {true, false}) {
        if (!flags.Scans(whole ? "all" : "one")) continue;
        Meter m;
        StorageDelta io(node.get());
        auto f = bench.Scan(Ticket(log_table, whole ? std::vector<std::string>{} : one_column),
                            bench.Deadline());
        m.Stop();
        if (!f.ok()) return Fail("scan", f.status());
        if (f->rows != flags.rows) {
          return Fail("scan",
                      DataLossError(fmt::format("read {} rows, wrote {}", f->rows, flags.rows)));
        }
        (whole ? all : one).push_back(*f);
        (whole ? cpu_all : cpu_one).push_back(m.cpu);
        PrintFigure(
            whole ? fmt::format("DoGet scan #{}, all 10 columns", i + 1).c_str()
                  : fmt::format("DoGet scan #{}, 1 column ({})", i + 1, flags.scan_column).c_str(),
            *f, "  " + m.Note() + io.Note());
      }
      if (all.size() == one.size() && !all.empty()) {
        ratios.push_back(one.back().rows_s() / all.back().rows_s());
      }
    }
    scan_all = MedianOf(all);
    scan_one = MedianOf(one);
    out["scan_all"] = scan_all.ToJson();
    out["scan_one"] = scan_one.ToJson();
    out["scan_ratio_median"] = Median(ratios);
  }

  // ---- (b) The primary-key table.
  Figure insert, update, snapshot;
  if (flags.Has("pk") && flags.pk_rows > 0) {
    fmt::print("\n(b) primary-key table {} ({} keys)   uptime: {}\n", kv_table, flags.pk_rows,
               Uptime());
    BENCH_TRY("create-table", bench
                                  .Action("create-table", json{{"table", kv_table},
                                                               {"columns", KeyedTableColumns()},
                                                               {"primary_key", {"id"}},
                                                               {"bucket_count", flags.buckets}})
                                  .status());
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<double> put_ms;
      double encode_s = 0;
      Meter m;
      auto loaded = bench.Load(
          kv_table, KeyedTableSchema(), flags.pk_rows,
          [&](int64_t first, int64_t count) {
            return KeyedRows(first, count, flags.pk_rows, pass);
          },
          &put_ms, &encode_s);
      m.Stop();
      if (!loaded.ok()) return Fail("upserts", loaded.status());
      std::sort(put_ms.begin(), put_ms.end());
      PrintFigure(pass == 0 ? "upserts, new keys (+I)" : "upserts, every key again (-U/+U)",
                  *loaded, "  " + m.Note());
      fmt::print("    per DoPut of {} rows: p50 {:.0f} ms, max {:.0f} ms\n", flags.put_rows,
                 Median(put_ms), put_ms.empty() ? 0.0 : put_ms.back());
      (pass == 0 ? insert : update) = *loaded;
    }
    Meter m;
    auto snap = bench.Scan(Ticket(kv_table, {}, "snapshot"), bench.Deadline());
    m.Stop();
    if (!snap.ok()) return Fail("snapshot read", snap.status());
    snapshot = *snap;
    PrintFigure("snapshot read (DoGet mode snapshot)", snapshot, "  " + m.Note());
    if (snapshot.rows != flags.pk_rows) {
      return Fail("snapshot read",
                  DataLossError(fmt::format("{} rows, expected {}", snapshot.rows, flags.pk_rows)));
    }
    out["pk_insert"] = insert.ToJson();
    out["pk_update"] = update.ToJson();
    out["pk_snapshot"] = snapshot.ToJson();
  }

  // ---- Summary.
  const double ratio = scan_all.rows_s() > 0 ? scan_one.rows_s() / scan_all.rows_s() : 0;
  const double wire_ratio = wire_all.rows_s() > 0 ? wire_one.rows_s() / wire_all.rows_s() : 0;
  fmt::print("\nsummary   uptime: {}\n", Uptime());
  auto line = [](const std::string& what, const std::string& value, const std::string& note) {
    fmt::print("  {:<52} {:>22}   {}\n", what, value, note);
  };
  auto rate = [](const Figure& f) { return fmt::format("{:.0f} rows/s", f.rows_s()); };
  // "; limit X = ratio" when the limit was measured in this run (--phases with limits).
  auto versus = [](const std::string& limit, double figure, double limit_value) -> std::string {
    if (limit_value <= 0) return "";
    return fmt::format("; limit {} = {:.2f}", limit, figure / limit_value);
  };
  if (load.rows > 0) {
    line("log table DoPut", rate(load),
         fmt::format("{:.1f} MB/s", load.mb_s()) +
             versus("(DoPut, decode only) " + rate(wire_put), load.rows_s(), wire_put.rows_s()));
  }
  if (scan_all.rows > 0 && scan_one.rows > 0) {
    line("DoGet scan, all 10 columns (median)", rate(scan_all),
         fmt::format("{:.1f} MB/s", scan_all.mb_s()) +
             versus(fmt::format("(DoGet from memory) {:.1f} MB/s", wire_all.mb_s()),
                    scan_all.mb_s(), wire_all.mb_s()));
    line("DoGet scan, 1 column (median)", rate(scan_one),
         fmt::format("{:.1f} MB/s", scan_one.mb_s()) +
             versus("(DoGet from memory) " + rate(wire_one), scan_one.rows_s(), wire_one.rows_s()));
    std::string spread;
    if (!ratios.empty()) {
      spread =
          fmt::format("; per pair {:.2f}..{:.2f}", *std::min_element(ratios.begin(), ratios.end()),
                      *std::max_element(ratios.begin(), ratios.end()));
    }
    if (flags.address.empty() && !cpu_one.empty() && Median(cpu_one) > 0) {
      line("ratio of CPU seconds a scan, 10 columns / 1",
           fmt::format("{:.2f}", Median(cpu_all) / Median(cpu_one)),
           fmt::format("median {:.3f} s / {:.3f} s (node + client, this process)", Median(cpu_all),
                       Median(cpu_one)));
      out["scan_cpu_all"] = Median(cpu_all);
      out["scan_cpu_one"] = Median(cpu_one);
    }
    line("ratio 1 column / 10 columns (rows/s)", fmt::format("{:.2f}", ratio),
         fmt::format("target >= 5: {}{}{}", ratio >= 5 ? "PASS" : "MISS", spread,
                     wire_ratio > 0 ? fmt::format("; the wire alone allows {:.1f}", wire_ratio)
                                    : std::string()));
  }
  if (insert.rows > 0) {
    line("primary-key upserts, new keys", fmt::format("{:.0f} upserts/s", insert.rows_s()),
         load.rows_s() > 0 ? fmt::format("{:.2f} of the log table's DoPut rows/s",
                                         insert.rows_s() / load.rows_s())
                           : std::string());
    line("primary-key upserts, existing keys", fmt::format("{:.0f} upserts/s", update.rows_s()),
         "");
    line(fmt::format("snapshot read of {} rows", snapshot.rows),
         fmt::format("{:.3f} s", snapshot.seconds),
         fmt::format("{} ({:.1f} MB/s)", rate(snapshot), snapshot.mb_s()) +
             (wire_kv.rows > 0 ? versus(fmt::format("(the same rows, DoGet from memory) {:.3f} s",
                                                    wire_kv.seconds),
                                        wire_kv.seconds, snapshot.seconds)
                               : std::string()));
  }
  fmt::print("  (measures only: the exit status does not depend on the targets)\n");
  out["ratio"] = ratio;
  out["scan_ratios"] = ratios;
  out["ratio_pass"] = ratio >= 5;
  out["wire_ratio"] = wire_ratio;
  out["uptime_end"] = Uptime();
  if (!flags.address.empty() && !flags.keep) {
    (void)bench.Action("drop-table", json{{"table", log_table}});
    (void)bench.Action("drop-table", json{{"table", kv_table}});
  }
  if (flags.json) fmt::print("{}\n", out.dump());
  return 0;
}

}  // namespace
}  // namespace mink::bench

int main(int argc, char** argv) { return mink::bench::Main(argc, argv); }
