#pragma once
// SnapshotWriter: builds one new Iceberg snapshot of a tiered table (docs/lake.md): the Parquet
// files it adds, written into the warehouse as they come; the files it removes (a compaction);
// then the manifests, the manifest list and the lake.commit command that makes all of it the
// table's lake at once, which a LakeCommitter publishes (committer.h). Nothing it writes is part
// of the lake until that command is appended; a snapshot abandoned before leaves files no
// snapshot names.
//
// Not thread-safe: one snapshot, built by one thread.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "lake/iceberg.h"
#include "lake/parquet.h"
#include "lake/warehouse.h"
#include "metadata/state.h"
#include "table/catalog.h"

namespace mink::lake {

class SnapshotWriter {
 public:
  // A snapshot on top of `lake` (the table's lake state now; empty for the first) of `table`
  // (named `name`), whose buckets are `buckets`. Local scratch files go under `work_dir`.
  static Result<SnapshotWriter> Start(Warehouse* warehouse, ParquetFiles* parquet,
                                      const table::ResolvedTable& table, std::string name,
                                      std::vector<table::TableBucket> buckets,
                                      metadata::LakeTableState lake, const std::string& work_dir);
  SnapshotWriter(SnapshotWriter&&) = default;
  ~SnapshotWriter();

  int64_t snapshot_id() const { return snapshot_id_; }
  int64_t sequence_number() const { return seq_; }
  // The table's key in the warehouse (where its files go).
  const std::string& table_path() const { return table_path_; }
  const LakeLayout& layout() const { return layout_; }

  // Writes `batches` (`schema`: the table's columns for data, content 0; its key columns for
  // equality deletes, content 2) holding `rows` rows of `bucket` as one Parquet file.
  // `data_sequence_number`: the file's own (a compaction's: the sequence number of the snapshot
  // whose files it rewrote), 0 for the new snapshot's.
  Status AddFile(const table::TableBucket& bucket, int32_t content, const arrow::SchemaPtr& schema,
                 std::vector<arrow::RecordBatchPtr> batches, int64_t rows, int64_t data_sequence_number = 0);
  // Moves the snapshot on top of `newer` (the table's lake state now, after commits made while
  // the files were written): FailedPrecondition when a file it removes is no longer live there.
  Status Rebase(metadata::LakeTableState newer);
  // The prefix of every file the snapshot writes (the orphan sweep leaves files of snapshots in
  // flight alone).
  const std::string& file_tag() const { return file_tag_; }
  // The snapshot no longer has this live file (its rows are in a file added instead).
  void RemoveFile(const metadata::LakeFile& file) { removed_.push_back(file); }
  bool empty() const { return added_.empty() && removed_.empty(); }

  // The manifests (a rewrite of every manifest when files are removed) and the manifest list,
  // written; the command that commits them with `offsets` (bucket stream -> new tiered offset)
  // and summary operation `operation`, for a LakeCommitter to publish (it writes or gets the
  // table metadata file).
  Result<metadata::CommitLakeSnapshot> Finish(const std::string& operation,
                                              std::vector<std::pair<uint64_t, int64_t>> offsets);
  // What a commit added, for logs.
  int64_t added_rows() const { return added_rows_; }
  int64_t added_deletes() const { return added_deletes_; }

 private:
  SnapshotWriter() = default;
  Result<ManifestEntry> EntryOf(const metadata::LakeFile& f) const;
  Result<metadata::LakeManifest> WriteManifest(int32_t content, const std::vector<ManifestEntry>& entries);

  Warehouse* warehouse_ = nullptr;
  ParquetFiles* parquet_ = nullptr;
  LakeLayout layout_;
  std::vector<int32_t> identifier_ids_;
  std::string name_;
  std::string table_path_;  // the table's key in the warehouse: its location's, or <database>/<table>
  std::map<uint64_t, table::TableBucket> buckets_;  // by stream id
  metadata::LakeTableState lake_;
  int64_t snapshot_id_ = 0;
  int64_t seq_ = 0;
  std::string file_tag_;
  std::string tmp_;
  int file_no_ = 0;
  std::vector<metadata::LakeFile> added_;
  std::vector<ManifestEntry> added_entries_[2];  // data, deletes
  std::vector<metadata::LakeFile> removed_;
  int64_t added_rows_ = 0, added_deletes_ = 0, added_size_ = 0;
};

}  // namespace mink::lake
