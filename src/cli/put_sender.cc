#include "cli/put_sender.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "flight/client/put_batches.h"
#include "client/action.h"

namespace mink::cli {

using nlohmann::json;

Status PutSender::Send(const std::vector<arrow::RecordBatchPtr>& batches, int64_t rows) {
  if (rows == 0) return Status::Ok();
  if (writer_id_ < 0) {
    MINK_ASSIGN_OR_RETURN(json answer, client::RunAction(*client_, "init-writer", json::object()));
    auto id = answer.find("writer_id");
    if (id == answer.end() || !id->is_number_integer()) {
      return InternalError("init-writer answered without a writer_id");
    }
    writer_id_ = id->get<int64_t>();
  }
  json descriptor = {{"table", options_.table},
                     {"mode", options_.is_delete ? "delete" : "upsert"},
                     {"writer_id", writer_id_},
                     {"sequence", sequence_}};
  if (!options_.columns.empty()) descriptor["columns"] = options_.columns;
  const std::string command = client::DumpJson(descriptor);
  Status status;
  std::chrono::milliseconds backoff = options_.first_backoff;
  const auto give_up = std::chrono::steady_clock::now() + options_.retry_for;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    status = PutOnce(command, batches);
    if (status.ok() || status.code() != StatusCode::kUnavailable) break;
    if (attempt == options_.max_attempts || std::chrono::steady_clock::now() + backoff > give_up) {
      break;
    }
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
  MINK_RETURN_IF_ERROR(status);
  ++sequence_;
  rows_written_ += rows;
  return Status::Ok();
}

Status PutSender::PutOnce(const std::string& command,
                          const std::vector<arrow::RecordBatchPtr>& batches) {
  return flight::PutBatches(*client_, command, *schema_, batches).status();
}

}  // namespace mink::cli
