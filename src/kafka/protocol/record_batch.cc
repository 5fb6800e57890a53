#include "kafka/protocol/record_batch.h"

#include <algorithm>
#include <limits>

#include "codec/crc32c.h"
#include "kafka/protocol/wire.h"

namespace mink::kafka {
namespace {

// The smallest batchLength: the header fields after batchLength.
constexpr int32_t kMinBatchLength = static_cast<int32_t>(kRecordBatchHeaderSize) - 12;
// The smallest encoded record: length, attributes, two deltas, null key, null value, 0 headers.
constexpr size_t kMinRecordSize = 7;
constexpr size_t kCrcOffset = 17;
constexpr size_t kAttributesOffset = 21;

Status Malformed(size_t at, const std::string& what) {
  return InvalidArgumentError("malformed record batch at byte " + std::to_string(at) + ": " +
                              what);
}

uint32_t ComputeCrc(std::string_view batch) {
  return codec::Crc32c(batch.substr(kAttributesOffset));
}

// Parses the header of the batch at `b`, which starts at byte `at` of the caller's data.
Result<RecordBatchHeader> ParseHeaderAt(std::string_view b, size_t at) {
  if (b.size() < 17) return Malformed(at, "fewer than 17 bytes");
  RecordBatchHeader h;
  h.magic = static_cast<int8_t>(b[16]);
  if (h.magic != 2) {
    return InvalidArgumentError("unsupported record batch magic " + std::to_string(h.magic) +
                                (h.magic == 0 || h.magic == 1
                                     ? " (legacy message set v0/v1): only magic 2 is supported"
                                     : ": only magic 2 is supported"));
  }
  if (b.size() < kRecordBatchHeaderSize) {
    return Malformed(at, "header needs 61 bytes, " + std::to_string(b.size()) + " present");
  }
  const char* p = b.data();
  h.base_offset = static_cast<int64_t>(LoadBe64(p));
  h.batch_length = static_cast<int32_t>(LoadBe32(p + 8));
  h.partition_leader_epoch = static_cast<int32_t>(LoadBe32(p + 12));
  h.crc = LoadBe32(p + 17);
  h.attributes = static_cast<int16_t>(LoadBe16(p + 21));
  h.last_offset_delta = static_cast<int32_t>(LoadBe32(p + 23));
  h.base_timestamp = static_cast<int64_t>(LoadBe64(p + 27));
  h.max_timestamp = static_cast<int64_t>(LoadBe64(p + 35));
  h.producer_id = static_cast<int64_t>(LoadBe64(p + 43));
  h.producer_epoch = static_cast<int16_t>(LoadBe16(p + 51));
  h.base_sequence = static_cast<int32_t>(LoadBe32(p + 53));
  h.records_count = static_cast<int32_t>(LoadBe32(p + 57));
  if (h.batch_length < kMinBatchLength) {
    return Malformed(at + 8, "batchLength " + std::to_string(h.batch_length) + " is below 49");
  }
  if ((h.attributes & 0x7) > 4) {
    return Malformed(at + 21, "unknown compression codec " + std::to_string(h.attributes & 0x7));
  }
  if (h.records_count < 0) {
    return Malformed(at + 57, "negative record count " + std::to_string(h.records_count));
  }
  if (h.last_offset_delta < 0) {
    return Malformed(at + 23, "negative lastOffsetDelta " + std::to_string(h.last_offset_delta));
  }
  return h;
}

}  // namespace

Result<RecordBatchHeader> ParseBatchHeader(std::string_view b) { return ParseHeaderAt(b, 0); }

bool BatchCrcMatches(std::string_view batch) {
  if (batch.size() < kRecordBatchHeaderSize) return false;
  return ComputeCrc(batch) == LoadBe32(batch.data() + kCrcOffset);
}

Result<std::vector<BatchView>> SplitBatches(std::string_view records,
                                            const SplitOptions& options) {
  std::vector<BatchView> batches;
  size_t pos = 0;
  while (pos < records.size()) {
    std::string_view rest = records.substr(pos);
    // Need offset, length and magic to know what follows.
    if (rest.size() < kRecordBatchHeaderSize) {
      if (rest.size() >= 17 && rest[16] != 2) return ParseHeaderAt(rest, pos).status();  // magic
      if (options.allow_truncated_tail) break;
      return Malformed(pos, "truncated batch header (" + std::to_string(rest.size()) + " bytes)");
    }
    auto header = ParseHeaderAt(rest, pos);
    if (!header.ok()) return header.status();
    const size_t size = header->size();
    if (size > rest.size()) {
      if (options.allow_truncated_tail) break;
      return Malformed(pos, "batch of " + std::to_string(size) + " bytes but only " +
                                std::to_string(rest.size()) + " left");
    }
    std::string_view bytes = rest.substr(0, size);
    if (options.verify_crc && ComputeCrc(bytes) != header->crc) {
      return Malformed(pos, "CRC mismatch (stored " + std::to_string(header->crc) +
                                ", computed " + std::to_string(ComputeCrc(bytes)) + ")");
    }
    batches.push_back({*header, bytes});
    pos += size;
  }
  return batches;
}

Result<DecodedBatch> DecodeBatch(const BatchView& batch, const DecodeOptions& options) {
  DecodedBatch out;
  out.header = batch.header;
  const RecordBatchHeader& h = out.header;
  std::string_view data = batch.bytes.substr(std::min(batch.bytes.size(), kRecordBatchHeaderSize));
  if (h.compression() != Compression::kNone) {
    auto plain = Decompress(h.compression(), data, options.max_decompressed_bytes);
    if (!plain.ok()) return plain.status();
    out.storage = std::make_unique<std::string>(std::move(plain).value());
    data = *out.storage;
  }
  MessageContext context;
  context.name = "record batch";
  Reader r(data, context);
  const size_t count = static_cast<size_t>(h.records_count);
  if (count > data.size() / kMinRecordSize) {
    return InvalidArgumentError("malformed record batch: " + std::to_string(count) +
                                " records cannot fit in " + std::to_string(data.size()) +
                                " bytes");
  }
  out.records.reserve(count);
  int64_t previous_delta = -1;
  for (size_t i = 0; i < count; ++i) {
    int32_t length = 0;
    r.Varint("record.length", length);
    if (!r.ok()) return r.status();
    if (length <= 0 || static_cast<size_t>(length) > r.remaining()) {
      return InvalidArgumentError("malformed record batch: record " + std::to_string(i) +
                                  " length " + std::to_string(length) + " with " +
                                  std::to_string(r.remaining()) + " bytes left");
    }
    std::string_view body;
    r.Raw("record", static_cast<size_t>(length), body);
    Reader rec(body, context);
    RecordView record;
    int64_t timestamp_delta = 0;
    int32_t offset_delta = 0;
    rec.Int8("record.attributes", record.attributes);
    rec.Varlong("record.timestamp_delta", timestamp_delta);
    rec.Varint("record.offset_delta", offset_delta);
    auto read_optional = [&rec](const char* field, std::optional<std::string_view>& v) {
      int32_t len = 0;
      rec.Varint(field, len);
      if (!rec.ok()) return;
      if (len < -1) return rec.Fail(field, "negative length " + std::to_string(len));
      if (len == -1) {
        v.reset();
        return;
      }
      std::string_view bytes;
      rec.Raw(field, static_cast<size_t>(len), bytes);
      if (rec.ok()) v = bytes;
    };
    read_optional("record.key", record.key);
    read_optional("record.value", record.value);
    int32_t header_count = 0;
    rec.Varint("record.headers", header_count);
    if (rec.ok() && (header_count < 0 || static_cast<size_t>(header_count) > rec.remaining() / 2)) {
      rec.Fail("record.headers", "bad header count " + std::to_string(header_count));
    }
    record.first_header = static_cast<uint32_t>(out.headers.size());
    for (int32_t j = 0; j < header_count && rec.ok(); ++j) {
      RecordHeaderView header;
      std::optional<std::string_view> key;
      read_optional("record.header.key", key);
      if (rec.ok() && !key) rec.Fail("record.header.key", "null header key");
      if (!rec.ok()) break;
      header.key = *key;
      read_optional("record.header.value", header.value);
      out.headers.push_back(header);
    }
    rec.ExpectEnd();
    if (!rec.ok()) return rec.status();
    record.header_count = static_cast<uint32_t>(header_count);
    if (offset_delta <= previous_delta || offset_delta > h.last_offset_delta) {
      return InvalidArgumentError("malformed record batch: record " + std::to_string(i) +
                                  " has offset delta " + std::to_string(offset_delta) +
                                  " (previous " + std::to_string(previous_delta) +
                                  ", lastOffsetDelta " + std::to_string(h.last_offset_delta) +
                                  ")");
    }
    previous_delta = offset_delta;
    record.offset = h.base_offset + offset_delta;
    record.timestamp = h.timestamp_type() == TimestampType::kLogAppendTime
                           ? h.max_timestamp
                           : h.base_timestamp + timestamp_delta;
    out.records.push_back(record);
  }
  if (r.remaining() != 0) {
    return InvalidArgumentError("malformed record batch: " + std::to_string(r.remaining()) +
                                " bytes after the last of " + std::to_string(count) +
                                " records");
  }
  return out;
}

// ---- Building ----

namespace {

size_t OptionalSize(const std::optional<std::string_view>& v) {
  if (!v) return 1;  // varint -1
  return static_cast<size_t>(VarintSize(static_cast<int32_t>(v->size()))) + v->size();
}

void AppendOptional(std::string* out, const std::optional<std::string_view>& v) {
  if (!v) {
    AppendVarint(out, -1);
    return;
  }
  AppendVarint(out, static_cast<int32_t>(v->size()));
  out->append(*v);
}

bool FitsInt32(const std::optional<std::string_view>& v) {
  return !v || v->size() < static_cast<size_t>(std::numeric_limits<int32_t>::max() / 2);
}

void StoreBe16(char* p, uint16_t v) {
  p[0] = static_cast<char>(v >> 8);
  p[1] = static_cast<char>(v);
}

// Fills the 61 header bytes at `batch` (a whole batch of `size` bytes, records included) and
// then its CRC.
void WriteHeaderAndCrc(const BatchOptions& options, int16_t attributes, int32_t last_delta,
                       int64_t base_timestamp, int64_t max_timestamp, int32_t count, char* batch,
                       size_t size) {
  StoreBe64(batch, static_cast<uint64_t>(options.base_offset));
  StoreBe32(batch + 8, static_cast<uint32_t>(size - 12));
  StoreBe32(batch + 12, static_cast<uint32_t>(options.partition_leader_epoch));
  batch[16] = 2;  // magic
  StoreBe16(batch + kAttributesOffset, static_cast<uint16_t>(attributes));
  StoreBe32(batch + 23, static_cast<uint32_t>(last_delta));
  StoreBe64(batch + 27, static_cast<uint64_t>(base_timestamp));
  StoreBe64(batch + 35, static_cast<uint64_t>(max_timestamp));
  StoreBe64(batch + 43, static_cast<uint64_t>(options.producer_id));
  StoreBe16(batch + 51, static_cast<uint16_t>(options.producer_epoch));
  StoreBe32(batch + 53, static_cast<uint32_t>(options.base_sequence));
  StoreBe32(batch + 57, static_cast<uint32_t>(count));
  StoreBe32(batch + kCrcOffset, ComputeCrc(std::string_view(batch, size)));
}

// Zigzag varints into a byte buffer; returns the end.
char* PutUnsigned(char* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}
char* PutVarint(char* p, int32_t v) {
  return PutUnsigned(p, (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
}
char* PutVarlong(char* p, int64_t v) {
  return PutUnsigned(p, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

}  // namespace

Status AppendRecordBatch(const BatchOptions& options, std::span<const NewRecord> records,
                         std::string* out) {
  if (records.empty()) return InvalidArgumentError("a record batch needs at least one record");
  if (records.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return InvalidArgumentError("too many records for one batch");
  }
  const int64_t base_timestamp = records.front().timestamp;
  int64_t max_timestamp = base_timestamp;
  int32_t last_delta = -1;
  // Sized up front: growing the body (and `out`) record by record copies it over and over.
  size_t estimate = 0;
  for (const NewRecord& rec : records) {
    estimate += 24 + OptionalSize(rec.key) + OptionalSize(rec.value);
    for (const RecordHeaderView& header : rec.headers) {
      estimate += OptionalSize(header.key) + OptionalSize(header.value);
    }
  }
  std::string body;
  body.reserve(estimate);
  for (size_t i = 0; i < records.size(); ++i) {
    const NewRecord& rec = records[i];
    const int32_t delta = rec.offset_delta < 0 ? static_cast<int32_t>(i) : rec.offset_delta;
    if (delta <= last_delta) {
      return InvalidArgumentError("record offset deltas must increase (record " +
                                  std::to_string(i) + ")");
    }
    last_delta = delta;
    max_timestamp = std::max(max_timestamp, rec.timestamp);
    const int64_t timestamp_delta = rec.timestamp - base_timestamp;
    if (!FitsInt32(rec.key) || !FitsInt32(rec.value)) {
      return InvalidArgumentError("record key or value too large");
    }
    size_t size = 1 + static_cast<size_t>(VarlongSize(timestamp_delta)) +
                  static_cast<size_t>(VarintSize(delta)) + OptionalSize(rec.key) +
                  OptionalSize(rec.value) +
                  static_cast<size_t>(VarintSize(static_cast<int32_t>(rec.headers.size())));
    for (const RecordHeaderView& header : rec.headers) {
      if (!FitsInt32(header.key) || !FitsInt32(header.value)) {
        return InvalidArgumentError("record header too large");
      }
      size += OptionalSize(header.key) + OptionalSize(header.value);
    }
    if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max() / 2)) {
      return InvalidArgumentError("record too large");
    }
    AppendVarint(&body, static_cast<int32_t>(size));
    body.push_back(0);  // attributes: unused
    AppendVarlong(&body, timestamp_delta);
    AppendVarint(&body, delta);
    AppendOptional(&body, rec.key);
    AppendOptional(&body, rec.value);
    AppendVarint(&body, static_cast<int32_t>(rec.headers.size()));
    for (const RecordHeaderView& header : rec.headers) {
      AppendOptional(&body, header.key);
      AppendOptional(&body, header.value);
    }
  }
  if (options.compression != Compression::kNone) {
    auto compressed = Compress(options.compression, body, options.compress);
    if (!compressed.ok()) return compressed.status();
    body = std::move(compressed).value();
  }
  if (body.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()) - 100) {
    return InvalidArgumentError("record batch too large");
  }
  int16_t attributes = static_cast<int16_t>(options.compression);
  if (options.timestamp_type == TimestampType::kLogAppendTime) {
    attributes |= 0x8;
    max_timestamp = options.log_append_time;
  }
  if (options.transactional) attributes |= 0x10;
  if (options.control) attributes |= 0x20;

  const size_t start = out->size();
  const size_t needed = start + kRecordBatchHeaderSize + body.size();
  if (needed > out->capacity()) out->reserve(std::max(needed, 2 * out->capacity()));
  out->append(kRecordBatchHeaderSize, '\0');
  out->append(body);
  WriteHeaderAndCrc(options, attributes, last_delta, base_timestamp, max_timestamp,
                    static_cast<int32_t>(records.size()), out->data() + start,
                    out->size() - start);
  return Status::Ok();
}

Result<std::string> BuildRecordBatch(const BatchOptions& options,
                                     std::span<const NewRecord> records) {
  std::string out;
  MINK_RETURN_IF_ERROR(AppendRecordBatch(options, records, &out));
  return out;
}

RecordBatchAppender::RecordBatchAppender(std::string* out, size_t expected_bytes)
    : out_(out), start_(out->size()) {
  const size_t needed = start_ + kRecordBatchHeaderSize + expected_bytes;
  if (needed > out->capacity()) out->reserve(std::max(needed, 2 * out->capacity()));
  out->append(kRecordBatchHeaderSize, '\0');  // filled by Finish
}

Status RecordBatchAppender::Add(int64_t timestamp, std::optional<std::string_view> key,
                                std::optional<std::string_view> value,
                                std::span<const RecordHeaderView> headers) {
  if (count_ == std::numeric_limits<int32_t>::max()) {
    return InvalidArgumentError("too many records for one batch");
  }
  if (!FitsInt32(key) || !FitsInt32(value)) {
    return InvalidArgumentError("record key or value too large");
  }
  if (count_ == 0) {
    base_timestamp_ = timestamp;
    max_timestamp_ = timestamp;
  }
  max_timestamp_ = std::max(max_timestamp_, timestamp);
  const int64_t timestamp_delta = timestamp - base_timestamp_;
  const int32_t delta = count_;
  size_t size = 1 + static_cast<size_t>(VarlongSize(timestamp_delta)) +
                static_cast<size_t>(VarintSize(delta)) + OptionalSize(key) + OptionalSize(value) +
                static_cast<size_t>(VarintSize(static_cast<int32_t>(headers.size())));
  for (const RecordHeaderView& header : headers) {
    if (!FitsInt32(header.key) || !FitsInt32(header.value)) {
      return InvalidArgumentError("record header too large");
    }
    size += OptionalSize(header.key) + OptionalSize(header.value);
  }
  if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max() / 2)) {
    return InvalidArgumentError("record too large");
  }
  const size_t total = static_cast<size_t>(VarintSize(static_cast<int32_t>(size))) + size;
  if (out_->size() - start_ + total > static_cast<size_t>(std::numeric_limits<int32_t>::max()) - 100) {
    return InvalidArgumentError("record batch too large");
  }
  if (out_->size() + total > out_->capacity()) {
    out_->reserve(std::max(out_->size() + total, 2 * out_->capacity()));
  }
  // The fixed part (length, attributes, deltas, key length) in one append; a varint takes at
  // most 10 bytes.
  char prefix[48];
  char* p = PutVarint(prefix, static_cast<int32_t>(size));
  *p++ = 0;  // attributes: unused
  p = PutVarlong(p, timestamp_delta);
  p = PutVarint(p, delta);
  p = PutVarint(p, key ? static_cast<int32_t>(key->size()) : -1);
  out_->append(prefix, static_cast<size_t>(p - prefix));
  if (key) out_->append(*key);
  p = PutVarint(prefix, value ? static_cast<int32_t>(value->size()) : -1);
  out_->append(prefix, static_cast<size_t>(p - prefix));
  if (value) out_->append(*value);
  p = PutVarint(prefix, static_cast<int32_t>(headers.size()));
  out_->append(prefix, static_cast<size_t>(p - prefix));
  for (const RecordHeaderView& header : headers) {
    AppendOptional(out_, header.key);
    AppendOptional(out_, header.value);
  }
  ++count_;
  return Status::Ok();
}

