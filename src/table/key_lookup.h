#pragma once
// KeyLookup: a primary-key table's current rows read by key from the KV state of its buckets,
// without a scan: point lookups by the whole primary key, and prefix lookups by the bucket key
// (with the partition keys of a partitioned table), which answer every row that has those
// values. A key that has no row is absent from the answer, not an error. Keys of buckets
// another node serves are sent to it (BucketForwarder::Lookup); a node alone rebuilds the state
// of a bucket it does not write, as a snapshot read does.
//
// Thread-safe: a bucket's KV state is read under its mutex.

#include <atomic>
#include <functional>
#include <vector>

#include "arrow_format/record_batch.h"
#include "storage/stream_store.h"
#include "table/bucket_forwarder.h"
#include "table/bucket_state.h"
#include "table/catalog.h"
#include "table/requests.h"

namespace mink::table {

class KeyLookup {
 public:
  // `owner` names the node that owns a stream now (0: none); `forwarder` is null on a node
  // alone.
  KeyLookup(storage::StreamStore* storage, const Catalog* catalog, BucketStates* buckets,
            std::function<int32_t(uint64_t)> owner, BucketForwarder* forwarder)
      : storage_(storage),
        catalog_(catalog),
        buckets_(buckets),
        owner_(std::move(owner)),
        forwarder_(forwarder) {}

  // The columns a lookup's keys must have, in table order: the primary key, or for a prefix
  // lookup the bucket key and the partition keys.
  static Result<std::vector<std::string>> KeyColumns(const ResolvedTable& table, bool prefix);
  // The answer's schema (the table's columns, or those the request names).
  Result<arrow::SchemaPtr> AnswerSchema(const LookupRequest& request) const;
  // The rows of `keys` (columns named as KeyColumns says, any order, no nulls), in key order:
  // for each key its row (a prefix lookup: its rows, in primary-key byte order). Keys that
  // match nothing add nothing.
  Result<arrow::RecordBatchPtr> Lookup(const LookupRequest& request, const arrow::RecordBatch& keys);

 private:
  storage::StreamStore* const storage_;
  const Catalog* const catalog_;
  BucketStates* const buckets_;
  const std::function<int32_t(uint64_t)> owner_;
  BucketForwarder* const forwarder_;
};

}  // namespace mink::table
