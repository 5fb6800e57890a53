#include "table_bench_wire.h"

#include <algorithm>
#include <chrono>

namespace mink::bench {

void ReferenceFlight::AddStream(const std::string& ticket, const arrow::Schema& schema,
                                std::vector<arrow::IpcMessage> messages) {
  auto stream = std::make_shared<Stream>();
  stream->schema = arrow::EncodeSchemaMessage(schema).metadata;
  stream->messages = std::move(messages);
  std::lock_guard<std::mutex> lock(mutex_);
  streams_[ticket] = std::move(stream);
}

Result<std::vector<flight::FlightInfo>> ReferenceFlight::ListFlights(const std::string&) {
  return std::vector<flight::FlightInfo>{};
}
Result<flight::FlightInfo> ReferenceFlight::GetFlightInfo(const flight::FlightDescriptor&) {
  return UnimplementedError("reference server: GetFlightInfo");
}
Result<std::string> ReferenceFlight::GetSchema(const flight::FlightDescriptor&) {
  return UnimplementedError("reference server: GetSchema");
}
Status ReferenceFlight::DoAction(const flight::Action&, flight::ActionResultWriter&) {
  return UnimplementedError("reference server: DoAction");
}
Result<std::vector<flight::ActionType>> ReferenceFlight::ListActions() {
  return std::vector<flight::ActionType>{};
}

Status ReferenceFlight::DoGet(const std::string& ticket, flight::FlightDataWriter& writer) {
  std::shared_ptr<const Stream> stream;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = streams_.find(ticket);
    if (it == streams_.end()) return NotFoundError("reference server: no stream " + ticket);
    stream = it->second;
  }
  if (!writer.Write(flight::FlightData{std::nullopt, stream->schema, "", ""})) return Status::Ok();
  for (const auto& m : stream->messages) {
    if (!writer.Write(flight::FlightData{std::nullopt, m.metadata, m.body, ""})) break;
  }
  return Status::Ok();
}

Status ReferenceFlight::DoPut(flight::FlightDataReader& reader, flight::PutResultWriter& writer) {
  // What the node does before TableStore::Write: decode every message and validate each batch.
  arrow::IpcDecoder decoder;
  flight::FlightData data;
  int64_t rows = 0;
  while (true) {
    MINK_ASSIGN_OR_RETURN(bool more, reader.Next(&data));
    if (!more) break;
    if (data.data_header.empty()) continue;
    auto decoded =
        decoder.Decode(data.data_header, arrow::Buffer::FromString(std::move(data.body)));
    if (!decoded.ok()) return InvalidArgumentError(decoded.status().message());
    if (decoded->kind == arrow::IpcDecoder::Kind::kRecordBatch) {
      MINK_RETURN_IF_ERROR(decoded->batch->Validate());
      rows += decoded->batch->num_rows();
    }
  }
  rows_put_.fetch_add(rows);
  writer.Write(flight::PutResult{"{\"rows\":" + std::to_string(rows) + "}"});
  return Status::Ok();
}

Result<IpcSpeed> MeasureIpc(const std::vector<arrow::RecordBatchPtr>& batches,
                            arrow::CompressionCodec codec, int repeat) {
  using Clock = std::chrono::steady_clock;
  IpcSpeed best;
  best.encode_seconds = best.decode_seconds = 1e300;
  arrow::IpcWriteOptions options;
  options.compression = codec;
  for (int r = 0; r < std::max(1, repeat); ++r) {
    std::vector<arrow::IpcMessage> messages;
    messages.reserve(batches.size());
    double bytes = 0;
    auto t0 = Clock::now();
    for (const auto& b : batches) {
      MINK_ASSIGN_OR_RETURN(auto m, arrow::EncodeRecordBatchMessage(*b, options));
      bytes += static_cast<double>(m.metadata.size() + m.body.size());
      messages.push_back(std::move(m));
    }
    auto t1 = Clock::now();
    arrow::IpcDecoder decoder;
    MINK_RETURN_IF_ERROR(
        decoder.Decode(arrow::EncodeSchemaMessage(*batches.front()->schema()).metadata, nullptr)
            .status());
    int64_t rows = 0;
    for (auto& m : messages) {
      MINK_ASSIGN_OR_RETURN(
          auto d, decoder.Decode(m.metadata, arrow::Buffer::FromString(std::move(m.body))));
      MINK_RETURN_IF_ERROR(d.batch->Validate());
      rows += d.batch->num_rows();
    }
    auto t2 = Clock::now();
    (void)rows;
    best.bytes = bytes;
    best.encode_seconds =
        std::min(best.encode_seconds, std::chrono::duration<double>(t1 - t0).count());
    best.decode_seconds =
        std::min(best.decode_seconds, std::chrono::duration<double>(t2 - t1).count());
  }
  return best;
}

}  // namespace mink::bench
