#pragma once
// BucketLog: the log of one bucket of a log table as a protocol front end addresses it (a Kafka
// partition's records are its bucket's batches, its offsets the bucket's offsets): the stored
// batches from an offset, the readable range, trimming the start (Kafka's DeleteRecords), the
// ranges of offsets that can hold records from a time on, and waiting for new commits (a long
// poll). Appends go through LogWriter::AppendToBucket.
//
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "metadata/metadata_log.h"
#include "storage/stream_store.h"
#include "table/catalog.h"

namespace mink::table {

class BucketLog {
 public:
  BucketLog(metadata::MetadataLog* meta, storage::StreamStore* storage, const Catalog* catalog)
      : meta_(meta), storage_(storage), catalog_(catalog) {}

  // The stream of bucket `bucket` of an unpartitioned log table.
  Result<uint64_t> Stream(const std::string& table, int32_t bucket) const {
    return catalog_->BucketStream(table, bucket);
  }
  struct Range {
    int64_t start = 0;  // the first readable offset (the log start)
    int64_t end = 0;    // the offset after the last committed record (the high watermark)
    // The stream's epoch: it grows each time an owner opens the stream (a restart, a move), so
    // it is the partition's leader epoch in Kafka's terms.
    int64_t epoch = 0;
  };
  // Nothing for a stream the metadata does not know (a dropped table's).
  std::optional<Range> OffsetRange(uint64_t stream) const;
  // The stored batches from `offset` on, about `max_bytes` of them (at least one). OutOfRange
  // below the start or beyond the end; nothing at the end.
  Result<storage::ReadResult> Read(uint64_t stream, int64_t offset, size_t max_bytes) const {
    return storage_->Read(stream, offset, max_bytes);
  }
  // Moves the log start to `offset` (records below it are no longer readable).
  Status TrimBefore(uint64_t stream, int64_t offset) { return storage_->Trim(stream, offset); }
  // The offset ranges whose segments can hold a record with a timestamp at or after
  // `record_time_ms` (storage::StreamStore::RecordTimeRanges).
  std::vector<std::pair<int64_t, int64_t>> RecordTimeRanges(uint64_t stream,
                                                            int64_t record_time_ms,
                                                            int64_t undeclared_slack_ms) const {
    return storage_->RecordTimeRanges(stream, record_time_ms, undeclared_slack_ms);
  }

  // A position in the sequence of commits, for waiting on new ones.
  int64_t CommitPosition() const { return meta_->applied_seq(); }
  // Waits until a commit after `seen` (at most `timeout`); the position then.
  int64_t WaitForCommit(int64_t seen, std::chrono::milliseconds timeout) const {
    return meta_->WaitApplied(seen, timeout);
  }

 private:
  metadata::MetadataLog* const meta_;
  storage::StreamStore* const storage_;
  const Catalog* const catalog_;
};

}  // namespace mink::table
