#include "table/payload.h"

#include "base/bytes.h"

namespace mink::table {

Result<std::string> EncodePayload(const arrow::RecordBatch& batch, arrow::CompressionCodec codec) {
  arrow::IpcWriteOptions options;
  options.compression = codec;
  MINK_ASSIGN_OR_RETURN(arrow::IpcMessage message, arrow::EncodeRecordBatchMessage(batch, options));
  size_t padded = (message.metadata.size() + 7) / 8 * 8;
  std::string out;
  out.reserve(8 + padded + message.body.size());
  PutU32(&out, static_cast<uint32_t>(padded));
  PutU32(&out, 0);
  out += message.metadata;
  out.append(padded - message.metadata.size(), '\0');
  out += message.body;
  return out;
}

Result<PayloadDecoder> PayloadDecoder::Make(const arrow::SchemaPtr& schema) {
  PayloadDecoder d;
  d.decoder_ = std::make_unique<arrow::IpcDecoder>();
  arrow::IpcMessage schema_message = arrow::EncodeSchemaMessage(*schema);
  auto decoded = d.decoder_->Decode(schema_message.metadata, nullptr);
  if (!decoded.ok()) return decoded.status();
  return d;
}

Result<arrow::RecordBatchPtr> PayloadDecoder::Decode(const SharedBytes& payload) {
  return DecodeImpl(payload, nullptr);
}

Result<arrow::RecordBatchPtr> PayloadDecoder::DecodeProjected(const SharedBytes& payload,
                                                              const std::vector<int>& columns) {
  return DecodeImpl(payload, &columns);
}

Result<arrow::RecordBatchPtr> PayloadDecoder::DecodeImpl(const SharedBytes& payload,
                                                         const std::vector<int>* columns) {
  if (payload.size() < 8) return DataLossError("table batch payload is truncated");
  uint32_t metadata_len = LoadU32(payload.data());
  if (metadata_len > payload.size() - 8) return DataLossError("table batch payload is truncated");
  std::string_view metadata(payload.data() + 8, metadata_len);
  size_t body_at = 8 + metadata_len;
  auto body = std::make_shared<const arrow::Buffer>(payload.data() + body_at,
                                                    static_cast<int64_t>(payload.size() - body_at),
                                                    payload.owner());
  auto decoded = columns ? decoder_->DecodeProjected(metadata, body, *columns)
                         : decoder_->Decode(metadata, body);
  if (!decoded.ok()) return DataLossError("table batch payload: " + decoded.status().message());
  if (decoded->kind != arrow::IpcDecoder::Kind::kRecordBatch) {
    return DataLossError("table batch payload is not a record batch");
  }
  return decoded->batch;
}

}  // namespace mink::table
