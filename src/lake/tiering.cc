#include "lake/tiering.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

#include "base/log.h"
#include "table/arrow_rows.h"
#include "table/bucketing.h"

namespace mink::lake {
namespace {

using metadata::Command;
using nlohmann::json;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::mt19937_64& Random() {
  thread_local std::mt19937_64 random{std::random_device{}() ^
                                      static_cast<uint64_t>(NowMs()) << 20};
  return random;
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return UnavailableError("cannot read " + path);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// One bucket's share of a snapshot.
struct BucketWork {
  table::TableBucket bucket;
  int64_t from = 0, end = 0;
  std::vector<table::Row> rows;     // data rows
  std::vector<table::Row> deleted;  // a primary-key table's keys touched (full rows, keys set)
};

}  // namespace

Result<int64_t> Tiering::TierTable(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  MINK_ASSIGN_OR_RETURN(auto table, tables_->Resolve(name));
  if (!table->d.lake_enabled) return FailedPreconditionError("table " + name + " is not tiered");
  MINK_ASSIGN_OR_RETURN(LakeLayout layout, LakeLayout::Of(table->d));
  metadata::LakeTableState lake;
  std::map<uint64_t, int64_t> ends;
  meta_->Read([&](const metadata::State& s) {
    if (auto it = s.lake_tables().find(table->id); it != s.lake_tables().end()) lake = it->second;
    for (const auto& b : tables_->AllBuckets(*table)) {
      if (const metadata::StreamState* st = s.FindStream(b.stream_id)) ends[b.stream_id] = st->end_offset;
    }
  });
  std::vector<BucketWork> work;
  for (const auto& b : tables_->AllBuckets(*table)) {
    BucketWork w{b, 0, ends[b.stream_id], {}, {}};
    if (auto it = lake.offsets.find(b.stream_id); it != lake.offsets.end()) w.from = it->second;
    if (w.end > w.from) work.push_back(std::move(w));
  }
  if (work.empty()) return 0;

  // The rows: a log table's as they are; a primary-key table's folded by key.
  const bool keyed = table->d.has_primary_key();
  for (auto& w : work) {
    // key -> (its key columns, its latest row; none when deleted)
    std::map<std::string, std::pair<table::Row, std::optional<table::Row>>> latest;
    MINK_RETURN_IF_ERROR(tables_->VisitBucketRows(
        *table, w.bucket.stream_id, w.from, w.end,
        [&](table::Row row, table::ChangeType type, int64_t) -> Status {
          if (!keyed) {
            w.rows.push_back(std::move(row));
            return Status::Ok();
          }
          if (type == table::ChangeType::kUpdateBefore) return Status::Ok();
          std::vector<table::Value> key;
          table::Row keys(table->types.size());
          for (int k : table->pk) {
            key.push_back(row[static_cast<size_t>(k)]);
            keys[static_cast<size_t>(k)] = row[static_cast<size_t>(k)];
          }
          MINK_ASSIGN_OR_RETURN(std::string encoded, table::EncodeCompactedKey(key, table->pk_types));
          auto& entry = latest[encoded];
          entry.first = std::move(keys);
          if (type == table::ChangeType::kDelete) {
            entry.second = std::nullopt;
          } else {
            entry.second = std::move(row);
          }
          return Status::Ok();
        }));
    // Every key touched is deleted from the lake's older rows; its latest row, if any, is added
    // in the same snapshot (an equality delete does not apply to rows of its own snapshot).
    for (auto& [key, entry] : latest) {
      w.deleted.push_back(std::move(entry.first));
      if (entry.second) w.rows.push_back(std::move(*entry.second));
    }
  }

  const int64_t snapshot_id = static_cast<int64_t>(Random()() & 0x7FFFFFFFFFFFFFFFULL) | 1;
  const int64_t seq = lake.sequence_number + 1;
  const std::string uuid = lake.table_uuid.empty() ? NewUuid() : lake.table_uuid;
  const std::string table_path = [&] {
    std::string p = name;
    std::replace(p.begin(), p.end(), '.', '/');
    return p;
  }();
  const std::string location = lake.location.empty() ? warehouse_->Uri(table_path) : lake.location;
  const std::string file_tag = std::to_string(seq) + "-" + NewUuid();
  const std::string tmp = work_dir_ + "/" + file_tag;
  std::filesystem::create_directories(tmp);
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } cleanup{tmp};

  // The key columns alone, for delete files.
  std::vector<int> key_columns = table->pk;
  std::sort(key_columns.begin(), key_columns.end());
  std::vector<arrow::Field> key_fields;
  std::vector<table::LogicalType> key_types;
  for (int k : key_columns) {
    key_fields.push_back(table->schema->field(k));
    key_types.push_back(table->types[static_cast<size_t>(k)]);
  }
  const auto key_schema = std::make_shared<arrow::Schema>(std::move(key_fields));

