#pragma once
// The record batch of a stream, as stored in objects: a fixed 56-byte header, then one change-type
// byte per record (primary-key changelogs only), then the payload (an Arrow IPC record batch for
// tables; opaque bytes to this layer). docs/formats/stream-batch.md has the byte layout.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/shared_bytes.h"
#include "metadata/commands.h"

namespace mink::storage {

inline constexpr uint32_t kBatchMagic = 0x3142'4B4D;  // "MKB1" little-endian
inline constexpr size_t kBatchHeaderSize = 56;
inline constexpr int64_t kNoWriter = -1;

// What a writer hands to Append; offsets and the commit time are assigned by the stream.
struct BatchInput {
  int32_t record_count = 0;
  int64_t writer_id = kNoWriter;  // idempotent writers: id, epoch and sequence
  int16_t writer_epoch = 0;       // a writer's epoch (Kafka's producer epoch)
  int32_t batch_sequence = -1;
  int32_t schema_id = 0;
  std::string change_types;  // empty, or one byte per record
  std::string payload;
  // The largest record timestamp the writer declares for the batch (Kafka records carry one),
  // or kUnknownRecordTime. Not stored in the batch: it becomes its segment's bound in the index,
  // which searches by record time use to skip segments.
  int64_t max_record_time_ms = metadata::kUnknownRecordTime;
  // When set (>= 0), the append is refused (Aborted) unless this node writes the stream at this
  // epoch: a writer whose state (idempotent writers, a KV state) was built at one ownership of
  // the stream never appends under a later one, which another owner may have written between.
  int64_t expect_stream_epoch = -1;
};

// A batch as read back.
struct Batch {
  int64_t base_offset = 0;
  int32_t record_count = 0;
  int64_t timestamp_ms = 0;  // commit time assigned when the WAL object was sealed
  int64_t writer_id = kNoWriter;
  int16_t writer_epoch = 0;
  int32_t batch_sequence = -1;
  int32_t schema_id = 0;
  std::string change_types;
  SharedBytes payload;  // read back: a view into the fetched run (DecodeBatches)

  int64_t end_offset() const { return base_offset + record_count; }
};

// Appends the encoded batch to `out`.
void EncodeBatch(const BatchInput& input, int64_t base_offset, int64_t timestamp_ms,
                 std::string* out);
size_t EncodedBatchSize(const BatchInput& input);

// Decodes every batch in `data` (a run of consecutive batches), verifying each checksum.
// With an `owner` that keeps `data` alive the payloads are views into it; without one each
// payload is copied. Errors are DataLoss naming `where` (the object key) and the byte position.
Result<std::vector<Batch>> DecodeBatches(std::string_view data, const std::string& where,
                                         uint64_t base_position = 0,
                                         const std::shared_ptr<const void>& owner = nullptr);

// Positions of the batches in a run, without copying payloads; checksums are verified.
struct BatchSpan {
  uint64_t position = 0;
  uint32_t length = 0;
  int64_t base_offset = 0;
  int32_t record_count = 0;
  int64_t timestamp_ms = 0;
};
Result<std::vector<BatchSpan>> ScanBatches(std::string_view data, const std::string& where,
                                           uint64_t base_position = 0);

}  // namespace mink::storage
