#pragma once
// TableStore: the table layer of one node, as the front ends (Flight, Kafka, the node) use it:
// databases, tables, partitions and buckets on top of the storage layer. It is made of rooms,
// each with a header of its own:
//
//   catalog.h           DDL, descriptors, partitions, which streams make up a table
//   bucket_ownership.h  which buckets this node serves (an assignment) and applying that
//   row_router.h        a write's rows checked and routed to partitions and buckets
//   log_writer.h        log-table appends, idempotent writers, Kafka's per-bucket appends
//   pk_writer.h         primary-key writes: merge engines, changelog, KV state, snapshots
//   bucket_state.h      the working state of the buckets this node writes, rebuilt from logs
//   table_reader.h      logs, changelogs, snapshots and offsets read back
//   table_stats.h       column statistics of log tables
//   key_lookup.h        primary-key tables' rows read by key from the KV state
//   bucket_log.h        one bucket's log as a protocol front end addresses it (Kafka)
//   retention.h         each bucket stream's retention rule, from its table
//
// Thread-safe: writes to one primary-key bucket are serialised; everything else runs in
// parallel.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow_format/ipc.h"
#include "arrow_format/record_batch.h"
#include "metadata/metadata_log.h"
#include "storage/stream_store.h"
#include "table/bucket_log.h"
#include "table/bucket_ownership.h"
#include "table/bucket_preloader.h"
#include "table/bucket_state.h"
#include "table/catalog.h"
#include "table/column_stats.h"
#include "table/descriptor.h"
#include "table/key_lookup.h"
#include "table/bucket_rows.h"
#include "table/lake_source.h"
#include "table/log_writer.h"
#include "table/pk_writer.h"
#include "table/requests.h"
#include "table/row_router.h"
#include "table/table_reader.h"
#include "table/table_stats.h"
#include "table/bucket_forwarder.h"

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
  // The log TTL of tables that set no `table.log.ttl` (`mink serve --retention`; 0 = forever).
  std::chrono::milliseconds default_log_ttl{7LL * 24 * 3600 * 1000};
  // The working copies of primary-key buckets (kv/kv_store.h): their directory ("": a temporary
  // one) and the memory all of them share.
  std::string kv_cache_dir;
  uint64_t kv_memory_bytes = 256ULL << 20;
};

class TableStore {
 public:
  using AppendOutcome = table::AppendOutcome;
  using WriterBatch = table::WriterBatch;
  using BatchSink = TableReader::BatchSink;
  using MessageSink = TableReader::MessageSink;

  // `assignment` says which buckets this node serves; null: this node alone serves every
  // bucket (SingleNodeAssignment). `forwarder` sends the rows of buckets other nodes serve to
  // them (a cluster); without one such rows are refused as Unavailable.
  TableStore(metadata::MetadataLog* meta, storage::StreamStore* storage, TableOptions options = {},
             const BucketAssignment* assignment = nullptr, BucketForwarder* forwarder = nullptr);
  ~TableStore();

  // Takes the bucket streams the assignment gives this node (one metadata command), installs
  // the tables' retention rules and starts periodic KV snapshots.
  Status Start();
  void Stop();
  // Does what the assignment says now: stops writing buckets another node took over, releases
  // those assigned elsewhere (after their appends settled, at most `drain_timeout`), opens
  // those assigned here; the working state of each moved bucket is rebuilt before its next
  // write. Whether anything moved.
  Result<bool> FollowAssignment(std::chrono::milliseconds drain_timeout);
  // Releases every bucket this node writes, after their appends settled (a shutdown).
  Status ReleaseAll(std::chrono::milliseconds drain_timeout);
  // Whether this node writes the stream of a bucket now.
  bool Writes(uint64_t stream_id) const { return storage_->Writes(stream_id); }

