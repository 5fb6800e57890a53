#pragma once
// LakeSource: the rows a tiered table has in the lake, as the lake layer reads them (the table
// layer knows nothing of Iceberg or Parquet). Union reads merge them with the log after each
// bucket's tiered offset (union_reader.h).

#include <cstdint>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "table/catalog.h"

namespace mink::table {

class LakeSource {
 public:
  virtual ~LakeSource() = default;
  struct BucketRows {
    int64_t tiered_offset = 0;  // the bucket's log below this offset is in `rows`
    // Every column of the table's current schema, in its Arrow types; a primary-key table's
    // rows are the keys' latest rows (deleted keys are absent).
    std::vector<arrow::RecordBatchPtr> rows;
  };
  // The lake rows of one bucket stream of `table`; none, tiered offset 0, before the first
  // lake snapshot.
  virtual Result<BucketRows> ReadBucket(const ResolvedTable& table, uint64_t stream_id) = 0;
};

}  // namespace mink::table
