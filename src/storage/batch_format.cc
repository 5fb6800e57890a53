#include "storage/batch_format.h"

#include "base/bytes.h"
#include "codec/crc32c.h"

namespace mink::storage {
namespace {

constexpr uint8_t kVersion = 1;
constexpr uint8_t kFlagChangeTypes = 1;
// Bytes [0, 12) are magic, length and crc; the crc covers [12, length).
constexpr size_t kCrcStart = 12;

Status Corrupt(const std::string& where, uint64_t position, const std::string& what) {
  return DataLossError("object " + where + " at byte " + std::to_string(position) + ": " + what);
}

}  // namespace

size_t EncodedBatchSize(const BatchInput& input) {
  return kBatchHeaderSize + input.change_types.size() + input.payload.size();
}

void EncodeBatch(const BatchInput& input, int64_t base_offset, int64_t timestamp_ms,
                 std::string* out) {
  size_t start = out->size();
  uint32_t length = static_cast<uint32_t>(EncodedBatchSize(input));
  PutU32(out, kBatchMagic);
  PutU32(out, length);
  PutU32(out, 0);  // crc, filled below
  PutU8(out, kVersion);
  PutU8(out, input.change_types.empty() ? 0 : kFlagChangeTypes);
  PutU16(out, static_cast<uint16_t>(input.writer_epoch));
  PutI64(out, base_offset);
  PutI32(out, input.record_count);
  PutI64(out, timestamp_ms);
  PutI64(out, input.writer_id);
  PutI32(out, input.batch_sequence);
  PutI32(out, input.schema_id);
  PutU32(out, static_cast<uint32_t>(input.payload.size()));
  out->append(input.change_types);
  out->append(input.payload);
  uint32_t crc = codec::Crc32cExtend(0, out->data() + start + kCrcStart, length - kCrcStart);
  StoreU32(out->data() + start + 8, crc);
}

namespace {

// Parses one batch header at the reader's position; fills `span` and returns the header fields.
Status ParseOne(std::string_view data, size_t pos, const std::string& where, uint64_t base,
                Batch* batch, BatchSpan* span, bool with_body,
                const std::shared_ptr<const void>& owner = nullptr) {
  uint64_t at = base + pos;
  if (data.size() - pos < kBatchHeaderSize) return Corrupt(where, at, "truncated batch header");
  ByteReader r(data.substr(pos));
  uint32_t magic, length, crc, payload_len;
  uint8_t version, flags;
  uint16_t writer_epoch;
  r.ReadU32(&magic);
  r.ReadU32(&length);
  r.ReadU32(&crc);
  if (magic != kBatchMagic) return Corrupt(where, at, "not a batch (bad magic)");
  if (length < kBatchHeaderSize || length > data.size() - pos) {
    return Corrupt(where, at, "batch length " + std::to_string(length) + " runs past the data");
  }
  if (codec::Crc32cExtend(0, data.data() + pos + kCrcStart, length - kCrcStart) != crc) {
    return Corrupt(where, at, "batch checksum mismatch");
  }
  r.ReadU8(&version);
  r.ReadU8(&flags);
  r.ReadU16(&writer_epoch);
  if (version != kVersion) return Corrupt(where, at, "unknown batch version");
  batch->writer_epoch = static_cast<int16_t>(writer_epoch);
  r.ReadI64(&batch->base_offset);
  r.ReadI32(&batch->record_count);
  r.ReadI64(&batch->timestamp_ms);
  r.ReadI64(&batch->writer_id);
  r.ReadI32(&batch->batch_sequence);
  r.ReadI32(&batch->schema_id);
  r.ReadU32(&payload_len);
  size_t change_len = (flags & kFlagChangeTypes) ? static_cast<size_t>(batch->record_count) : 0;
  if (batch->record_count <= 0 ||
      kBatchHeaderSize + change_len + payload_len != static_cast<size_t>(length)) {
    return Corrupt(where, at, "batch sections do not add up to its length");
  }
  span->position = at;
  span->length = length;
  span->base_offset = batch->base_offset;
  span->record_count = batch->record_count;
  span->timestamp_ms = batch->timestamp_ms;
  if (with_body) {
    batch->change_types.assign(data.data() + pos + kBatchHeaderSize, change_len);
    std::string_view payload = data.substr(pos + kBatchHeaderSize + change_len, payload_len);
    batch->payload = owner ? SharedBytes(owner, payload) : SharedBytes(std::string(payload));
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<Batch>> DecodeBatches(std::string_view data, const std::string& where,
                                         uint64_t base_position,
                                         const std::shared_ptr<const void>& owner) {
  std::vector<Batch> out;
  size_t pos = 0;
  while (pos < data.size()) {
    Batch batch;
    BatchSpan span;
    MINK_RETURN_IF_ERROR(ParseOne(data, pos, where, base_position, &batch, &span, true, owner));
    pos += span.length;
    out.push_back(std::move(batch));
  }
  return out;
}

Result<std::vector<BatchSpan>> ScanBatches(std::string_view data, const std::string& where,
                                           uint64_t base_position) {
  std::vector<BatchSpan> out;
  size_t pos = 0;
  while (pos < data.size()) {
    Batch batch;
    BatchSpan span;
    MINK_RETURN_IF_ERROR(ParseOne(data, pos, where, base_position, &batch, &span, false));
    pos += span.length;
    out.push_back(span);
  }
  return out;
}

}  // namespace mink::storage
