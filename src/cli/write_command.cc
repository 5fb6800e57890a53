// mink write <db.table> [--delete] [--columns a,b] [--batch-rows N]
//
// Reads JSON lines from stdin, converts every line to the table's Arrow types and sends them
// with DoPut. Atomicity: the input is converted and checked in parts of at most kPartRows rows
// and kPartBytes bytes of input. A part is sent (one DoPut) only after every line of it was
// converted, so input up to that size is written whole or not at all; a bad line in a later part
// of a larger input leaves the earlier parts written (the error says so).
//
// Idempotence: the write takes a writer id from init-writer and numbers its DoPuts 0, 1, ...; a
// DoPut that fails as Unavailable is retried with the same (writer id, sequence), which the node
// answers with the original offsets instead of writing again.

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "arrow_format/ipc.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/json_arrow.h"
#include "cli/line_reader.h"

namespace mink::cli {
namespace {

using nlohmann::json;

constexpr const char* kCommand = "write";
constexpr int64_t kPartRows = 1'000'000;
constexpr int64_t kPartBytes = 64LL << 20;
constexpr int kPutAttempts = 5;

struct WriteOptions {
  ClientOptions client;
  std::string table;
  bool is_delete = false;
  std::string columns;
  int64_t batch_rows = 10'000;
};

// One part of the input, converted, waiting to be sent.
struct Part {
  std::vector<arrow::RecordBatchPtr> batches;
  int64_t rows = 0;
  int64_t bytes = 0;
  int64_t first_line = 0;
};

class Writer {
 public:
  Writer(const WriteOptions& options, flight::FlightClient* client,
         const JsonRowConverter* converter)
      : options_(options), client_(client), converter_(converter) {}

  // Sends one part with retries; counts the rows written.
  Status Send(const Part& part) {
    if (part.rows == 0) return Status::Ok();
    if (writer_id_ < 0) {
      MINK_ASSIGN_OR_RETURN(json answer, RunAction(*client_, "init-writer", json::object()));
      if (!answer.contains("writer_id") || !answer["writer_id"].is_number_integer()) {
        return InternalError("init-writer answered without a writer_id");
      }
      writer_id_ = answer["writer_id"].get<int64_t>();
    }
    json descriptor = {{"table", options_.table},
                       {"mode", options_.is_delete ? "delete" : "upsert"},
                       {"writer_id", writer_id_},
                       {"sequence", sequence_}};
    if (!converter_->descriptor_columns().empty()) {
      descriptor["columns"] = converter_->descriptor_columns();
    }
    std::string command = DumpJson(descriptor);
    Status status;
    for (int attempt = 1; attempt <= kPutAttempts; ++attempt) {
      status = PutOnce(command, part);
      if (status.ok() || status.code() != StatusCode::kUnavailable) break;
      if (attempt < kPutAttempts) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200 << (attempt - 1)));
      }
    }
    MINK_RETURN_IF_ERROR(status);
    ++sequence_;
    rows_written_ += part.rows;
    return Status::Ok();
  }

  int64_t rows_written() const { return rows_written_; }

 private:
  Status PutOnce(const std::string& command, const Part& part) {
    MINK_ASSIGN_OR_RETURN(auto put, client_->DoPut());
    arrow::IpcMessage schema = arrow::EncodeSchemaMessage(*converter_->schema());
    flight::FlightData first;
    first.descriptor = flight::FlightDescriptor::Command(command);
    first.data_header = std::move(schema.metadata);
    Status s = put->Write(std::move(first));
    for (size_t i = 0; s.ok() && i < part.batches.size(); ++i) {
      auto message = arrow::EncodeRecordBatchMessage(*part.batches[i]);
      if (!message.ok()) {
        put->Cancel();
        return message.status();
      }
      s = put->Write(flight::FlightData{std::nullopt, std::move(message->metadata),
                                        std::move(message->body), ""});
    }
    if (!s.ok()) {
      Status finished = put->Finish();
      return finished.ok() ? s : finished;
    }
    MINK_RETURN_IF_ERROR(put->DoneWriting());
    flight::PutResult result;
    while (true) {
      auto more = put->ReadResult(&result);
      if (!more.ok()) break;  // Finish() returns the call's status
      if (!*more) break;
    }
    return put->Finish();
  }

  const WriteOptions& options_;
  flight::FlightClient* client_;
  const JsonRowConverter* converter_;
  int64_t writer_id_ = -1;
  int32_t sequence_ = 0;
  int64_t rows_written_ = 0;
};

