#pragma once
// The limits table_bench measures beside its figures, in the same run:
//   - ReferenceFlight: a Flight server with no storage behind it. DoGet serves Arrow IPC
//     messages encoded in memory beforehand (the loopback gRPC + Flight framing limit of a
//     scan); DoPut decodes and validates the batches as the node does, then drops them (the
//     limit of a write);
//   - MeasureIpc: Arrow IPC encode + decode of the same batches in memory (the CPU floor of
//     the serialisation every path pays at least once).

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arrow_format/ipc.h"
#include "flight/server/flight_handler.h"

namespace mink::bench {

class ReferenceFlight final : public flight::FlightHandler {
 public:
  // DoGet of `ticket` sends `schema` then `messages` (each copied into the call).
  void AddStream(const std::string& ticket, const arrow::Schema& schema,
                 std::vector<arrow::IpcMessage> messages);

  Result<std::vector<flight::FlightInfo>> ListFlights(const std::string& criteria) override;
  Result<flight::FlightInfo> GetFlightInfo(const flight::FlightDescriptor& descriptor) override;
  Result<std::string> GetSchema(const flight::FlightDescriptor& descriptor) override;
  Status DoGet(const std::string& ticket, flight::FlightDataWriter& writer) override;
  Status DoPut(flight::FlightDataReader& reader, flight::PutResultWriter& writer) override;
  Status DoAction(const flight::Action& action, flight::ActionResultWriter& writer) override;
  Result<std::vector<flight::ActionType>> ListActions() override;

  int64_t rows_put() const { return rows_put_.load(); }

 private:
  struct Stream {
    std::string schema;
    std::vector<arrow::IpcMessage> messages;
  };
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Stream>> streams_;
  std::atomic<int64_t> rows_put_{0};
};

struct IpcSpeed {
  double bytes = 0;           // encoded message bytes (metadata + body)
  double encode_seconds = 0;  // every batch once
  double decode_seconds = 0;  // every message once, plus Validate() as the node does on DoPut
};

// Encodes and decodes `batches` `repeat` times (the best time of the repeats counts).
Result<IpcSpeed> MeasureIpc(const std::vector<arrow::RecordBatchPtr>& batches,
                            arrow::CompressionCodec codec, int repeat);

}  // namespace mink::bench