Status RecordBatchAppender::Finish(const BatchOptions& options) {
  if (options.compression != Compression::kNone) {
    out_->resize(start_);
    return InvalidArgumentError("RecordBatchAppender writes uncompressed batches only");
  }
  if (count_ == 0) {
    out_->resize(start_);
    return InvalidArgumentError("a record batch needs at least one record");
  }
  int16_t attributes = 0;
  int64_t max_timestamp = max_timestamp_;
  if (options.timestamp_type == TimestampType::kLogAppendTime) {
    attributes |= 0x8;
    max_timestamp = options.log_append_time;
  }
  if (options.transactional) attributes |= 0x10;
  if (options.control) attributes |= 0x20;
  WriteHeaderAndCrc(options, attributes, count_ - 1, base_timestamp_, max_timestamp, count_,
                    out_->data() + start_, out_->size() - start_);
  return Status::Ok();
}

// ---- Offsets in place ----

void SetBaseOffset(char* batch, int64_t base_offset) {
  StoreBe64(batch, static_cast<uint64_t>(base_offset));
}

void SetPartitionLeaderEpoch(char* batch, int32_t epoch) {
  StoreBe32(batch + 12, static_cast<uint32_t>(epoch));
}

Result<int64_t> AssignOffsets(std::string* records, int64_t first_offset) {
  int64_t next = first_offset;
  size_t pos = 0;
  while (pos < records->size()) {
    auto header = ParseHeaderAt(std::string_view(*records).substr(pos), pos);
    if (!header.ok()) return header.status();
    if (header->size() > records->size() - pos) return Malformed(pos, "truncated batch");
    SetBaseOffset(records->data() + pos, next);
    next += static_cast<int64_t>(header->last_offset_delta) + 1;
    pos += header->size();
  }
  return next;
}

}  // namespace mink::kafka
