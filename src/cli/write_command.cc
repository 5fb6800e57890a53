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

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/json_to_arrow.h"
#include "cli/line_reader.h"
#include "cli/put_sender.h"

namespace mink::cli {
namespace {

using nlohmann::json;

constexpr const char* kCommand = "write";
constexpr int64_t kPartRows = 1'000'000;
constexpr int64_t kPartBytes = 64LL << 20;

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

int Run(const WriteOptions& o) {
  if (Status s = CheckTableName(o.table); !s.ok()) return ReportError(kCommand, s);
  if (o.batch_rows < 1) {
    return ReportError(kCommand, InvalidArgumentError("--batch-rows must be at least 1"));
  }
  auto client = ConnectToNode(o.client);
  if (!client.ok()) return ReportError(kCommand, client.status());
  auto table = DescribeTable(**client, o.table);
  if (!table.ok()) return ReportError(kCommand, table.status());

  WriteShape shape;
  shape.is_delete = o.is_delete;
  shape.partial_columns = SplitList(o.columns);
  auto converter = JsonRowConverter::Make(*table, shape);
  if (!converter.ok()) return ReportError(kCommand, converter.status());
  auto builder = BatchBuilder::Make(converter->schema(), converter->types());
  if (!builder.ok()) return ReportError(kCommand, builder.status());

  PutSender writer(client->get(), converter->schema(),
                   PutSenderOptions{o.table, o.is_delete, converter->descriptor_columns()});
  if (IsTerminal(STDIN_FILENO)) {
    std::fputs("mink write: reading JSON lines from the terminal (end with Ctrl-D)\n", stderr);
  }
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
    MINK_RETURN_IF_ERROR(writer.Send(part.batches, part.rows));
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
