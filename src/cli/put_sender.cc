#include "cli/put_sender.h"

#include <nlohmann/json.hpp>
#include <thread>

#include "arrow_format/ipc.h"
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
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    status = PutOnce(command, batches);
    if (status.ok() || status.code() != StatusCode::kUnavailable) break;
    if (attempt < options_.max_attempts) {
      std::this_thread::sleep_for(backoff);
      backoff *= 2;
    }
  }
  MINK_RETURN_IF_ERROR(status);
  ++sequence_;
  rows_written_ += rows;
  return Status::Ok();
}

Status PutSender::PutOnce(const std::string& command,
                          const std::vector<arrow::RecordBatchPtr>& batches) {
  MINK_ASSIGN_OR_RETURN(auto put, client_->DoPut());
  arrow::IpcMessage schema = arrow::EncodeSchemaMessage(*schema_);
  flight::FlightData first;
  first.descriptor = flight::FlightDescriptor::Command(command);
  first.data_header = std::move(schema.metadata);
  Status s = put->Write(std::move(first));
  for (size_t i = 0; s.ok() && i < batches.size(); ++i) {
    auto message = arrow::EncodeRecordBatchMessage(*batches[i]);
    if (!message.ok()) {
      put->Cancel();
      return message.status();
    }
    s = put->Write(flight::FlightData{std::nullopt, std::move(message->metadata),
                                      std::move(message->body), ""});
  }
  if (!s.ok()) {
    // The node ended the call early (it refused the write, or went away): its status says why.
    Status finished = put->Finish();
    return finished.ok() ? s : finished;
  }
  MINK_RETURN_IF_ERROR(put->DoneWriting());
  flight::PutResult result;
  while (true) {
    auto more = put->ReadResult(&result);
    if (!more.ok() || !*more) break;  // an error comes back from Finish()
  }
  return put->Finish();
}

}  // namespace mink::cli
