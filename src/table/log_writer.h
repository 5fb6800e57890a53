#pragma once
// LogWriter: appends to the buckets of log tables. A write's rows go to their buckets as one
// batch per bucket, all submitted before any commit is waited for. Idempotent writers (a writer
// id and a sequence) are checked per bucket first, so a retried write answers with its first
// offsets (writer_state.h). Protocol front ends that address buckets themselves (Kafka:
// partitions are buckets) append one batch to one bucket without waiting (AppendToBucket),
// with Kafka's strict sequences and producer epochs.
//
// Thread-safe: an idempotent writer's batches to a bucket are checked and appended under the
// bucket's lock; everything else runs in parallel.

#include <cstdint>
#include <functional>
#include <vector>

#include "arrow_format/record_batch.h"
#include "storage/stream_store.h"
#include "table/bucket_state.h"
#include "table/catalog.h"
#include "table/requests.h"
#include "table/row_router.h"

namespace mink::table {

struct AppendOutcome {
  int64_t base_offset = 0;
  bool duplicate = false;  // a retried batch: already written at base_offset, nothing appended
};

// Who appends a batch, for idempotence: an idempotent writer (Kafka's producer id and epoch)
// and the batch's first and last sequence; id -1 for none.
struct WriterBatch {
  int64_t id = -1;
  int16_t epoch = 0;
  int32_t first_sequence = -1;
  int32_t last_sequence = -1;
  bool strict = false;  // sequences grow by exactly one, a new epoch starts at 0 (Kafka)
};

class LogWriter {
 public:
  LogWriter(Catalog* catalog, BucketStates* buckets, storage::StreamStore* storage)
      : catalog_(catalog), buckets_(buckets), storage_(storage) {}

  // Writes routed rows of a log table; returns once every bucket's batch is committed.
  Result<WriteResult> Write(const ResolvedTable& table, const WriteRequest& request,
                            std::vector<RoutedRow>& rows);

  // Appends a batch of the table's full schema to one bucket of an unpartitioned log table,
  // without waiting: `done` gets the commit's status. With writer.id >= 0 the batch's sequence
  // is checked first (writer_state.h): a batch already written is not appended again and
  // answers with its original offsets, and its `done` gets the status of the original's commit
  // once that is known; a sequence out of order is OutOfRange; an epoch older than the
  // writer's is FailedPrecondition (a fenced producer). `max_record_time_ms` is the largest
  // record timestamp of the batch, kept in the index for searches by record time
  // (storage::BatchInput::max_record_time_ms).
  Result<AppendOutcome> AppendToBucket(const std::string& name, int32_t bucket,
                                       const arrow::RecordBatch& batch, int64_t max_record_time_ms,
                                       const WriterBatch& writer, std::function<void(Status)> done);

 private:
  Catalog* const catalog_;
  BucketStates* const buckets_;
  storage::StreamStore* const storage_;
};

}  // namespace mink::table
