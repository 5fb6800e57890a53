#pragma once
// TableStore: databases, tables, partitions and buckets on top of the storage layer, for one
// node. It runs DDL through the metadata log, routes written rows to partitions and buckets,
// turns primary-key writes into changelogs with the table's merge engine, keeps the KV state of
// the primary-key buckets this node writes (rebuilt from KV snapshots plus changelog replay),
// and reads logs, changelogs and snapshots back as Arrow record batches.
//
// Thread-safe: writes to one primary-key bucket are serialised; everything else runs in
// parallel.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <thread>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "arrow_format/ipc.h"
#include "arrow_format/record_batch.h"
#include "metadata/metadata_log.h"
#include "storage/stream_store.h"
#include "table/column_stats.h"
#include "table/descriptor.h"

namespace mink::table {

struct TableOptions {
  // A KV snapshot is written after this many changelog records since the previous one.
  int64_t kv_snapshot_records = 100'000;
  // Rows per record batch in reads from the KV state.
  int64_t snapshot_batch_rows = 8192;
  // Writer states of log tables are rebuilt from at most this many trailing offsets.
  int64_t writer_state_replay_offsets = 100'000;
  // Every primary-key bucket whose state moved is snapshotted at least this often, so its
  // changelog can expire (0 = only by kv_snapshot_records).
  std::chrono::milliseconds kv_snapshot_interval{10 * 60'000};
};

enum class WriteMode { kUpsert, kDelete };

struct WriteRequest {
  std::string table;  // "database.table"
  WriteMode mode = WriteMode::kUpsert;
  std::vector<std::string> columns;  // a partial update when not empty
  int64_t writer_id = -1;            // idempotence, with sequence
  int32_t sequence = -1;
};

struct BucketWrite {
  std::string bucket;  // "b0" or "p1/b0"
  int64_t base_offset = 0;
  int64_t end_offset = 0;
};

struct WriteResult {
  int64_t rows = 0;
  std::vector<BucketWrite> buckets;
};

enum class ReadMode { kLog, kSnapshot, kUnion };

struct ReadRequest {
  std::string table;
  ReadMode mode = ReadMode::kLog;
  std::string from = "earliest";  // earliest | latest | <offset>
  int64_t limit = -1;             // rows; -1 = no limit
  bool follow = false;
  std::optional<std::string> partition;
  std::optional<int32_t> bucket;
  std::vector<std::string> columns;  // projection; empty = all
  bool meta = false;                 // __bucket, __offset, __change
  bool timestamp = false;            // __timestamp
  std::optional<int64_t> end;        // log reads (not follow) stop before this offset
};

struct BucketOffsets {
  std::string bucket;
  int64_t start = 0;
  int64_t end = 0;
  std::optional<int64_t> at;
};

struct TableInfo {
  std::string name;  // database.table
  int64_t table_id = 0;
  TableDescriptor descriptor;
  std::vector<std::pair<std::string, int64_t>> partitions;  // name, id (in id order)
};

class TableStore {
 public:
  TableStore(metadata::MetadataLog* meta, storage::StreamStore* storage, TableOptions options = {});
  ~TableStore();

  // Takes back the bucket streams this node owned before a restart (one metadata command),
  // installs the tables' retention rules and starts periodic KV snapshots.
  Status Start();
  void Stop();

  Status CreateDatabase(const std::string& name);
  Status DropDatabase(const std::string& name, bool cascade);
  std::vector<std::string> ListDatabases() const;
  Result<TableInfo> CreateTable(const std::string& name, const TableSpec& spec);
  Status DropTable(const std::string& name);
  // Tables of one database ("" = all), as database.table.
  Result<std::vector<std::string>> ListTables(const std::string& database) const;
  Result<TableInfo> DescribeTable(const std::string& name) const;
  Result<int64_t> InitWriter();

  // Validates every batch, then writes them; returns once everything is committed.
  Result<WriteResult> Write(const WriteRequest& request,
                            const std::vector<arrow::RecordBatchPtr>& batches);