  Status CreateDatabase(const std::string& name) { return catalog_.CreateDatabase(name); }
  Status DropDatabase(const std::string& name, bool cascade) {
    return catalog_.DropDatabase(name, cascade);
  }
  std::vector<std::string> ListDatabases() const { return catalog_.ListDatabases(); }
  // A tiered table created under the name of a lake catalog table attaches it (the lake's
  // PrepareAttach); a primary-key table's rows in it are loaded into the KV state first, as a
  // KV snapshot at offset 0 of each bucket, which the create command commits.
  Result<TableInfo> CreateTable(const std::string& name, const TableSpec& spec);
  Status DropTable(const std::string& name);
  // Changes a table's columns or options (schema_change.h); its description after the change.
  Result<TableInfo> AlterTable(const std::string& name, const TableAlteration& change) {
    MINK_RETURN_IF_ERROR(catalog_.AlterTable(name, change).status());
    return DescribeTable(name);
  }
  // Tables of one database ("" = all), as database.table.
  Result<std::vector<std::string>> ListTables(const std::string& database) const {
    return catalog_.ListTables(database);
  }
  // The log TTL of tables that set none (0 = forever).
  std::chrono::milliseconds DefaultLogTtl() const { return options_.default_log_ttl; }
  // The descriptor's log TTL is the one that applies (the node's default for a table that sets
  // none).
  Result<TableInfo> DescribeTable(const std::string& name) const {
    MINK_ASSIGN_OR_RETURN(TableInfo info, catalog_.DescribeTable(name));
    info.descriptor.log_ttl_ms = info.descriptor.LogTtlMs(options_.default_log_ttl.count());
    return info;
  }
  Result<int64_t> InitWriter() { return catalog_.AllocateWriterId(); }

  // Validates every batch, then writes them; returns once everything is committed. In a cluster
  // the rows of buckets another node serves are forwarded to it (in parallel with this node's
  // share); a failed share fails the write, and a retry with the same writer id and sequence
  // writes only what is missing.
  Result<WriteResult> Write(const WriteRequest& request,
                            const std::vector<arrow::RecordBatchPtr>& batches);

  Result<arrow::SchemaPtr> ReadSchema(const ReadRequest& request) const {
    return reader_.ReadSchema(request);
  }
  Status Read(const ReadRequest& request, const BatchSink& sink,
              const std::function<bool()>& cancelled = nullptr) {
    return reader_.Read(request, sink, cancelled);
  }
  Status ReadMessages(const ReadRequest& request, const MessageSink& sink,
                      const std::function<bool()>& cancelled = nullptr) {
    return reader_.ReadMessages(request, sink, cancelled);
  }
  Result<std::vector<BucketOffsets>> Offsets(const std::string& name,
                                             std::optional<int64_t> at_ms) {
    return reader_.Offsets(name, at_ms);
  }
  // A primary-key table's current rows by key (KeyLookup): each key's row (a prefix lookup:
  // rows), in key order; missing keys add nothing. In a cluster the keys of buckets another
  // node serves are looked up there.
  Result<arrow::RecordBatchPtr> Lookup(const LookupRequest& request, const arrow::RecordBatch& keys) {
    return lookup_.Lookup(request, keys);
  }
  // The schema of a lookup's answer; refuses a lookup of a log table.
  Result<arrow::SchemaPtr> LookupSchema(const LookupRequest& request) const {
    return lookup_.AnswerSchema(request);
  }
  Result<std::vector<BucketColumnStats>> ColumnStats(const std::string& name) {
    return stats_.ColumnStats(name);
  }

  // ---- Bucket-level access for protocol front ends that address buckets themselves (Kafka
  // partitions are the buckets of a log table).