  std::vector<ManifestEntry> data_entries, delete_entries;
  std::vector<metadata::LakeFile> added;
  std::vector<std::pair<uint64_t, int64_t>> offsets;
  int64_t added_rows = 0, added_deletes = 0, added_size = 0;
  int file_no = 0;
  for (const auto& w : work) {
    offsets.emplace_back(w.bucket.stream_id, w.end);
    MINK_ASSIGN_OR_RETURN(auto partition, layout.PartitionValues(w.bucket.partition, w.bucket.bucket));
    std::string dir = table_path + "/data";
    for (size_t i = 0; i < layout.partition().size(); ++i) {
      const auto& p = layout.partition()[i];
      const auto& v = partition[i];
      dir += "/" + p.name + "=" +
             (p.avro_type == "string" ? v->bytes() : std::to_string(v->int_value()));
    }
    auto write = [&](int content, const std::vector<table::Row>& rows) -> Status {
      if (rows.empty()) return Status::Ok();
      std::vector<const table::Row*> pointers;
      std::vector<table::Row> projected;
      arrow::SchemaPtr schema = table->schema;
      std::vector<table::LogicalType> types = table->types;
      if (content == 2) {
        for (const auto& r : rows) {
          table::Row keys;
          for (int k : key_columns) keys.push_back(r[static_cast<size_t>(k)]);
          projected.push_back(std::move(keys));
        }
        schema = key_schema;
        types = key_types;
      }
      for (const auto& r : content == 2 ? projected : rows) pointers.push_back(&r);
      MINK_ASSIGN_OR_RETURN(auto batch, table::RowsToBatch(pointers, schema, types));
      const std::string file = file_tag + "-" + std::to_string(file_no++) + ".parquet";
      const std::string local = tmp + "/" + file;
      MINK_ASSIGN_OR_RETURN(int64_t size, parquet_.Write(layout, schema, {batch}, local));
      MINK_ASSIGN_OR_RETURN(std::string bytes, ReadFile(local));
      const std::string key = dir + "/" + file;
      MINK_RETURN_IF_ERROR(warehouse_->Put(key, bytes));
      const std::string uri = warehouse_->Uri(key);
      ManifestEntry entry{uri, content, partition, static_cast<int64_t>(rows.size()), size, {}};
      if (content == 2) entry.equality_ids = layout.identifier_ids();
      (content == 0 ? data_entries : delete_entries).push_back(entry);
      added.push_back(metadata::LakeFile{uri, content, seq, snapshot_id, w.bucket.stream_id,
                                         static_cast<int64_t>(rows.size()), size});
      (content == 0 ? added_rows : added_deletes) += static_cast<int64_t>(rows.size());
      added_size += size;
      return Status::Ok();
    };
    MINK_RETURN_IF_ERROR(write(0, w.rows));
    MINK_RETURN_IF_ERROR(write(2, w.deleted));
  }

  // Manifests, the manifest list and the metadata.
  std::vector<metadata::LakeManifest> new_manifests;
  auto manifest = [&](int content, const std::vector<ManifestEntry>& entries) -> Status {
    if (entries.empty()) return Status::Ok();
    const std::string key =
        table_path + "/metadata/" + file_tag + "-m" + std::to_string(content) + ".avro";
    const std::string bytes = layout.Manifest(content, snapshot_id, entries);
    MINK_RETURN_IF_ERROR(warehouse_->Put(key, bytes));
    int64_t rows = 0;
    for (const auto& e : entries) rows += e.record_count;
    new_manifests.push_back(metadata::LakeManifest{warehouse_->Uri(key), static_cast<int64_t>(bytes.size()),
                                                   content, seq, seq, snapshot_id,
                                                   static_cast<int32_t>(entries.size()), rows});
    return Status::Ok();
  };
  MINK_RETURN_IF_ERROR(manifest(0, data_entries));
  MINK_RETURN_IF_ERROR(manifest(1, delete_entries));
  std::vector<metadata::LakeManifest> all_manifests = lake.manifests;
  all_manifests.insert(all_manifests.end(), new_manifests.begin(), new_manifests.end());
  const std::string list_key = table_path + "/metadata/snap-" + std::to_string(snapshot_id) +
                               "-1-" + file_tag + ".avro";
  MINK_RETURN_IF_ERROR(warehouse_->Put(
      list_key, LakeLayout::ManifestList(snapshot_id, lake.snapshot_id, seq, all_manifests)));

