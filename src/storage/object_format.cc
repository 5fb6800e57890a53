#include "storage/object_format.h"

#include <algorithm>

#include "base/bytes.h"
#include "codec/crc32c.h"

namespace mink::storage {
namespace {

constexpr uint64_t kObjectMagic = 0x314A'424F'4B4E'494DULL;  // "MINKOBJ1" little-endian
constexpr uint8_t kObjectVersion = 1;
constexpr size_t kFooterSize = 32;
constexpr size_t kIndexEntrySize = 48;

}  // namespace

void ObjectBuilder::BeginRun(uint64_t stream_id) {
  if (in_run_) EndRun();
  RunEntry run;
  run.stream_id = stream_id;
  run.position = data_.size();
  run.start_offset = -1;
  runs_.push_back(run);
  in_run_ = true;
}

void ObjectBuilder::AddBatch(const BatchInput& input, int64_t base_offset, int64_t timestamp_ms) {
  EncodeBatch(input, base_offset, timestamp_ms, &data_);
  Extend(base_offset, input.record_count, timestamp_ms);
}

void ObjectBuilder::AddRawBatch(std::string_view encoded, int64_t base_offset,
                                int32_t record_count, int64_t timestamp_ms) {
  data_.append(encoded);
  Extend(base_offset, record_count, timestamp_ms);
}

void ObjectBuilder::Extend(int64_t base_offset, int32_t record_count, int64_t timestamp_ms) {
  RunEntry& run = runs_.back();
  if (run.start_offset < 0) run.start_offset = base_offset;
  run.end_offset = base_offset + record_count;
  run.max_timestamp_ms = std::max(run.max_timestamp_ms, timestamp_ms);
  run.length = data_.size() - run.position;
}

void ObjectBuilder::EndRun() {
  if (in_run_ && runs_.back().start_offset < 0) runs_.pop_back();  // no batches
  in_run_ = false;
}

std::string ObjectBuilder::Finish() {
  EndRun();
  uint64_t index_position = data_.size();
  PutU32(&data_, static_cast<uint32_t>(runs_.size()));
  for (const RunEntry& r : runs_) {
    PutU64(&data_, r.stream_id);
    PutI64(&data_, r.start_offset);
    PutI64(&data_, r.end_offset);
    PutU64(&data_, r.position);
    PutU64(&data_, r.length);
    PutI64(&data_, r.max_timestamp_ms);
  }
  uint32_t index_length = static_cast<uint32_t>(data_.size() - index_position);
  uint32_t index_crc = codec::Crc32cExtend(0, data_.data() + index_position, index_length);
  PutU64(&data_, index_position);
  PutU32(&data_, index_length);
  PutU32(&data_, index_crc);
  PutU8(&data_, static_cast<uint8_t>(kind_));
  PutU8(&data_, kObjectVersion);
  PutU16(&data_, 0);
  PutU32(&data_, 0);
  PutU64(&data_, kObjectMagic);
  return std::move(data_);
}

Result<ObjectIndex> ReadObjectIndex(std::string_view object, const std::string& key) {
  auto corrupt = [&](const std::string& what) {
    return DataLossError("object " + key + ": " + what);
  };
  if (object.size() < kFooterSize) return corrupt("shorter than its footer (truncated)");
  ByteReader footer(object.substr(object.size() - kFooterSize));
  uint64_t index_position, magic;
  uint32_t index_length, index_crc, reserved32;
  uint8_t kind, version;
  uint16_t reserved16;
  footer.ReadU64(&index_position);
  footer.ReadU32(&index_length);
  footer.ReadU32(&index_crc);
  footer.ReadU8(&kind);
  footer.ReadU8(&version);
  footer.ReadU16(&reserved16);
  footer.ReadU32(&reserved32);
  footer.ReadU64(&magic);
  if (magic != kObjectMagic) return corrupt("bad footer magic (truncated or not a Mink object)");
  if (version != kObjectVersion) return corrupt("unknown object version");
  if (kind != 1 && kind != 2) return corrupt("unknown object kind");
  if (index_position + index_length != object.size() - kFooterSize) {
    return corrupt("index does not end at the footer");
  }
  std::string_view index = object.substr(index_position, index_length);
  if (codec::Crc32c(index) != index_crc) return corrupt("index checksum mismatch");
  ByteReader r(index);
  uint32_t count;
  if (!r.ReadU32(&count) || r.remaining() != static_cast<size_t>(count) * kIndexEntrySize) {
    return corrupt("index length does not match its entry count");
  }
  ObjectIndex out;
  out.kind = static_cast<ObjectKind>(kind);
  for (uint32_t i = 0; i < count; ++i) {
    RunEntry e;
    r.ReadU64(&e.stream_id);
    r.ReadI64(&e.start_offset);
    r.ReadI64(&e.end_offset);
    r.ReadU64(&e.position);
    r.ReadU64(&e.length);
    r.ReadI64(&e.max_timestamp_ms);
    if (e.position + e.length > index_position) return corrupt("run beyond the data section");
    out.runs.push_back(e);
  }
  return out;
}

}  // namespace mink::storage
