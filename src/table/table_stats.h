#pragma once
// ColumnStatsCache: min/max and null counts of the integer-valued columns of a log table, per
// bucket, for query planners (mink-query hands them to DuckDB as column statistics).
//
// Computed from the bucket's log on first use and cached by stream; a later call extends the
// cached ranges with the batches committed since (only the new batches are read). Ranges only
// ever widen: rows that retention removes keep counting, so they stay conservative.
//
// Thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "metadata/metadata_log.h"
#include "storage/stream_store.h"
#include "table/catalog.h"
#include "table/column_stats.h"

namespace mink::table {

class ColumnStatsCache {
 public:
  ColumnStatsCache(metadata::MetadataLog* meta, storage::StreamStore* storage, Catalog* catalog)
      : meta_(meta), storage_(storage), catalog_(catalog) {}

  // Every bucket of the log table, up to each bucket's committed end.
  Result<std::vector<BucketColumnStats>> ColumnStats(const std::string& name);

 private:
  struct Entry;

  metadata::MetadataLog* const meta_;
  storage::StreamStore* const storage_;
  Catalog* const catalog_;
  std::mutex mutex_;
  std::map<uint64_t, std::shared_ptr<Entry>> entries_;  // by stream id
};

}  // namespace mink::table
