#include "table/log_writer.h"

#include <algorithm>
#include <mutex>
#include <optional>

#include "table/arrow_rows.h"
#include "table/payload.h"
#include "table/pending_append.h"

namespace mink::table {

Result<WriteResult> LogWriter::Write(const ResolvedTable& table, const WriteRequest& request,
                                     std::vector<RoutedRow>& rows) {
  // Every bucket's batch is prepared and checked before any is appended, so a write that is
  // refused in one bucket stores nothing in the others.
  struct Work {
    std::string label;
    uint64_t stream = 0;
    BucketState* bucket = nullptr;  // idempotent writes only
    std::vector<RoutedRow*> rows;
    std::optional<WrittenBatch> written;  // a retry: the batch already stored
    storage::BatchInput input;
  };
  std::vector<Work> work;
  for (auto& [where, group] : GroupByBucket(rows)) {
    Work& w = work.emplace_back();
    MINK_ASSIGN_OR_RETURN(w.stream,
                          catalog_->EnsurePartition(table, where.first, where.second, &w.label));
    w.rows = std::move(group);
  }
  // An idempotent writer's sequence is checked and recorded under the buckets' locks, taken in
  // stream order so that two writes never wait on each other in a cycle.
  std::vector<std::unique_lock<std::mutex>> locks;
  if (request.writer_id >= 0) {
    std::vector<Work*> order;
    for (auto& w : work) order.push_back(&w);
    std::sort(order.begin(), order.end(), [](Work* a, Work* b) { return a->stream < b->stream; });
    for (Work* w : order) {
      w->bucket = buckets_->Get(w->stream, w->label);
      locks.emplace_back(w->bucket->mutex);
      MINK_RETURN_IF_ERROR(buckets_->LoadToWrite(table, w->bucket));
      MINK_ASSIGN_OR_RETURN(w->written,
                            buckets_->CheckWriter(table, w->bucket, request.writer_id,
                                                  WriterStates::kFirstEpoch, request.sequence, false));
    }
  }
  for (auto& w : work) {
    if (w.written) continue;
    std::vector<const Row*> group_rows;
    for (auto* r : w.rows) group_rows.push_back(&r->row);
    MINK_RETURN_IF_ERROR(FillBatchInput(table, group_rows, request, &w.input));
    if (w.bucket != nullptr) w.input.expect_stream_epoch = w.bucket->loaded_epoch;
  }

  WriteResult result;
  result.rows = static_cast<int64_t>(rows.size());
  Status failure;
  std::vector<std::pair<Work*, PendingAppend>> pending;
  for (auto& w : work) {
    if (w.written) {
      result.buckets.push_back({w.label, w.written->base_offset, w.written->end_offset});
      continue;
    }
    auto submitted = SubmitAppend(storage_, w.stream, w.label, std::move(w.input));
    if (!submitted.ok()) {
      failure = submitted.status();
      break;
    }
    pending.emplace_back(&w, std::move(*submitted));
  }
  for (auto& [w, append] : pending) {
    Status s = append.done.get();
    if (!s.ok()) {
      if (failure.ok()) failure = s;
      // The commit may still have landed (an ambiguous failure): rebuild from the log.
      if (w->bucket != nullptr) w->bucket->writers_stale = true;
      continue;
    }
    if (w->bucket != nullptr) {
      // A table whose writers number records (a Kafka topic's) counts this batch's records as
      // its sequences, as the log's replay will.
      const int32_t last = table.d.sequence_per_record
                               ? request.sequence + static_cast<int32_t>(append.end - append.base) - 1
                               : -1;
      w->bucket->writers.Record(request.writer_id, WriterStates::kFirstEpoch,
                                WrittenBatch{request.sequence, append.base, append.end, last});
      buckets_->NoteWritten(w->bucket, append.end);
    }
    result.buckets.push_back({append.label, append.base, append.end});
  }
  if (!failure.ok()) return failure;
  return result;
}

Result<AppendOutcome> LogWriter::AppendToBucket(
    const std::string& name, int32_t bucket_index, const arrow::RecordBatch& batch,
    int64_t max_record_time_ms, const WriterBatch& writer, std::function<void(Status)> done) {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_->Find(name));
  if (table->d.has_primary_key()) {
    return FailedPreconditionError(name + " is a primary-key table; bucket appends need a log table");
  }
  if (!batch.schema()->Equals(*table->schema, false)) {
    return InvalidArgumentError("batch schema does not match table " + name);
  }
  if (batch.num_rows() <= 0) return InvalidArgumentError("an empty batch");
  MINK_ASSIGN_OR_RETURN(uint64_t stream, catalog_->BucketStream(name, bucket_index));
  storage::BatchInput input;
  input.record_count = static_cast<int32_t>(batch.num_rows());
  input.writer_id = writer.id;
  input.writer_epoch = writer.epoch;
  input.batch_sequence = writer.first_sequence;
  input.schema_id = table->d.schema.schema_id;
  input.max_record_time_ms = max_record_time_ms;
  MINK_ASSIGN_OR_RETURN(input.payload, EncodePayload(batch, table->codec));
  if (writer.id < 0) {
    MINK_ASSIGN_OR_RETURN(int64_t base, storage_->Append(stream, std::move(input), std::move(done)));
    return AppendOutcome{base, false};
  }
  // Idempotent: check, append and record under the bucket's lock, so batches of one writer are
  // checked in the order they are appended. The state counts a batch as written from its append;
  // if the append fails, the state is rebuilt from the log before the next check.
  BucketState* bucket = buckets_->Get(stream, BucketLabel(0, bucket_index));
  std::unique_lock<std::mutex> lock(bucket->mutex);
  MINK_RETURN_IF_ERROR(buckets_->LoadToWrite(*table, bucket));
  MINK_ASSIGN_OR_RETURN(auto written, buckets_->CheckWriter(*table, bucket, writer.id, writer.epoch,
                                                            writer.first_sequence, writer.strict));
  if (written) {
    if (written->Last() != writer.last_sequence) {
      return OutOfRangeError("batch with sequences " + std::to_string(writer.first_sequence) +
                             ".." + std::to_string(writer.last_sequence) +
                             " overlaps an earlier batch of writer " + std::to_string(writer.id));
    }
    lock.unlock();
    // A retry is answered when the batch it repeats is committed, with that commit's status.
    if (written->commit) {
      written->commit->OnDone(std::move(done));
    } else {
      done(Status::Ok());
    }
    return AppendOutcome{written->base_offset, true};
  }
  int32_t count = input.record_count;
  input.expect_stream_epoch = bucket->loaded_epoch;
  auto commit = std::make_shared<PendingCommit>();
  auto callback = [bucket, commit, done = std::move(done)](Status s) {
    // Rebuild the writer states from what is committed before the next check. (No lock here:
    // this runs on the thread making storage commits, which an appender holding the lock may
    // wait for.)
    if (!s.ok()) bucket->writers_stale = true;
    commit->Resolve(s);
    done(std::move(s));
  };
  MINK_ASSIGN_OR_RETURN(int64_t base, storage_->Append(stream, std::move(input), std::move(callback)));
  bucket->writers.Record(writer.id, writer.epoch,
                         WrittenBatch{writer.first_sequence, base, base + count,
                                      writer.last_sequence, std::move(commit)});
  buckets_->NoteWritten(bucket, base + count);
  return AppendOutcome{base, false};
}

}  // namespace mink::table
