// schema_read_bench: the cost of reading data written under several schemas (issue 21). It
// starts a node in this process (SQLite, file:// store), writes the same --rows rows to two log
// tables of the same final schema:
//   - bench.single, written under that schema alone;
//   - bench.evolved, a third of the rows under each of three schemas: schema 0 (id, n INT,
//     note, pad), schema 1 adds `a DOUBLE` after id and renames note to s, schema 2 widens n to
//     BIGINT;
// then reads both whole over Flight DoGet, alternately, --runs times each, two ways: batches as
// stored (the ticket's "compressed": the node sends stored buffers without decoding them when
// it can) and decoded by the node. The figure is the time of the evolved table over the single
// one's, per way (target <= 1.2). Every read is checked to return --rows rows.

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>

#include "arrow_format/builder.h"
#include "arrow_format/ipc.h"
#include "arrow_format/record_batch_builder.h"
#include "base/log.h"
#include "bench_util.h"
#include "flight/client/flight_client.h"
#include "bench_node.h"

namespace mink::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  int64_t rows = 1'000'000;
  int runs = 5;
  bool json = false;
};

constexpr int64_t kBatchRows = 10'000;

// Rows [from, to) as a batch of `columns` (names in order; "a" is null below `a_from`).
arrow::RecordBatchPtr Rows(const arrow::SchemaPtr& schema, int64_t from, int64_t to,
                           int64_t a_from) {
  auto builder = *arrow::RecordBatchBuilder::Make(schema);
  for (int c = 0; c < schema->num_fields(); ++c) {
    const std::string& name = schema->field(c).name();
    for (int64_t i = from; i < to; ++i) {
      if (name == "id") {
        builder->GetFieldAs<arrow::Int64Builder>(c)->Append(i);
      } else if (name == "a") {
        if (i < a_from) builder->GetFieldAs<arrow::DoubleBuilder>(c)->AppendNull();
        else builder->GetFieldAs<arrow::DoubleBuilder>(c)->Append(double(i) / 4);
      } else if (name == "n") {
        if (schema->field(c).type()->id() == arrow::TypeId::kInt32) {
          builder->GetFieldAs<arrow::Int32Builder>(c)->Append(static_cast<int32_t>(i % 100000));
        } else {
          builder->GetFieldAs<arrow::Int64Builder>(c)->Append(i % 100000);
        }
      } else if (name == "pad") {
        (void)builder->GetFieldAs<arrow::StringBuilder>(c)->Append(fmt::format("{:024d}", i * 7));
      } else {  // note / s
        (void)builder->GetFieldAs<arrow::StringBuilder>(c)->Append(fmt::format("row {}", i));
      }
    }
  }
  return *builder->Flush();
}