  // The stream of bucket `bucket` of an unpartitioned table.
  Result<uint64_t> BucketStream(const std::string& name, int32_t bucket) const {
    return catalog_.BucketStream(name, bucket);
  }
  // The node that owns a bucket's stream now (0: none, it is moving).
  Result<int32_t> BucketOwner(const std::string& name, const std::optional<std::string>& partition,
                              int32_t bucket) const;
  // How many buckets each node owns now (BucketOwnership::BucketsPerNode).
  std::map<int32_t, int64_t> BucketsPerNode() const { return ownership_.BucketsPerNode(); }
  // Bucket streams the assignment gives this node that it has not opened yet (a node is ready
  // for traffic at 0).
  size_t BucketsToOpen() const { return ownership_.Pending().take.size(); }
  // A bucket's log: its stored batches, offsets, trimming, waiting for commits.
  BucketLog& bucket_log() { return bucket_log_; }
  // LogWriter::AppendToBucket.
  Result<AppendOutcome> AppendToBucket(const std::string& name, int32_t bucket,
                                       const arrow::RecordBatch& batch, int64_t max_record_time_ms,
                                       const WriterBatch& writer, std::function<void(Status)> done) {
    return log_writer_.AppendToBucket(name, bucket, batch, max_record_time_ms, writer,
                                      std::move(done));
  }
  // The table's Arrow schema (every column).
  Result<arrow::SchemaPtr> TableSchema(const std::string& name) const;

  // ---- For the lake: what tiering reads, and where union reads find the lake.

  // The table as the data paths see it (descriptor parsed, columns typed).
  Result<std::shared_ptr<const ResolvedTable>> Resolve(const std::string& name) const {
    return catalog_.Find(name);
  }
  std::vector<TableBucket> AllBuckets(const ResolvedTable& table) const {
    return catalog_.AllBuckets(table);
  }
  // The rows of a bucket stream at offsets [from, end) under the current schema (bucket_rows.h).
  Status VisitBucketRows(const ResolvedTable& table, uint64_t stream, int64_t from, int64_t end,
                         const std::function<Status(Row, ChangeType, int64_t)>& visit) {
    return table::VisitBucketRows(storage_, table, stream, from, end, visit);
  }
  // The table's current lake snapshot; FailedPrecondition for a table that is not tiered.
  Result<LakeSnapshotInfo> LakeSnapshot(const std::string& name) const;
  // The lake union reads read (null: none).
  void SetLake(LakeSource* lake) {
    reader_.SetLake(lake);
    lake_ = lake;
  }

  // Snapshots every primary-key bucket this node writes whose state moved since its last
  // snapshot (also done automatically every kv_snapshot_records).
  Status SnapshotAll() { return pk_writer_.SnapshotAll(); }
  KvStats kv_stats() const { return buckets_.kv_stats(); }

 private:
  int32_t StreamOwner(uint64_t stream_id) const;
  // BucketPreloader's work: loads the state of a bucket this node writes.
  void Preload(uint64_t stream);
  // Before a planned release: leaves each stream's idempotent writers for its next owner
  // (BucketStates::Load reads them instead of replaying the log).
  void CheckpointWriters(const std::vector<uint64_t>& streams);
  Result<WriteResult> WriteHere(const ResolvedTable& table, const WriteRequest& request,
                                const std::vector<bool>& targets, std::vector<RoutedRow>& rows);
  Result<WriteResult> WriteInCluster(const ResolvedTable& table, const WriteRequest& request,
                                     RoutedWrite& routed);
  // A bucket of `partition` this node writes, trying `first` first; none if it writes none.
  Result<std::optional<int32_t>> ServedBucket(const ResolvedTable& table,
                                              const std::string& partition, int32_t first);

  metadata::MetadataLog* const meta_;
  BucketForwarder* const forwarder_;
  storage::StreamStore* const storage_;
  std::atomic<LakeSource*> lake_{nullptr};
  const TableOptions options_;
  const SingleNodeAssignment single_node_;
  BucketOwnership ownership_;
  Catalog catalog_;
  BucketStates buckets_;
  LogWriter log_writer_;
  PrimaryKeyWriter pk_writer_;
  TableReader reader_;
  ColumnStatsCache stats_;
  BucketLog bucket_log_;
  KeyLookup lookup_;
  std::atomic<uint64_t> sticky_{0};  // the bucket of the next write to a table without a key
  // Rebuilds taken-over buckets' state ahead of their first write; reset by Stop().
  std::unique_ptr<BucketPreloader> preloader_;
};

}  // namespace mink::table
