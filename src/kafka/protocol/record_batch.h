#pragma once
// Kafka RecordBatch v2 (magic 2): splitting a RECORDS blob into batches, decoding their records
// (decompressing, bounded), building batches, and assigning offsets in place.
//
// Byte layout (offsets from the batch start): baseOffset i64 @0, batchLength i32 @8,
// partitionLeaderEpoch i32 @12, magic i8 @16, crc u32 @17 (CRC-32C of bytes [21, end)),
// attributes i16 @21, lastOffsetDelta i32 @23, baseTimestamp i64 @27, maxTimestamp i64 @35,
// producerId i64 @43, producerEpoch i16 @51, baseSequence i32 @53, recordsCount i32 @57,
// records @61 (one compressed blob when the codec is not none). baseOffset and
// partitionLeaderEpoch are outside the CRC, so a server can assign offsets and store and serve
// batches verbatim. Legacy message sets (magic 0/1, same magic position) are refused.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "kafka/protocol/compression.h"

namespace mink::kafka {

constexpr size_t kRecordBatchHeaderSize = 61;
constexpr size_t kDefaultMaxDecompressedBatchSize = 64u << 20;  // 64 MiB

enum class TimestampType : uint8_t { kCreateTime = 0, kLogAppendTime = 1 };

struct RecordBatchHeader {
  int64_t base_offset = 0;
  int32_t batch_length = 0;  // bytes after this field: the batch is batch_length + 12 bytes
  int32_t partition_leader_epoch = -1;
  int8_t magic = 2;
  uint32_t crc = 0;
  int16_t attributes = 0;
  int32_t last_offset_delta = 0;
  int64_t base_timestamp = 0;
  int64_t max_timestamp = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  int32_t records_count = 0;

  Compression compression() const { return static_cast<Compression>(attributes & 0x7); }
  TimestampType timestamp_type() const {
    return (attributes & 0x8) ? TimestampType::kLogAppendTime : TimestampType::kCreateTime;
  }
  bool is_transactional() const { return (attributes & 0x10) != 0; }
  bool is_control() const { return (attributes & 0x20) != 0; }
  bool has_delete_horizon() const { return (attributes & 0x40) != 0; }
  int64_t last_offset() const { return base_offset + last_offset_delta; }
  // baseSequence + lastOffsetDelta, wrapping past INT32_MAX to 0 as idempotent producers do;
  // -1 when the batch carries no sequence.
  int32_t last_sequence() const {
    if (base_sequence < 0) return -1;
    const int64_t last = static_cast<int64_t>(base_sequence) + last_offset_delta;
    return static_cast<int32_t>(last > INT32_MAX ? last - INT32_MAX - 1 : last);
  }
  size_t size() const { return static_cast<size_t>(batch_length) + 12; }
};

// One batch inside a RECORDS blob.
struct BatchView {
  RecordBatchHeader header;
  std::string_view bytes;  // the whole batch, header included
};

struct SplitOptions {
  bool verify_crc = true;
  // A fetch response may end with a partial batch (the broker cuts at max_bytes): stop cleanly
  // there. Produce requests must not carry one: leave this false for them.
  bool allow_truncated_tail = false;
};

// Parses and checks the fixed header of the batch at the start of `bytes` (which must hold the
// whole batch unless only the header is wanted): magic 2, a batchLength that covers at least the
// header, a known codec. Does not check the CRC.
Result<RecordBatchHeader> ParseBatchHeader(std::string_view bytes);

// Splits RECORDS bytes into batches, checking each header and (by default) its CRC.
// InvalidArgument "malformed record batch at byte N: ..." on any inconsistency; a legacy
// message set gives "unsupported record batch magic 1 ...".
Result<std::vector<BatchView>> SplitBatches(std::string_view records,
                                            const SplitOptions& options = {});

// Recomputes the CRC of a whole batch and compares it with the stored one.
bool BatchCrcMatches(std::string_view batch);

struct RecordHeaderView {
  std::string_view key;
  std::optional<std::string_view> value;
};

struct RecordView {
  int64_t offset = 0;     // base_offset + offsetDelta
  int64_t timestamp = 0;  // base_timestamp + timestampDelta (max_timestamp for LogAppendTime)
  int8_t attributes = 0;
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  uint32_t first_header = 0;  // index into DecodedBatch::headers
  uint32_t header_count = 0;
};

// The records of one batch. Views point into `storage` for compressed batches and into the
// caller's bytes (which must outlive this) for uncompressed ones.
struct DecodedBatch {
  RecordBatchHeader header;
  std::vector<RecordView> records;
  std::vector<RecordHeaderView> headers;  // every record's headers, in order
  std::unique_ptr<std::string> storage;   // decompressed records, if the batch was compressed

