// mink read <db.table> [--mode log|snapshot|union] [--meta] [--partition P] [--bucket N] [-n N]
//           [-f] [--from earliest|latest|<offset>] [--columns a,b] [--format json|table]
//
// One DoGet with a JSON ticket (docs/flight-api.md). Output: JSON lines, or an aligned table on
// a terminal. A follow read (-f) runs until Ctrl-C, which ends it cleanly (exit 0).

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "arrow_format/ipc.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/rows_output.h"
#include "arrow_json/arrow_to_json.h"

namespace mink::cli {
namespace {

using nlohmann::json;

constexpr const char* kCommand = "read";

struct ReadOptions {
  ClientOptions client;
  std::string table;
  std::string mode = "log";
  bool meta = false;
  std::string partition;
  std::optional<int> bucket;
  std::optional<int64_t> limit;
  bool follow = false;
  std::string from = "earliest";
  std::string columns;
  std::string format;
};

// Takes SIGINT on a thread of its own (the signal is blocked everywhere else, so that gRPC's
// threads never see it) and cancels the read.
class InterruptWatcher {
 public:
  InterruptWatcher() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
    thread_ = std::thread([this] { Watch(); });
  }
  ~InterruptWatcher() {
    stop_ = true;
    thread_.join();
  }
  void SetReader(flight::FlightStreamReader* reader) {
    std::lock_guard<std::mutex> lock(mutex_);
    reader_ = reader;
    if (interrupted_ && reader_ != nullptr) reader_->Cancel();
  }
  bool interrupted() const { return interrupted_; }

 private:
  void Watch() {
    timespec timeout{0, 100'000'000};
    while (!stop_) {
      if (sigtimedwait(&signals_, nullptr, &timeout) == SIGINT) {
        std::lock_guard<std::mutex> lock(mutex_);
        interrupted_ = true;
        if (reader_ != nullptr) reader_->Cancel();
      }
    }
  }

  sigset_t signals_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> interrupted_{false};
  std::mutex mutex_;
  flight::FlightStreamReader* reader_ = nullptr;
  std::thread thread_;
};

Result<std::string> MakeTicket(const ReadOptions& o) {
  json ticket = {{"table", o.table}, {"mode", o.mode}, {"follow", o.follow}, {"meta", o.meta}};
  if (o.from == "earliest" || o.from == "latest") {
    ticket["from"] = o.from;
  } else {
    bool digits = !o.from.empty() && o.from.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || o.from.size() > 18) {
      return InvalidArgumentError("--from must be earliest, latest or an offset, not '" + o.from +
                                  "'");
    }
    ticket["from"] = std::stoll(o.from);
  }
  if (o.limit) {
    if (*o.limit < 0) return InvalidArgumentError("-n must not be negative");
    ticket["limit"] = *o.limit;
  }
  if (!o.partition.empty()) ticket["partition"] = o.partition;
  if (o.bucket) ticket["bucket"] = *o.bucket;
  std::vector<std::string> columns = SplitList(o.columns);
  if (!columns.empty()) ticket["columns"] = columns;
  return client::DumpJson(ticket);
}

int Run(const ReadOptions& o) {
  if (Status s = CheckTableName(o.table); !s.ok()) return ReportError(kCommand, s);
  auto ticket = MakeTicket(o);
  if (!ticket.ok()) return ReportError(kCommand, ticket.status());
  if (o.limit && *o.limit == 0) return kExitOk;

  InterruptWatcher watcher;  // before the client starts its threads
  auto client = ConnectToNode(o.client);
  if (!client.ok()) return ReportError(kCommand, client.status());
  auto reader = (*client)->DoGet(*ticket);
  if (!reader.ok()) return ReportError(kCommand, reader.status());
  watcher.SetReader(reader->get());
  const int interrupted_code = o.follow ? kExitOk : 130;

  arrow::IpcDecoder decoder;
  RowsOutput output(o.format);
  while (true) {
    flight::FlightData data;
    auto more = (*reader)->Next(&data);
    if (!more.ok()) {
      watcher.SetReader(nullptr);
      if (watcher.interrupted()) break;
      return ReportError(kCommand, more.status());
    }
    if (!*more) break;
    if (data.data_header.empty()) continue;
    auto decoded =
        decoder.Decode(data.data_header, arrow::Buffer::FromString(std::move(data.body)));
    if (!decoded.ok()) {
      return ReportError(kCommand, decoded.status().WithContext("bad data from the node"));
    }
    if (decoded->kind == arrow::IpcDecoder::Kind::kSchema) output.Begin(*decoder.schema());
    if (decoded->kind != arrow::IpcDecoder::Kind::kRecordBatch) continue;
    auto printed = output.Add(*decoded->batch, o.follow);
    if (!printed.ok()) return ReportError(kCommand, printed.status());
    if (!*printed) {  // the reader of our output is gone: stop quietly
      (*reader)->Cancel();
      return kExitOk;
    }
  }
  output.Finish();
  return watcher.interrupted() ? interrupted_code : kExitOk;
}

}  // namespace

void AddReadCommand(CLI::App* app, int* exit_code) {
  auto o = std::make_shared<ReadOptions>();
  CLI::App* read = app->add_subcommand(
      "read",
      "Read a table: its log (changelog), its snapshot, or lake + log; JSON lines when "
      "piped, an aligned table on a terminal");
  read->add_option("table", o->table, "The table, as database.table")->required();
  read->add_option("--mode", o->mode,
                   "log (default): the bucket logs, for a primary-key table its changelog; "
                   "snapshot: the current rows of a primary-key table; union: the lake snapshot "
                   "plus the log tail of a tiered table")
      ->check(CLI::IsMember({"log", "snapshot", "union"}));
  read->add_flag("--meta", o->meta,
                 "Add the columns __bucket, __offset and __change (+A, +I, -U, +U, -D)");
  read->add_option("--partition", o->partition, "Only this partition (by value, e.g. us)");
  read->add_option("--bucket", o->bucket, "Only this bucket number");
  read->add_option("-n,--limit", o->limit, "Stop after N rows");
  read->add_flag("-f,--follow", o->follow,
                 "Keep reading new rows as they are committed, until Ctrl-C (exit status 0)");
  read->add_option("--from", o->from,
                   "Where each bucket's log read starts: earliest (default), latest or an offset");
  read->add_option("--columns", o->columns, "Only these columns, comma-separated");
  read->add_option("--format", o->format,
                   "json (JSON lines) or table (aligned); default: table on a terminal, json "
                   "when piped")
      ->check(CLI::IsMember({"json", "table"}));
  AddBootstrapOption(read, &o->client);
  read->callback([o, exit_code] { *exit_code = Run(*o); });
}

}  // namespace mink::cli
