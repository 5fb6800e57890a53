#pragma once
// LakeSource: the rows a tiered table has in the lake, as the lake layer reads them (the table
// layer knows nothing of Iceberg or Parquet). Union reads merge them with the log after each
// bucket's tiered offset (union_reader.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "metadata/lake_commands.h"
#include "table/catalog.h"
#include "table/requests.h"

namespace mink::table {

// What a union read needs of the lake: the columns it reads (the rest of the Parquet file is
// never decoded) and the filters its reader pushed down (LakeFilter, requests.h), which the
// lake applies to its Parquet reads. A filter only ever leaves rows out that fail it.
struct LakeScan {
  std::vector<int> columns;  // indexes into the table's current schema, ascending; empty: all
  std::vector<LakeFilter> filters;
};

class LakeSource {
 public:
  virtual ~LakeSource() = default;
  struct BucketRows {
    int64_t tiered_offset = 0;  // the bucket's log below this offset is in `rows`
    // The scan's columns of the table's current schema (all of them when it names none), in
    // their Arrow types and in schema order; a primary-key table's rows are the keys' latest
    // rows (deleted keys are absent).
    std::vector<arrow::RecordBatchPtr> rows;
  };
  // The lake rows of one bucket stream of `table`; none, tiered offset 0, before the first
  // lake snapshot.
  virtual Result<BucketRows> ReadBucket(const ResolvedTable& table, uint64_t stream_id,
                                        const LakeScan& scan = {}) = 0;
  // For a tiered table about to be created as `name` (database.table) with descriptor `d`: the
  // existing lake table of that name it takes over (none: nullopt), or why it cannot (the first
  // difference between the two). The create carries it (metadata::CreateTable::lake_attach).
  virtual Result<std::optional<metadata::LakeAttach>> PrepareAttach(const std::string& name,
                                                                    const TableDescriptor& d) = 0;
  // The rows of bucket `bucket` (its index, metadata::LakeAttach) of the lake table `attach`
  // takes over, as `table` (not created yet) reads them: every column, a key's latest row once.
  virtual Result<std::vector<arrow::RecordBatchPtr>> ReadAttached(const ResolvedTable& table,
                                                                  const metadata::LakeAttach& attach,
                                                                  int32_t bucket) = 0;
};

}  // namespace mink::table
