#include "lake/lake_reader.h"

#include <algorithm>

#include "lake/iceberg.h"

namespace mink::lake {

namespace {

// What a decoded read depends on: the file, the delete files applied, the schema read under,
// the columns and the filters.
std::string CacheKey(const table::ResolvedTable& table, const std::string& path,
                     const std::vector<std::string>& deletes, const table::LakeScan& scan) {
  std::string key = std::to_string(table.id) + "/" + std::to_string(table.d.schema.schema_id) + "\n" + path;
  for (const auto& d : deletes) key += "\n-" + d;
  key += "\n";
  for (int c : scan.columns) key += std::to_string(c) + ",";
  for (const auto& f : scan.filters) {
    key += "\n" + f.column + " " + f.op;
    for (const auto& v : f.values) key += " " + std::to_string(v.size()) + ":" + v;
  }
  return key;
}

}  // namespace

Result<LakeReader::BucketRows> LakeReader::ReadBucket(const table::ResolvedTable& table,
                                                      uint64_t stream_id, const table::LakeScan& scan) {
  BucketRows out;
  std::vector<metadata::LakeFile> files;
  meta_->Read([&](const metadata::State& s) {
    auto lake = s.lake_tables().find(table.id);
    if (lake == s.lake_tables().end()) return;
    if (auto o = lake->second.offsets.find(stream_id); o != lake->second.offsets.end()) {
      out.tiered_offset = o->second;
    }
    for (const auto& f : lake->second.files) {
      if (f.stream_id == stream_id) files.push_back(f);
    }
  });
  MINK_ASSIGN_OR_RETURN(out.rows, ReadFiles(table, std::move(files), scan));
  return out;
}

Result<std::vector<arrow::RecordBatchPtr>> LakeReader::ReadAttached(const table::ResolvedTable& table,
                                                                    const metadata::LakeAttach& attach,
                                                                    int32_t bucket) {
  std::vector<metadata::LakeFile> files;
  for (const auto& f : attach.commit.added_files) {
    if (f.stream_id == static_cast<uint64_t>(bucket)) files.push_back(f);  // a bucket index here
  }
  return ReadFiles(table, std::move(files), {});
}

Result<std::vector<arrow::RecordBatchPtr>> LakeReader::ReadFiles(const table::ResolvedTable& table,
                                                                 std::vector<metadata::LakeFile> files,
                                                                 const table::LakeScan& scan) {
  std::vector<arrow::RecordBatchPtr> out;
  if (files.empty()) return out;
  MINK_ASSIGN_OR_RETURN(LakeLayout layout, LakeLayout::Of(table.d));
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return a.sequence_number < b.sequence_number;
  });
  for (const auto& data : files) {
    if (data.content != 0) continue;
    // Equality deletes apply to the data of earlier snapshots only.
    std::vector<std::string> delete_paths;
    for (const auto& e : files) {
      if (e.content == 2 && e.sequence_number > data.sequence_number) delete_paths.push_back(e.path);
    }
    const std::string key = CacheKey(table, data.path, delete_paths, scan);
    LakeBatchCache::Batches rows = cache_.Get(key);
    if (rows == nullptr) {
      std::vector<std::string> deletes;
      for (const auto& path : delete_paths) {
        MINK_ASSIGN_OR_RETURN(std::string local, warehouse_->LocalPath(path));
        deletes.push_back(std::move(local));
      }
      MINK_ASSIGN_OR_RETURN(std::string local, warehouse_->LocalPath(data.path));
      MINK_ASSIGN_OR_RETURN(auto read, parquet_.Read(table, layout, local, deletes, scan));
      rows = std::make_shared<const std::vector<arrow::RecordBatchPtr>>(std::move(read));
      cache_.Put(key, rows);
    }
    out.insert(out.end(), rows->begin(), rows->end());
  }
  return out;
}

}  // namespace mink::lake
