#include "flight/client/put_batches.h"

#include "arrow_format/ipc.h"

namespace mink::flight {

Result<std::vector<std::string>> PutBatches(FlightClient& client, const std::string& command,
                                            const arrow::Schema& schema,
                                            const std::vector<arrow::RecordBatchPtr>& batches,
                                            const CallOptions& options) {
  MINK_ASSIGN_OR_RETURN(auto put, client.DoPut(options));
  arrow::IpcMessage schema_message = arrow::EncodeSchemaMessage(schema);
  FlightData first;
  first.descriptor = FlightDescriptor::Command(command);
  first.data_header = std::move(schema_message.metadata);
  Status s = put->Write(std::move(first));
  for (size_t i = 0; s.ok() && i < batches.size(); ++i) {
    auto message = arrow::EncodeRecordBatchMessage(*batches[i]);
    if (!message.ok()) {
      put->Cancel();
      return message.status();
    }
    s = put->Write(FlightData{std::nullopt, std::move(message->metadata), std::move(message->body), ""});
  }
  if (!s.ok()) {
    // The node ended the call early (it refused the write, or went away): its status says why.
    Status finished = put->Finish();
    return finished.ok() ? s : finished;
  }
  MINK_RETURN_IF_ERROR(put->DoneWriting());
  std::vector<std::string> answers;
  PutResult result;
  while (true) {
    auto more = put->ReadResult(&result);
    if (!more.ok() || !*more) break;  // an error comes back from Finish()
    answers.push_back(std::move(result.app_metadata));
  }
  MINK_RETURN_IF_ERROR(put->Finish());
  return answers;
}

}  // namespace mink::flight