  int64_t total_data = 0, total_records = 0, total_deletes = 0, total_size = 0;
  for (const auto& f : lake.files) {
    (f.content == 0 ? total_data : total_deletes) += 1;
    if (f.content == 0) total_records += f.record_count;
    total_size += f.size;
  }
  json mink_offsets = json::object();
  for (const auto& b : tables_->AllBuckets(*table)) {
    int64_t offset = 0;
    if (auto it = lake.offsets.find(b.stream_id); it != lake.offsets.end()) offset = it->second;
    for (const auto& [stream, end] : offsets) {
      if (stream == b.stream_id) offset = end;
    }
    mink_offsets[b.label] = offset;
  }
  metadata::LakeSnapshot snapshot;
  snapshot.snapshot_id = snapshot_id;
  snapshot.parent_id = lake.snapshot_id;
  snapshot.sequence_number = seq;
  snapshot.timestamp_ms = NowMs();
  snapshot.manifest_list = warehouse_->Uri(list_key);
  snapshot.schema_id = layout.schema_id();
  snapshot.summary = {
      {"operation", delete_entries.empty() ? "append" : "overwrite"},
      {"added-data-files", std::to_string(data_entries.size())},
      {"added-records", std::to_string(added_rows)},
      {"added-delete-files", std::to_string(delete_entries.size())},
      {"added-equality-delete-files", std::to_string(delete_entries.size())},
      {"added-equality-deletes", std::to_string(added_deletes)},
      {"added-files-size", std::to_string(added_size)},
      {"total-data-files", std::to_string(total_data + static_cast<int64_t>(data_entries.size()))},
      {"total-delete-files", std::to_string(total_deletes + static_cast<int64_t>(delete_entries.size()))},
      {"total-records", std::to_string(total_records + added_rows)},
      {"total-files-size", std::to_string(total_size + added_size)},
      {"total-position-deletes", "0"},
      {"engine-name", "mink"},
      {"mink-offsets", mink_offsets.dump()}};

  // The metadata as the state will be after the commit (State::ApplyCommand does the same).
  metadata::LakeTableState after = lake;
  after.table_uuid = uuid;
  after.location = location;
  if (!lake.metadata_location.empty()) after.metadata_log.emplace_back(lake.metadata_location, lake.last_updated_ms);
  const std::string metadata_key = table_path + "/metadata/v" + std::to_string(seq) + ".metadata.json";
  after.metadata_location = warehouse_->Uri(metadata_key);
  after.snapshot_id = snapshot_id;
  after.sequence_number = seq;
  after.last_updated_ms = snapshot.timestamp_ms;
  after.snapshots.push_back(snapshot);
  MINK_RETURN_IF_ERROR(warehouse_->Put(metadata_key, layout.TableMetadata(after)));

  metadata::CommitLakeSnapshot commit;
  commit.table_id = table->id;
  commit.parent_snapshot_id = lake.snapshot_id;
  commit.table_uuid = uuid;
  commit.location = location;
  commit.snapshot = snapshot;
  commit.metadata_location = after.metadata_location;
  commit.added_files = std::move(added);
  commit.added_manifests = std::move(new_manifests);
  commit.offsets = std::move(offsets);
  MINK_RETURN_IF_ERROR(meta_->Append(Command(std::move(commit))).status());
  // For readers that find the current metadata file by the file-system convention.
  (void)warehouse_->Put(table_path + "/metadata/version-hint.text", std::to_string(seq));
  MINK_LOG_INFO("lake", "tiered {}: snapshot {} (sequence {}), {} rows, {} deletes", name,
                snapshot_id, seq, added_rows, added_deletes);
  return snapshot_id;
}

std::vector<std::string> Tiering::DueTables(int64_t now_ms) {
  std::vector<std::string> due;
  auto names = tables_->ListTables("");
  if (!names.ok()) return due;
  for (const auto& name : *names) {
    auto table = tables_->Resolve(name);
    if (!table.ok() || !(*table)->d.lake_enabled) continue;
    bool pending = false;
    int64_t last = 0;
    meta_->Read([&](const metadata::State& s) {
      const metadata::LakeTableState* lake = nullptr;
      if (auto it = s.lake_tables().find((*table)->id); it != s.lake_tables().end()) lake = &it->second;
      last = lake ? lake->last_updated_ms : 0;
      for (const auto& b : tables_->AllBuckets(**table)) {
        const metadata::StreamState* st = s.FindStream(b.stream_id);
        int64_t tiered = 0;
        if (lake) {
          if (auto o = lake->offsets.find(b.stream_id); o != lake->offsets.end()) tiered = o->second;
        }
        if (st != nullptr && st->end_offset > tiered) pending = true;
      }
    });
    if (pending && now_ms - last >= (*table)->d.lake_freshness_ms / 2) due.push_back(name);
  }
  return due;
}

void TieringWorker::Start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { Run(); });
}

void TieringWorker::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TieringWorker::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, poll_, [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    if (tiers_()) {
      for (const auto& name : tiering_->DueTables(NowMs())) {
        auto tiered = tiering_->TierTable(name);
        if (!tiered.ok()) {
          MINK_LOG_WARN("lake", "tiering {}: {}", name, tiered.status().ToString());
        }
      }
    }
    lock.lock();
  }
}

}  // namespace mink::lake
