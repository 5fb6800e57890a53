#pragma once
// LakeCompaction: opt-in per table (table.datalake.auto-compaction), rewrites each bucket whose
// lake has piled up files (at least `min_files` data and delete files, one pair per tiering round
// of a primary-key table) into one data file of its current rows, with the equality deletes
// applied, as one `replace` snapshot that removes the old files (docs/lake.md, Compaction). The
// rows and every bucket's tiered offset stay as they were; readers of the new snapshot read
// fewer files. The rewrite runs beside tiering (its own LakeWorker): it reads the files of the
// snapshot it started from, and its file keeps that snapshot's sequence number, so equality
// deletes tiered meanwhile still apply to it; only the commit takes the tiering lock, on top of
// the rounds committed meanwhile (SnapshotWriter::Rebase), and fails when one of the files it
// replaces is gone.
//
// Thread-safe.

#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "lake/lake_reader.h"
#include "lake/parquet.h"
#include "lake/tiering.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "table/table_store.h"

namespace mink::lake {

class LakeCompaction {
 public:
  static constexpr size_t kMinFiles = 8;

  LakeCompaction(metadata::MetadataLog* meta, table::TableStore* tables, Warehouse* warehouse,
                 LakeReader* reader, Tiering* tiering, sql::Database* db, std::string work_dir)
      : meta_(meta), tables_(tables), warehouse_(warehouse), reader_(reader), tiering_(tiering),
        parquet_(db), work_dir_(std::move(work_dir)) {}

  // Compacts the buckets of table `name` that have at least `min_files` live files, in one
  // snapshot: its id, or 0 when no bucket had that many.
  Result<int64_t> CompactTable(const std::string& name, size_t min_files = kMinFiles);
  // The tables with auto-compaction on and a bucket with at least kMinFiles live files.
  std::vector<std::string> DueTables();
  // Whether `tag` is the file tag of a compaction still writing (the orphan sweep spares it).
  bool InFlightTag(const std::string& tag) const;
  // Runs `f` after the rewrite, before the commit (tests interleave tiering rounds there).
  void SetBeforeCommit(std::function<void()> f) { before_commit_ = std::move(f); }

 private:
  // Registers a compaction's file tag while it writes.
  class InFlight {
   public:
    InFlight(LakeCompaction* c, std::string tag);
    ~InFlight();

   private:
    LakeCompaction* const c_;
    const std::string tag_;
  };

  metadata::MetadataLog* const meta_;
  table::TableStore* const tables_;
  Warehouse* const warehouse_;
  LakeReader* const reader_;
  Tiering* const tiering_;
  ParquetFiles parquet_;
  const std::string work_dir_;
  mutable std::mutex mutex_;
  std::set<std::string> in_flight_;
  std::function<void()> before_commit_;
};

}  // namespace mink::lake
