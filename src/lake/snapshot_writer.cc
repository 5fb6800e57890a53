#include "lake/snapshot_writer.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace mink::lake {
namespace {

using nlohmann::json;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t NewSnapshotId() {
  thread_local std::mt19937_64 random{std::random_device{}() ^ static_cast<uint64_t>(NowMs()) << 20};
  return static_cast<int64_t>(random() & 0x7FFFFFFFFFFFFFFFULL) | 1;
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return UnavailableError("cannot read " + path);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace

Result<SnapshotWriter> SnapshotWriter::Start(Warehouse* warehouse, ParquetFiles* parquet,
                                             const table::ResolvedTable& table, std::string name,
                                             std::vector<table::TableBucket> buckets,
                                             metadata::LakeTableState lake, const std::string& work_dir) {
  SnapshotWriter w;
  w.warehouse_ = warehouse;
  w.parquet_ = parquet;
  MINK_ASSIGN_OR_RETURN(w.layout_, LakeLayout::Of(table.d));
  w.name_ = std::move(name);
  w.table_path_ = w.name_;
  std::replace(w.table_path_.begin(), w.table_path_.end(), '.', '/');
  // An attached table's files go where it has them.
  if (!lake.location.empty()) {
    MINK_ASSIGN_OR_RETURN(w.table_path_, warehouse->KeyOf(lake.location));
  }
  for (auto& b : buckets) w.buckets_[b.stream_id] = std::move(b);
  w.lake_ = std::move(lake);
  w.snapshot_id_ = NewSnapshotId();
  w.seq_ = w.lake_.sequence_number + 1;
  w.file_tag_ = std::to_string(w.seq_) + "-" + NewUuid();
  w.tmp_ = work_dir + "/" + w.file_tag_;
  std::error_code ec;
  std::filesystem::create_directories(w.tmp_, ec);
  if (ec) return UnavailableError("lake scratch directory " + w.tmp_ + ": " + ec.message());
  return w;
}

SnapshotWriter::~SnapshotWriter() {
  if (tmp_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(tmp_, ec);
}

Status SnapshotWriter::AddFile(const table::TableBucket& bucket, int32_t content,
                               const arrow::SchemaPtr& schema,
                               std::vector<arrow::RecordBatchPtr> batches, int64_t rows,
                               int64_t data_sequence_number) {
  if (rows == 0) return Status::Ok();
  MINK_ASSIGN_OR_RETURN(auto partition, layout_.PartitionValues(bucket.partition, bucket.bucket));
  std::string dir = table_path_ + "/data";
  for (size_t i = 0; i < layout_.partition().size(); ++i) {
    const auto& p = layout_.partition()[i];
    const auto& v = partition[i];
    dir += "/" + p.name + "=" + (p.avro_type == "string" ? v->bytes() : std::to_string(v->int_value()));
  }
  const std::string file = file_tag_ + "-" + std::to_string(file_no_++) + ".parquet";
  const std::string local = tmp_ + "/" + file;
  MINK_ASSIGN_OR_RETURN(int64_t size, parquet_->Write(layout_, schema, std::move(batches), local));
  MINK_ASSIGN_OR_RETURN(std::string bytes, ReadFile(local));
  std::filesystem::remove(local);
  const std::string key = dir + "/" + file;
  MINK_RETURN_IF_ERROR(warehouse_->Put(key, bytes));
  const std::string uri = warehouse_->Uri(key);
  ManifestEntry entry{uri, content, partition, rows, size, {}};
  if (content == 2) entry.equality_ids = layout_.identifier_ids();
  entry.added_sequence_number = data_sequence_number;
  added_entries_[content == 0 ? 0 : 1].push_back(std::move(entry));
  added_.push_back(metadata::LakeFile{uri, content, data_sequence_number != 0 ? data_sequence_number : seq_,
                                      snapshot_id_, bucket.stream_id, rows, size});
  (content == 0 ? added_rows_ : added_deletes_) += rows;
  added_size_ += size;
  return Status::Ok();
}

Status SnapshotWriter::Rebase(metadata::LakeTableState newer) {
  std::set<std::string> live;
  for (const auto& f : newer.files) live.insert(f.path);
  for (const auto& f : removed_) {
    if (!live.count(f.path)) {
      return FailedPreconditionError("lake file " + f.path + " of " + name_ + " was removed meanwhile");
    }
  }
  const int64_t seq = newer.sequence_number + 1;
  for (auto& f : added_) {
    if (f.sequence_number == seq_) f.sequence_number = seq;  // inherited: the new snapshot's
  }
  lake_ = std::move(newer);
  seq_ = seq;
  return Status::Ok();
}

Result<ManifestEntry> SnapshotWriter::EntryOf(const metadata::LakeFile& f) const {
  auto bucket = buckets_.find(f.stream_id);
  if (bucket == buckets_.end()) {
    return InternalError("lake file " + f.path + " belongs to no bucket of " + name_);
  }
  MINK_ASSIGN_OR_RETURN(auto partition, layout_.PartitionValues(bucket->second.partition, bucket->second.bucket));
  ManifestEntry entry{f.path, f.content, std::move(partition), f.record_count, f.size, {}};
  if (f.content == 2) entry.equality_ids = layout_.identifier_ids();
  entry.existing_snapshot_id = f.snapshot_id;
  entry.existing_sequence_number = f.sequence_number;
  return entry;
}

Result<metadata::LakeManifest> SnapshotWriter::WriteManifest(int32_t content,
                                                             const std::vector<ManifestEntry>& entries) {
  const std::string key = table_path_ + "/metadata/" + file_tag_ + "-m" + std::to_string(file_no_++) + ".avro";
  const std::string bytes = layout_.Manifest(content, snapshot_id_, entries);
  MINK_RETURN_IF_ERROR(warehouse_->Put(key, bytes));
  metadata::LakeManifest m{warehouse_->Uri(key), static_cast<int64_t>(bytes.size()), content, seq_, seq_,
                           snapshot_id_, 0, 0};
  for (const auto& e : entries) {
    if (e.existing_snapshot_id != 0) {
      ++m.existing_files;
      m.existing_rows += e.record_count;
      m.min_sequence_number = std::min(m.min_sequence_number, e.existing_sequence_number);
    } else {
      ++m.added_files;
      m.added_rows += e.record_count;
      if (e.added_sequence_number != 0) m.min_sequence_number = std::min(m.min_sequence_number, e.added_sequence_number);
    }
  }
  return m;
}

Result<metadata::CommitLakeSnapshot> SnapshotWriter::Finish(
    const std::string& operation, std::vector<std::pair<uint64_t, int64_t>> offsets) {
  // Manifests: one per kind for the added files; with files removed, every earlier manifest is
  // replaced by one per kind of the files that stay (EXISTING, as they were).
  std::vector<metadata::LakeManifest> added_manifests, all_manifests;
  std::vector<std::string> removed_manifests;
  std::set<std::string> removed_paths;
  for (const auto& f : removed_) removed_paths.insert(f.path);
  if (removed_.empty()) {
    all_manifests = lake_.manifests;
  } else {
    std::vector<ManifestEntry> kept[2];
    for (const auto& f : lake_.files) {
      if (removed_paths.count(f.path)) continue;
      MINK_ASSIGN_OR_RETURN(auto entry, EntryOf(f));
      kept[f.content == 0 ? 0 : 1].push_back(std::move(entry));
    }
    for (int32_t kind = 0; kind < 2; ++kind) {
      if (kept[kind].empty()) continue;
      MINK_ASSIGN_OR_RETURN(auto m, WriteManifest(kind, kept[kind]));
      added_manifests.push_back(m);
    }
    for (const auto& m : lake_.manifests) removed_manifests.push_back(m.path);
  }
  for (int32_t kind = 0; kind < 2; ++kind) {
    if (added_entries_[kind].empty()) continue;
    MINK_ASSIGN_OR_RETURN(auto m, WriteManifest(kind, added_entries_[kind]));
    added_manifests.push_back(m);
  }
  all_manifests.insert(all_manifests.end(), added_manifests.begin(), added_manifests.end());
  const std::string list_key =
      table_path_ + "/metadata/snap-" + std::to_string(snapshot_id_) + "-1-" + file_tag_ + ".avro";
  MINK_RETURN_IF_ERROR(warehouse_->Put(
      list_key, LakeLayout::ManifestList(snapshot_id_, lake_.snapshot_id, seq_, all_manifests)));

  // The summary: what this snapshot added and removed, the totals after it, and mink-offsets.
  int64_t total_data = 0, total_records = 0, total_deletes = 0, total_size = 0;
  int64_t removed_data = 0, removed_deletes = 0, removed_records = 0, removed_size = 0;
  for (const auto& f : lake_.files) {
    if (removed_paths.count(f.path)) {
      (f.content == 0 ? removed_data : removed_deletes) += 1;
      if (f.content == 0) removed_records += f.record_count;
      removed_size += f.size;
      continue;
    }
    (f.content == 0 ? total_data : total_deletes) += 1;
    if (f.content == 0) total_records += f.record_count;
    total_size += f.size;
  }
  const auto added_data = static_cast<int64_t>(added_entries_[0].size());
  const auto added_delete_files = static_cast<int64_t>(added_entries_[1].size());
  std::map<uint64_t, int64_t> tiered = lake_.offsets;
  for (const auto& [stream, end] : offsets) tiered[stream] = end;
  json mink_offsets = json::object();
  for (const auto& [stream, b] : buckets_) {
    auto it = tiered.find(stream);
    mink_offsets[b.label] = it == tiered.end() ? 0 : it->second;
  }
  metadata::LakeSnapshot snapshot;
  snapshot.snapshot_id = snapshot_id_;
  snapshot.parent_id = lake_.snapshot_id;
  snapshot.sequence_number = seq_;
  snapshot.timestamp_ms = NowMs();
  snapshot.manifest_list = warehouse_->Uri(list_key);
  snapshot.schema_id = layout_.schema_id();
  snapshot.summary = {{"operation", operation},
                      {"added-data-files", std::to_string(added_data)},
                      {"added-records", std::to_string(added_rows_)},
                      {"added-delete-files", std::to_string(added_delete_files)},
                      {"added-equality-delete-files", std::to_string(added_delete_files)},
                      {"added-equality-deletes", std::to_string(added_deletes_)},
                      {"added-files-size", std::to_string(added_size_)},
                      {"total-data-files", std::to_string(total_data + added_data)},
                      {"total-delete-files", std::to_string(total_deletes + added_delete_files)},
                      {"total-records", std::to_string(total_records + added_rows_)},
                      {"total-files-size", std::to_string(total_size + added_size_)},
                      {"total-position-deletes", "0"},
                      {"engine-name", "mink"},
                      {"mink-offsets", mink_offsets.dump()}};
  if (!removed_.empty()) {
    snapshot.summary["deleted-data-files"] = std::to_string(removed_data);
    snapshot.summary["removed-delete-files"] = std::to_string(removed_deletes);
    snapshot.summary["deleted-records"] = std::to_string(removed_records);
    snapshot.summary["removed-files-size"] = std::to_string(removed_size);
  }

  // The table's identity: its own, or a new one with its first snapshot.
  const std::string table_uuid = lake_.table_uuid.empty() ? NewUuid() : lake_.table_uuid;
  const std::string location = lake_.location.empty() ? warehouse_->Uri(table_path_) : lake_.location;

  metadata::CommitLakeSnapshot commit;
  commit.parent_snapshot_id = lake_.snapshot_id;
  commit.table_uuid = table_uuid;
  commit.location = location;
  commit.snapshot = std::move(snapshot);  // the committer writes or gets the metadata file
  commit.added_files = added_;
  for (const auto& f : removed_) commit.removed_files.push_back(f.path);
  commit.added_manifests = std::move(added_manifests);
  commit.removed_manifests = std::move(removed_manifests);
  commit.offsets = std::move(offsets);
  return commit;
}

}  // namespace mink::lake
