#pragma once
// UnionReader: a tiered table read whole (ReadMode::kUnion): each bucket's lake rows
// (LakeSource) merged with its log from the bucket's tiered offset. A log table's lake rows come
// first, then the log after them; a primary-key table's changes after the lake replace or
// delete its keys' rows, so the answer equals a snapshot read of the KV state. The log below the
// tiered offset is not read, so a union read still returns every row once retention has trimmed
// the tiered part of the log.
//
// Thread-safe.

#include <functional>

#include "metadata/metadata_log.h"
#include "storage/stream_store.h"
#include "table/catalog.h"
#include "table/lake_source.h"
#include "table/requests.h"

namespace mink::table {

class UnionReader {
 public:
  using BatchSink = std::function<bool(const arrow::RecordBatchPtr&)>;

  UnionReader(storage::StreamStore* storage, Catalog* catalog)
      : storage_(storage), catalog_(catalog) {}

  // The lake this node reads (null: none; union reads then fail).
  void SetLake(LakeSource* lake) { lake_ = lake; }
  // Streams the union of `request` (projection, partition, bucket and limit apply; no meta
  // columns) to `sink`.
  Status Read(const ResolvedTable& table, const ReadRequest& request, const arrow::SchemaPtr& schema,
              const std::vector<int>& columns, const BatchSink& sink);

 private:
  storage::StreamStore* const storage_;
  Catalog* const catalog_;
  std::atomic<LakeSource*> lake_{nullptr};
};

}  // namespace mink::table
