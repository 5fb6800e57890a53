#pragma once
// Idempotent writes: per bucket, the last five batches of each writer id (sequence and offsets),
// so a retried batch is answered with its original offsets instead of being written twice.
// Sequences of one writer must grow (a Kafka producer's must grow by exactly one, see `strict`);
// a sequence at or below the last one that is not among the five is OutOfRange ("out of order").
// A writer with no state (new, or expired) may start anywhere.
// Rebuilt on restart from the batch headers in the stream.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>

#include "base/result.h"

namespace mink::table {

struct WrittenBatch {
  int32_t sequence = 0;       // the first sequence of the batch
  int64_t base_offset = 0;
  int64_t end_offset = 0;
  int32_t last_sequence = -1;  // Kafka batches span sequences; -1 = same as sequence
  int32_t Last() const { return last_sequence < 0 ? sequence : last_sequence; }
};

class WriterStates {
 public:
  static constexpr size_t kKept = 5;

  // A batch already written (a retry), or nullopt when it is new and in order. Errors for a
  // sequence out of order. `strict` requires sequence == last + 1 (Kafka producers), where last
  // is the last sequence of the previous batch.
  Result<std::optional<WrittenBatch>> Check(int64_t writer_id, int32_t sequence, bool strict) const;
  void Record(int64_t writer_id, const WrittenBatch& batch);
  void Clear() { writers_.clear(); }
  size_t writers() const { return writers_.size(); }

 private:
  std::map<int64_t, std::deque<WrittenBatch>> writers_;
};

}  // namespace mink::table
