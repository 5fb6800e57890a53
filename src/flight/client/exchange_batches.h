#pragma once
// BatchExchange: a DoExchange used as a session of calls: the client sends a command descriptor
// with the schema of its batches, the node answers with the schema of its answers, and then
// every batch sent is answered by one batch (Mink's lookups, docs/flight-api.md).

#include <memory>
#include <string>

#include "arrow_format/ipc.h"
#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "flight/client/flight_client.h"

namespace mink::flight {

class BatchExchange {
 public:
  // Starts the exchange; an error the node answers to the command (an unknown table, say)
  // comes back here.
  static Result<std::unique_ptr<BatchExchange>> Open(FlightClient& client, const std::string& command,
                                                     const arrow::Schema& schema,
                                                     const CallOptions& options = {});
  // The schema of the node's answers.
  const arrow::SchemaPtr& answer_schema() const { return decoder_.schema(); }
  // Sends one batch and waits for its answer.
  Result<arrow::RecordBatchPtr> Call(const arrow::RecordBatch& batch);
  // Ends the exchange; the node's status.
  Status Finish() { return stream_->Finish(); }

 private:
  explicit BatchExchange(std::unique_ptr<FlightExchangeStream> stream)
      : stream_(std::move(stream)) {}
  // The node's next message, decoded; an error when the call ended instead.
  Result<arrow::IpcDecoder::Decoded> ReadAnswer();

  std::unique_ptr<FlightExchangeStream> stream_;
  arrow::IpcDecoder decoder_;
};

}  // namespace mink::flight