  std::span<const RecordHeaderView> HeadersOf(const RecordView& record) const {
    return std::span<const RecordHeaderView>(headers).subspan(record.first_header,
                                                              record.header_count);
  }
};

struct DecodeOptions {
  // Upper bound of a batch's decompressed records; more is ResourceExhausted.
  size_t max_decompressed_bytes = kDefaultMaxDecompressedBatchSize;
};

// Decodes every record of `batch` (from SplitBatches). Checks that the record count, lengths and
// offset deltas agree with the header.
Result<DecodedBatch> DecodeBatch(const BatchView& batch, const DecodeOptions& options = {});

// ---- Building ----

struct NewRecord {
  int64_t timestamp = 0;  // milliseconds since the epoch
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  std::vector<RecordHeaderView> headers;
  int32_t offset_delta = -1;  // -1: the record's index in the batch; else strictly increasing
};

struct BatchOptions {
  int64_t base_offset = 0;
  int32_t partition_leader_epoch = -1;
  Compression compression = Compression::kNone;
  CompressOptions compress;
  TimestampType timestamp_type = TimestampType::kCreateTime;
  // For LogAppendTime batches: the broker's append time, written as maxTimestamp.
  int64_t log_append_time = -1;
  bool transactional = false;
  bool control = false;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
};

// Appends one batch holding `records` (at least one) to `out`, with its CRC.
Status AppendRecordBatch(const BatchOptions& options, std::span<const NewRecord> records,
                         std::string* out);
Result<std::string> BuildRecordBatch(const BatchOptions& options,
                                     std::span<const NewRecord> records);

// Writes one uncompressed batch straight into `out`, record by record, with no intermediate body
// or record list: for a server re-encoding stored records. Add the records, then Finish, which
// fills the header (counts, timestamps, options) and the CRC. The bytes are those
// AppendRecordBatch writes for the same records and options (offset deltas are the record
// indexes). A Finish that fails (no record, a compression codec) takes the batch out of `out`
// again; until Finish, `out` ends with an unfinished batch.
class RecordBatchAppender {
 public:
  // `expected_bytes`: the batch's likely size, reserved up front (0: no reservation).
  RecordBatchAppender(std::string* out, size_t expected_bytes);

  // InvalidArgument when a key, value or header does not fit the format's int32 lengths.
  Status Add(int64_t timestamp, std::optional<std::string_view> key,
             std::optional<std::string_view> value, std::span<const RecordHeaderView> headers);
  // `options.compression` must be none and the offset deltas are the indexes; the options'
  // timestamp type, producer and sequence fields are written as given.
  Status Finish(const BatchOptions& options);

  int32_t records() const { return count_; }

 private:
  std::string* const out_;
  const size_t start_;
  int32_t count_ = 0;
  int64_t base_timestamp_ = 0;
  int64_t max_timestamp_ = 0;
};

// ---- Offsets in place (outside the CRC) ----

// Overwrites the baseOffset of the batch starting at `batch` (at least 8 bytes).
void SetBaseOffset(char* batch, int64_t base_offset);
void SetPartitionLeaderEpoch(char* batch, int32_t epoch);

// Gives the batches of a checked RECORDS blob consecutive offsets starting at `first_offset`
// (each batch's base offset = the previous batch's last offset + 1). Returns the offset after
// the last record. `records` must have passed SplitBatches.
Result<int64_t> AssignOffsets(std::string* records, int64_t first_offset);

}  // namespace mink::kafka
