#pragma once
// LakeReader: the table layer's LakeSource over the built-in lake catalog: a bucket's rows are
// its live data files (by the catalog state of the current snapshot), each without the rows of
// the keys that equality delete files of later snapshots name, read under the table's current
// schema.
//
// Thread-safe.

#include "lake/parquet.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "table/lake_source.h"

namespace mink::lake {

class LakeReader final : public table::LakeSource {
 public:
  LakeReader(metadata::MetadataLog* meta, Warehouse* warehouse, sql::Database* db)
      : meta_(meta), warehouse_(warehouse), parquet_(db) {}

  Result<BucketRows> ReadBucket(const table::ResolvedTable& table, uint64_t stream_id) override;

 private:
  metadata::MetadataLog* const meta_;
  Warehouse* const warehouse_;
  ParquetFiles parquet_;
};

}  // namespace mink::lake