int Run(const WriteOptions& o) {
  if (Status s = CheckTableName(o.table); !s.ok()) return ReportError(kCommand, s);
  if (o.batch_rows < 1) {
    return ReportError(kCommand, InvalidArgumentError("--batch-rows must be at least 1"));
  }
  auto client = ConnectToNode(o.client);
  if (!client.ok()) return ReportError(kCommand, client.status());
  auto described = RunAction(**client, "describe-table", json{{"table", o.table}});
  if (!described.ok()) return ReportError(kCommand, described.status());
  auto table = ParseTableDescription(DumpJson(*described));
  if (!table.ok()) return ReportError(kCommand, table.status());
  if (table->table.empty()) table->table = o.table;

  WriteShape shape;
  shape.is_delete = o.is_delete;
  shape.partial_columns = SplitList(o.columns);
  auto converter = JsonRowConverter::Make(*table, shape);
  if (!converter.ok()) return ReportError(kCommand, converter.status());
  auto builder = BatchBuilder::Make(converter->schema(), converter->types());
  if (!builder.ok()) return ReportError(kCommand, builder.status());

  Writer writer(o, client->get(), &*converter);
  ProgressLine progress("mink write");
  LineReader input(stdin);
  Part part;
  int64_t line_number = 0;
  int64_t rows_read = 0;

  auto finish_batch = [&]() -> Status {
    if (builder->num_rows() == 0) return Status::Ok();
    MINK_ASSIGN_OR_RETURN(auto batch, builder->Finish());
    part.batches.push_back(std::move(batch));
    return Status::Ok();
  };
  auto send_part = [&]() -> Status {
    MINK_RETURN_IF_ERROR(finish_batch());
    MINK_RETURN_IF_ERROR(writer.Send(part));
    part = Part{};
    progress.Update(writer.rows_written(), "written");
    return Status::Ok();
  };
  auto fail = [&](const Status& s) {
    progress.Done();
    Status reported = s;
    if (writer.rows_written() > 0) {
      reported =
          Status(s.code(), s.message() + " (the " + std::to_string(writer.rows_written()) +
                               " rows before line " + std::to_string(part.first_line) +
                               " were already written: input beyond " + std::to_string(kPartRows) +
                               " rows or 64 MiB is written in parts)");
    }
    return ReportError(kCommand, reported);
  };

  while (true) {
    std::string_view line;
    auto more = input.Next(&line);
    if (!more.ok()) return fail(more.status());
    if (!*more) break;
    ++line_number;
    if (IsBlankLine(line)) continue;
    if (part.rows == 0) part.first_line = line_number;
    auto row = converter->ConvertLine(line);
    if (!row.ok()) {
      return fail(InvalidArgumentError("line " + std::to_string(line_number) + ": " +
                                       row.status().message()));
    }
    if (Status s = builder->Append(*row); !s.ok()) return fail(s);
    ++part.rows;
    ++rows_read;
    part.bytes += static_cast<int64_t>(line.size()) + 1;
    if (builder->num_rows() >= o.batch_rows) {
      if (Status s = finish_batch(); !s.ok()) return fail(s);
    }
    if (part.rows >= kPartRows || part.bytes >= kPartBytes) {
      if (Status s = send_part(); !s.ok()) return fail(s);
    }
    if ((rows_read & 1023) == 0) progress.Update(rows_read, "read");
  }
  if (Status s = send_part(); !s.ok()) return fail(s);
  progress.Done();
  return kExitOk;
}

}  // namespace

void AddWriteCommand(CLI::App* app, int* exit_code) {
  auto o = std::make_shared<WriteOptions>();
  CLI::App* write = app->add_subcommand(
      "write",
      "Write JSON lines from stdin to a table (upserts for a primary-key table, appends for a "
      "log table). Every line is checked before anything is sent: input up to 1,000,000 rows / "
      "64 MiB is written whole or not at all");
  write->add_option("table", o->table, "The table, as database.table")->required();
  write->add_flag("--delete", o->is_delete,
                  "The lines name primary keys to delete (primary-key tables)");
  write->add_option("--columns", o->columns,
                    "A partial update of these columns, comma-separated (primary-key tables; "
                    "the primary-key columns are always included; other columns must be absent)");
  write->add_option("--batch-rows", o->batch_rows,
                    "Rows per Arrow record batch sent to the node (default 10000)");
  AddBootstrapOption(write, &o->client);
  write->callback([o, exit_code] { *exit_code = Run(*o); });
}

}  // namespace mink::cli
