#pragma once
// Tiering: copies what tiered tables have in their bucket logs beyond the lake into the lake,
// one Iceberg snapshot per table per round (docs/lake.md, "Tiering"). For each bucket it reads
// the log from the bucket's tiered offset to the log's end: a log table's rows become a Parquet
// data file; a primary-key table's changes are folded per key into a data file of the keys'
// latest rows and an equality delete file of every key touched (so older rows of those keys,
// and deleted keys, disappear from the lake). Then a manifest per kind, a manifest list of
// every live manifest, the table metadata, and one metadata command (lake.commit) that records
// the snapshot, its files and each bucket's new tiered offset together: tiering is exactly
// once, and a crash before the commit leaves only files nothing refers to.
//
// A LakeWorker runs it on a thread: every table whose freshness asks for it, while this node is
// the one that tiers (the cluster's coordinator, or a node alone).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "lake/committer.h"
#include "lake/parquet.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "sql/database.h"
#include "table/table_store.h"

namespace mink::lake {

class Tiering {
 public:
  // `committer`: where snapshots commit (committer.h).
  Tiering(metadata::MetadataLog* meta, table::TableStore* tables, Warehouse* warehouse,
          sql::Database* db, LakeCommitter* committer, std::string work_dir)
      : meta_(meta), tables_(tables), warehouse_(warehouse), parquet_(db), committer_(committer),
        work_dir_(std::move(work_dir)) {}
  LakeCommitter* committer() const { return committer_; }

  // Tiers the table's logs beyond its lake as one snapshot: its id, or 0 when there was
  // nothing to tier. Aborted when another node committed a snapshot of the table meanwhile.
  Result<int64_t> TierTable(const std::string& name);
  // The tiered tables with rows beyond their lake whose last snapshot is at least half their
  // freshness old (so the lake lags the log by at most about the freshness).
  std::vector<std::string> DueTables(int64_t now_ms);
  // Runs `f` while no tiering round runs (compaction: compaction.h).
  template <typename F>
  auto Exclusive(F f) {
    std::lock_guard<std::mutex> lock(mutex_);
    return f();
  }

 private:
  metadata::MetadataLog* const meta_;
  table::TableStore* const tables_;
  Warehouse* const warehouse_;
  ParquetFiles parquet_;
  LakeCommitter* const committer_;
  const std::string work_dir_;
  std::mutex mutex_;  // one tiering at a time
};

// LakeWorker: runs `work` on a thread of its own every `poll` while `active()` says this node
// tiers (the cluster's coordinator, or a node alone): tiering rounds, and compaction beside them.
class LakeWorker {
 public:
  LakeWorker(std::function<bool()> active, std::chrono::milliseconds poll, std::function<void()> work)
      : active_(std::move(active)), poll_(poll), work_(std::move(work)) {}
  ~LakeWorker() { Stop(); }
  void Start();
  void Stop();

 private:
  void Run();
  const std::function<bool()> active_;
  const std::chrono::milliseconds poll_;
  const std::function<void()> work_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mink::lake
