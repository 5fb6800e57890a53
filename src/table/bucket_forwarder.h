#pragma once
// WriteForwarder: how a node of a cluster sends the rows of buckets another node serves to that
// node (TableStore::Write). The node layer implements it over Flight; a node alone has none.

#include <cstdint>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "table/requests.h"

namespace mink::table {

class WriteForwarder {
 public:
  virtual ~WriteForwarder() = default;
  // Writes `batches` (every column of the table) at node `node_id` with `request` marked
  // forwarded; that node's answer. Unavailable when the node cannot be reached.
  virtual Result<WriteResult> Forward(int32_t node_id, const WriteRequest& request,
                                      const std::vector<arrow::RecordBatchPtr>& batches) = 0;
};

}  // namespace mink::table
