#pragma once
// TableReader: reads tables back as Arrow record batches: the bucket logs (a log table's rows,
// a primary-key table's changelog), from an offset or the ends, once or following new commits,
// with projection and the metadata columns (__bucket, __offset, __change, __timestamp); the KV
// state of a primary-key table (snapshot mode); and each bucket's offsets.
//
// Thread-safe.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "arrow_format/ipc.h"
#include "arrow_format/record_batch.h"
#include "metadata/metadata_log.h"
#include "storage/stream_store.h"
#include "table/bucket_state.h"
#include "table/catalog.h"
#include "table/requests.h"
#include "table/union_reader.h"

namespace mink::table {

class TableReader {
 public:
  using BatchSink = std::function<bool(const arrow::RecordBatchPtr&)>;
  using MessageSink = std::function<bool(arrow::IpcMessage)>;

  TableReader(metadata::MetadataLog* meta, storage::StreamStore* storage, Catalog* catalog,
              BucketStates* buckets, int64_t snapshot_batch_rows)
      : meta_(meta),
        storage_(storage),
        catalog_(catalog),
        buckets_(buckets),
        snapshot_batch_rows_(snapshot_batch_rows),
        union_(storage, catalog) {}

  // The lake union reads of tiered tables read (null: none).
  void SetLake(LakeSource* lake) { union_.SetLake(lake); }

  // The schema a read returns (projection and meta columns applied).
  Result<arrow::SchemaPtr> ReadSchema(const ReadRequest& request) const;
  // Streams the read to `sink` until done, the limit, `sink` returning false, or `cancelled`.
  Status Read(const ReadRequest& request, const BatchSink& sink,
              const std::function<bool()>& cancelled = nullptr);
  // A log read as encoded IPC record batch messages of ReadSchema(request): a batch read whole,
  // without meta or timestamp columns, is sent as stored (its projected columns' buffers copied
  // still compressed, never decoded); any other batch is decoded and encoded uncompressed.
  Status ReadMessages(const ReadRequest& request, const MessageSink& sink,
                      const std::function<bool()>& cancelled = nullptr);
  // Each bucket's start and end offsets, and with `at_ms` the first offset committed at or
  // after that time.
  Result<std::vector<BucketOffsets>> Offsets(const std::string& name, std::optional<int64_t> at_ms);

 private:
  Status ReadLog(const ResolvedTable& table, const ReadRequest& request, const BatchSink& sink,
                 const std::function<bool()>& cancelled, const MessageSink* messages = nullptr);
  Status ReadSnapshot(const ResolvedTable& table, const ReadRequest& request,
                      const BatchSink& sink);

  metadata::MetadataLog* const meta_;
  storage::StreamStore* const storage_;
  Catalog* const catalog_;
  BucketStates* const buckets_;
  const int64_t snapshot_batch_rows_;
  UnionReader union_;
};

}  // namespace mink::table
