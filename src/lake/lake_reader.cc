#include "lake/lake_reader.h"

#include <algorithm>

#include "lake/iceberg.h"

namespace mink::lake {

Result<LakeReader::BucketRows> LakeReader::ReadBucket(const table::ResolvedTable& table,
                                                      uint64_t stream_id) {
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
  if (files.empty()) return out;
  MINK_ASSIGN_OR_RETURN(LakeLayout layout, LakeLayout::Of(table.d));
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return a.sequence_number < b.sequence_number;
  });
  for (const auto& data : files) {
    if (data.content != 0) continue;
    // Equality deletes apply to the data of earlier snapshots only.
    std::vector<std::string> deletes;
    for (const auto& e : files) {
      if (e.content == 2 && e.sequence_number > data.sequence_number) {
        MINK_ASSIGN_OR_RETURN(std::string local, warehouse_->LocalPath(e.path));
        deletes.push_back(std::move(local));
      }
    }
    MINK_ASSIGN_OR_RETURN(std::string local, warehouse_->LocalPath(data.path));
    MINK_ASSIGN_OR_RETURN(auto rows, parquet_.Read(table, layout, local, deletes));
    for (auto& r : rows) out.rows.push_back(std::move(r));
  }
  return out;
}

}  // namespace mink::lake