  // The schema a read returns (projection and meta columns applied).
  Result<arrow::SchemaPtr> ReadSchema(const ReadRequest& request) const;
  // Streams the read to `sink` until done, the limit, `sink` returning false, or `cancelled`.
  using BatchSink = std::function<bool(const arrow::RecordBatchPtr&)>;
  Status Read(const ReadRequest& request, const BatchSink& sink,
              const std::function<bool()>& cancelled = nullptr);
  // A log read (kLog) as encoded IPC record batch messages of ReadSchema(request): a batch read
  // whole, without meta or timestamp columns, is sent as stored (its projected columns' buffers
  // copied still compressed, never decoded); any other batch is decoded and encoded uncompressed.
  using MessageSink = std::function<bool(arrow::IpcMessage)>;
  Status ReadMessages(const ReadRequest& request, const MessageSink& sink,
                      const std::function<bool()>& cancelled = nullptr);

  Result<std::vector<BucketOffsets>> Offsets(const std::string& name,
                                             std::optional<int64_t> at_ms);

  // Min/max and null counts of the integer-valued columns of every bucket of a log table, up to
  // each bucket's committed end (table_stats.cc). Computed on first use and cached per bucket;
  // a later call reads only the batches appended since.
  Result<std::vector<BucketColumnStats>> ColumnStats(const std::string& name);

  // ---- Bucket-level access for protocol front ends that address buckets themselves (Kafka
  // partitions are the buckets of a log table).

  // The stream of bucket `bucket` of an unpartitioned table.
  Result<uint64_t> BucketStream(const std::string& name, int32_t bucket) const;

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
  // Appends a batch of the table's full schema to one bucket of an unpartitioned log table,
  // without waiting: `done` gets the commit's status. With writer.id >= 0 the batch's sequence
  // is checked first (writer_state.h): a batch already written is not appended again and answers
  // with its original offsets, and its `done` gets the status of the original's commit once that
  // is known; a sequence out of order is OutOfRange; an epoch older than the writer's is
  // FailedPrecondition (a fenced producer). `max_record_time_ms` is the largest record timestamp
  // of the batch, kept in the index for searches by record time
  // (storage::BatchInput::max_record_time_ms).
  Result<AppendOutcome> AppendToBucket(const std::string& name, int32_t bucket,
                                       const arrow::RecordBatch& batch, int64_t max_record_time_ms,
                                       const WriterBatch& writer, std::function<void(Status)> done);
  // The table's Arrow schema (every column).
  Result<arrow::SchemaPtr> TableSchema(const std::string& name) const;

  // Snapshots every primary-key bucket this node writes whose state moved since its last
  // snapshot (also done automatically every kv_snapshot_records).
  Status SnapshotAll();

 private:
  struct Bucket;
  struct Table;
  struct Target;

  Result<std::shared_ptr<const Table>> FindTable(const std::string& name) const;
  Result<Bucket*> GetBucket(const Table& table, uint64_t stream_id, const std::string& label);
  Status LoadBucket(const Table& table, Bucket* bucket);
  Status MaybeSnapshot(const Table& table, Bucket* bucket, bool force);
  Result<std::vector<Target>> ReadTargets(const Table& table, const ReadRequest& request) const;
  Result<uint64_t> EnsurePartition(const Table& table, const std::string& partition,
                                   int32_t bucket, std::string* label);
  Result<WriteResult> WriteLog(const Table& table, const WriteRequest& request,
                               std::vector<struct RoutedRow>& rows);
  Result<WriteResult> WriteKeyed(const Table& table, const WriteRequest& request,
                                 const std::vector<bool>& targets,
                                 std::vector<struct RoutedRow>& rows);
  Status ReadLog(const Table& table, const ReadRequest& request, const BatchSink& sink,
                 const std::function<bool()>& cancelled, const MessageSink* messages = nullptr);
  Status ReadSnapshot(const Table& table, const ReadRequest& request, const BatchSink& sink);

  metadata::MetadataLog* const meta_;
  storage::StreamStore* const storage_;
  const TableOptions options_;

  mutable std::mutex mutex_;
  std::map<uint64_t, std::unique_ptr<Bucket>> buckets_;  // by stream id
  mutable std::map<int64_t, std::shared_ptr<const Table>> tables_;  // parsed descriptors
  std::atomic<uint64_t> sticky_{0};

  struct StatsEntry;  // table_stats.cc
  std::mutex stats_mutex_;
  std::map<uint64_t, std::shared_ptr<StatsEntry>> stats_;  // by stream id

  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread snapshotter_;
};

}  // namespace mink::table