int Run(const Flags& f) {
  log::SetLevel(log::Level::kWarn);
  InstallStopSignals();
  auto fail = [](const std::string& what, const Status& s) {
    fmt::print(stderr, "schema_read_bench: {}: {}\n", what, s.ToString());
    return 1;
  };
  auto started = BenchNode::Start("schema-bench");
  if (!started.ok()) return fail("start node", started.status());
  BenchNode& bench_node = **started;
  table::TableStore* tables = bench_node.tables();
  (void)tables->CreateDatabase("bench");

  table::TableSpec single;
  single.columns = {"id BIGINT NOT NULL", "a DOUBLE", "n BIGINT", "s STRING", "pad STRING"};
  single.bucket_count = 1;
  table::TableSpec evolved;
  evolved.columns = {"id BIGINT NOT NULL", "n INT", "note STRING", "pad STRING"};
  evolved.bucket_count = 1;
  if (auto t = tables->CreateTable("bench.single", single); !t.ok()) return fail("create", t.status());
  if (auto t = tables->CreateTable("bench.evolved", evolved); !t.ok()) return fail("create", t.status());
  const int64_t third = f.rows / 3;
  auto write = [&](const std::string& table, int64_t from, int64_t to) -> Status {
    MINK_ASSIGN_OR_RETURN(auto schema, tables->TableSchema(table));
    for (int64_t at = from; at < to; at += kBatchRows) {
      auto batch = Rows(schema, at, std::min(to, at + kBatchRows), third);
      MINK_RETURN_IF_ERROR(tables->Write({table}, {batch}).status());
    }
    return Status::Ok();
  };
  if (Status s = write("bench.single", 0, f.rows); !s.ok()) return fail("write", s);
  if (Status s = write("bench.evolved", 0, third); !s.ok()) return fail("write", s);
  table::TableAlteration first;
  first.add_columns = {{"a DOUBLE", "id"}};
  first.rename_columns = {{"note", "s"}};
  if (auto a = tables->AlterTable("bench.evolved", first); !a.ok()) return fail("alter", a.status());
  if (Status s = write("bench.evolved", third, 2 * third); !s.ok()) return fail("write", s);
  table::TableAlteration second;
  second.modify_columns = {"n BIGINT"};
  if (auto a = tables->AlterTable("bench.evolved", second); !a.ok()) return fail("alter", a.status());
  if (Status s = write("bench.evolved", 2 * third, f.rows); !s.ok()) return fail("write", s);

  auto client = flight::FlightClient::Connect(bench_node.address());
  if (!client.ok()) return fail("connect", client.status());
  // One whole read: (seconds, rows).
  auto read = [&](const std::string& table, bool stored) -> Result<std::pair<double, int64_t>> {
    nlohmann::json ticket = {{"table", table}, {"compressed", stored}};
    const auto t0 = Clock::now();
    MINK_ASSIGN_OR_RETURN(auto reader, (*client)->DoGet(ticket.dump()));
    arrow::IpcDecoder decoder;
    int64_t rows = 0;
    flight::FlightData data;
    while (true) {
      MINK_ASSIGN_OR_RETURN(bool more, reader->Next(&data));
      if (!more) break;
      MINK_ASSIGN_OR_RETURN(auto decoded, decoder.Decode(data.data_header,
                                                         arrow::Buffer::FromString(std::move(data.body))));
      if (decoded.kind == arrow::IpcDecoder::Kind::kRecordBatch) rows += decoded.batch->num_rows();
    }
    return std::make_pair(std::chrono::duration<double>(Clock::now() - t0).count(), rows);
  };
  struct Way {
    const char* name;
    bool stored;
    std::vector<double> single, evolved;
  };
  std::vector<Way> ways = {{"batches as stored", true, {}, {}}, {"decoded by the node", false, {}, {}}};
  for (int run = 0; run < f.runs && !g_interrupted; ++run) {
    for (auto& way : ways) {
      for (const char* table : {"bench.single", "bench.evolved"}) {
        auto r = read(table, way.stored);
        if (!r.ok()) return fail(std::string("read ") + table, r.status());
        if (r->second != f.rows) {
          return fail(table, InternalError(fmt::format("read {} rows, not {}", r->second, f.rows)));
        }
        (std::string(table) == "bench.single" ? way.single : way.evolved).push_back(r->first);
      }
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  nlohmann::json out = {{"rows", f.rows}, {"runs", f.runs}};
  if (!f.json) {
    fmt::print("schema_read_bench: {} rows per table, 3 schemas against 1, {} runs (medians)\n",
               f.rows, f.runs);
  }
  for (const auto& way : ways) {
    const double s = median(way.single), e = median(way.evolved);
    out["ways"].push_back({{"way", way.name}, {"single_s", s}, {"evolved_s", e}, {"ratio", e / s}});
    if (!f.json) {
      fmt::print("  {:<22} one schema {:.3f} s ({:.2f} M rows/s), three {:.3f} s: {:.2f}x "
                 "(target <= 1.2)\n",
                 way.name, s, double(f.rows) / s / 1e6, e, e / s);
    }
  }
  if (f.json) fmt::print("{}\n", out.dump());
  return 0;
}

}  // namespace
}  // namespace mink::bench

int main(int argc, char** argv) {
  mink::bench::Flags f;
  CLI::App app{"schema_read_bench: a log of three schemas read against one of one (bench/README.md)"};
  app.add_option("--rows", f.rows, "Rows per table")->check(CLI::Range(int64_t{3000}, int64_t{20'000'000}));
  app.add_option("--runs", f.runs, "Reads of each table each way")->check(CLI::Range(1, 50));
  app.add_flag("--json", f.json, "One JSON object instead of text");
  CLI11_PARSE(app, argc, argv);
  return mink::bench::Run(f);
}
