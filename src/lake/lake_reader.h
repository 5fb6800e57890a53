#pragma once
// LakeReader: the table layer's LakeSource over the built-in lake catalog: a bucket's rows are
// its live data files (by the catalog state of the current snapshot), each without the rows of
// the keys that equality delete files of later snapshots name, read under the table's current
// schema: only the scan's columns, with its filters pushed into the Parquet reads. Decoded
// reads are kept in a LakeBatchCache. It also prepares the attaching of existing lake tables to
// new tiered tables (attach.h), through the node's committer (the catalog it tiers into).
//
// Thread-safe.

#include <cstddef>

#include "lake/attach.h"
#include "lake/batch_cache.h"
#include "lake/committer.h"
#include "lake/parquet.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "table/lake_source.h"

namespace mink::lake {

class LakeReader final : public table::LakeSource {
 public:
  static constexpr size_t kCacheBytes = size_t{256} << 20;

  // `committer`: the catalog tables are attached from; null: the built-in one.
  LakeReader(metadata::MetadataLog* meta, Warehouse* warehouse, sql::Database* db,
             size_t cache_bytes = kCacheBytes, LakeCommitter* committer = nullptr)
      : meta_(meta), warehouse_(warehouse), committer_(committer), parquet_(db), cache_(cache_bytes) {}

  Result<BucketRows> ReadBucket(const table::ResolvedTable& table, uint64_t stream_id,
                                const table::LakeScan& scan = {}) override;
  // attach.h
  Result<std::optional<metadata::LakeAttach>> PrepareAttach(const std::string& name,
                                                            const table::TableDescriptor& d) override {
    return committer_ != nullptr ? committer_->PrepareAttach(name, d) : lake::PrepareAttach(meta_, warehouse_, name, d);
  }
  Result<std::vector<arrow::RecordBatchPtr>> ReadAttached(const table::ResolvedTable& table,
                                                          const metadata::LakeAttach& attach,
                                                          int32_t bucket) override;

  // Forgets the decoded reads (benchmarks measure reads that decode the files).
  void DropDecoded() { cache_.Clear(); }

  // The rows of the data files among `files` without those the equality deletes among them
  // remove (a delete applies to data files of lower sequence numbers).
  Result<std::vector<arrow::RecordBatchPtr>> ReadFiles(const table::ResolvedTable& table,
                                                       std::vector<metadata::LakeFile> files,
                                                       const table::LakeScan& scan);

 private:

  metadata::MetadataLog* const meta_;
  Warehouse* const warehouse_;
  LakeCommitter* const committer_;
  ParquetFiles parquet_;
  LakeBatchCache cache_;
};

}  // namespace mink::lake
