#pragma once
// BucketForwarder: how a node of a cluster sends work on buckets another node serves to that
// node: the rows of a write (TableStore::Write) and the keys of a lookup (TableStore::Lookup).
// The node layer implements it over Flight; a node alone has none.

#include <cstdint>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "table/requests.h"

namespace mink::table {

class BucketForwarder {
 public:
  virtual ~BucketForwarder() = default;
  // Writes `batches` (every column of the table) at node `node_id` with `request` marked
  // forwarded; that node's answer. Unavailable when the node cannot be reached.
  virtual Result<WriteResult> Write(int32_t node_id, const WriteRequest& request,
                                    const std::vector<arrow::RecordBatchPtr>& batches) = 0;
  // Looks `keys` up at node `node_id` with `request` marked forwarded (every column asked):
  // the rows that node found. Unavailable when the node cannot be reached.
  virtual Result<arrow::RecordBatchPtr> Lookup(int32_t node_id, const LookupRequest& request,
                                               const arrow::RecordBatchPtr& keys) = 0;
};

}  // namespace mink::table
