#pragma once
// Idempotent writes: per bucket, each writer's epoch and its last five batches (sequence and
// offsets), so a retried batch is answered with its original offsets instead of being written
// twice. Sequences of one writer must grow (a Kafka producer's must grow by exactly one, see
// `strict`); a sequence at or below the last one that is not among the five is OutOfRange ("out
// of order"). A writer with no state (new, or expired) may start anywhere. A writer's epoch
// (Kafka's producer epoch, which librdkafka raises by itself after a lost request) starts its
// sequences again: a batch of a newer epoch begins a new history (at sequence 0 when strict),
// and one of an older epoch is refused (FailedPrecondition: a fenced producer).
// Kept in every snapshot of the bucket (KV snapshots; a log bucket's snapshot holds only its
// writers) and in a writers checkpoint at a planned hand-off, so a new owner rebuilds them
// completely: the snapshot's writers, then the batch headers after its offset. A writer that
// wrote nothing for kIdleExpiryMs (a day, as Kafka's producer.id.expiration.ms) is forgotten
// when the bucket is snapshotted.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace mink::table {

// The commit of one append, as the retries of its batch wait for it: a retry is answered only
// once the batch it repeats is durable, with that commit's status.
class PendingCommit {
 public:
  // Calls `done` with the commit's status, at once if it is known.
  void OnDone(std::function<void(Status)> done);
  void Resolve(const Status& status);

 private:
  std::mutex mutex_;
  std::optional<Status> status_;
  std::vector<std::function<void(Status)>> waiting_;
};

struct WrittenBatch {
  int32_t sequence = 0;       // the first sequence of the batch
  int64_t base_offset = 0;
  int64_t end_offset = 0;
  int32_t last_sequence = -1;  // Kafka batches span sequences; -1 = same as sequence
  // The append's commit while it may still be running; null for batches read from the log.
  std::shared_ptr<PendingCommit> commit;
  // When it was written (its commit time when read from the log); 0: now, set by Record.
  int64_t time_ms = 0;
  int32_t Last() const { return last_sequence < 0 ? sequence : last_sequence; }
};

class WriterStates {
 public:
  static constexpr size_t kKept = 5;
  // The epoch of writers that have none (Flight writers) and every writer's first.
  static constexpr int16_t kFirstEpoch = 0;
  static constexpr int64_t kIdleExpiryMs = 24LL * 3600 * 1000;

  // A batch already written (a retry), or nullopt when it is new and in order. Errors for a
  // sequence out of order (OutOfRange) or an epoch older than the writer's (FailedPrecondition).
  // `strict` requires sequence == last + 1 (Kafka producers), where last is the last sequence of
  // the previous batch, and sequence 0 to begin a new epoch; a strict batch past a gap is
  // Aborted (nothing stored, to be retried once the missing batches are in), one at or below
  // the last that is not among the kept batches OutOfRange.
  Result<std::optional<WrittenBatch>> Check(int64_t writer_id, int16_t epoch, int32_t sequence,
                                            bool strict) const;
  // Records a batch written at `epoch`; a newer epoch than the writer's replaces its history.
  void Record(int64_t writer_id, int16_t epoch, WrittenBatch batch);
  void Clear() { writers_.clear(); }
  size_t writers() const { return writers_.size(); }
  // The largest end offset of any batch kept (0 with none).
  int64_t MaxEndOffset() const;
  // Forgets the writers whose newest batch was written before `before_ms`.
  void Expire(int64_t before_ms);

  // The states as a checkpoint of the stream below `end_offset` (JSON), and back: only batches
  // that end at or below it (every one of them is committed when `end_offset` is).
  std::string EncodeCheckpoint(int64_t end_offset) const;
  static Result<WriterStates> DecodeCheckpoint(std::string_view text, int64_t* end_offset);

 private:
  struct Writer {
    int16_t epoch = 0;
    std::deque<WrittenBatch> batches;
  };
  std::map<int64_t, Writer> writers_;
};

}  // namespace mink::table
