#include "flight/client/exchange_batches.h"

namespace mink::flight {

Result<std::unique_ptr<BatchExchange>> BatchExchange::Open(FlightClient& client,
                                                           const std::string& command,
                                                           const arrow::Schema& schema,
                                                           const CallOptions& options) {
  MINK_ASSIGN_OR_RETURN(auto stream, client.DoExchange(options));
  std::unique_ptr<BatchExchange> exchange(new BatchExchange(std::move(stream)));
  FlightData first;
  first.descriptor = FlightDescriptor::Command(command);
  first.data_header = arrow::EncodeSchemaMessage(schema).metadata;
  MINK_RETURN_IF_ERROR(exchange->stream_->Write(std::move(first)));
  MINK_ASSIGN_OR_RETURN(auto answer, exchange->ReadAnswer());
  if (answer.kind != arrow::IpcDecoder::Kind::kSchema) {
    return InternalError("node at " + client.address() + " began an exchange without a schema");
  }
  return exchange;
}

Result<arrow::IpcDecoder::Decoded> BatchExchange::ReadAnswer() {
  FlightData data;
  while (true) {
    MINK_ASSIGN_OR_RETURN(bool more, stream_->Read(&data));
    if (!more) return UnavailableError("the node ended the exchange without an answer");
    if (data.data_header.empty()) continue;  // app_metadata alone
    return decoder_.Decode(data.data_header, arrow::Buffer::FromString(std::move(data.body)));
  }
}

Result<arrow::RecordBatchPtr> BatchExchange::Call(const arrow::RecordBatch& batch) {
  MINK_ASSIGN_OR_RETURN(auto message, arrow::EncodeRecordBatchMessage(batch));
  MINK_RETURN_IF_ERROR(stream_->Write(
      FlightData{std::nullopt, std::move(message.metadata), std::move(message.body), ""}));
  while (true) {
    MINK_ASSIGN_OR_RETURN(auto answer, ReadAnswer());
    if (answer.kind == arrow::IpcDecoder::Kind::kRecordBatch) return answer.batch;
  }
}

}  // namespace mink::flight
