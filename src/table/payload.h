#pragma once
// The payload of a table batch in a stream: one Arrow IPC RecordBatch message of the table's
// schema (the schema itself is not repeated; the batch header's schema id names it).
// Layout: u32 LE padded metadata length, u32 reserved (0), the flatbuffer Message padded with
// zeros to a multiple of 8, the body. docs/formats/table-batch.md.

#include <memory>
#include <string>
#include <vector>

#include "arrow_format/ipc.h"
#include "base/result.h"
#include "base/shared_bytes.h"

namespace mink::table {

Result<std::string> EncodePayload(const arrow::RecordBatch& batch, arrow::CompressionCodec codec);

// Decodes payloads of one schema. Not thread-safe; cheap to create.
class PayloadDecoder {
 public:
  static Result<PayloadDecoder> Make(const arrow::SchemaPtr& schema);
  // The batch references `payload` and keeps its owner alive (no copy unless compressed).
  Result<arrow::RecordBatchPtr> Decode(const SharedBytes& payload);
  // Only `columns` (table column indexes, in that order); the other columns are neither
  // decompressed nor decoded.
  Result<arrow::RecordBatchPtr> DecodeProjected(const SharedBytes& payload,
                                                const std::vector<int>& columns);

 private:
  PayloadDecoder() = default;
  Result<arrow::RecordBatchPtr> DecodeImpl(const SharedBytes& payload,
                                           const std::vector<int>* columns);
  std::unique_ptr<arrow::IpcDecoder> decoder_;
};

}  // namespace mink::table
