#include "lake/foreign_snapshot.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <nlohmann/json.hpp>

#include "lake/manifest_reader.h"

namespace mink::lake {

using json = nlohmann::json;

std::map<std::string, std::string> SummaryOf(const json& snapshot) {
  std::map<std::string, std::string> out;
  if (auto summary = snapshot.find("summary"); summary != snapshot.end() && summary->is_object()) {
    for (auto it = summary->begin(); it != summary->end(); ++it) {
      if (it->is_string()) out[it.key()] = it->get<std::string>();
    }
  }
  return out;
}

BucketStreams StreamsOf(const std::vector<table::TableBucket>& buckets) {
  BucketStreams out;
  for (const auto& b : buckets) out[{b.partition, b.bucket}] = b.stream_id;
  return out;
}

Status TakeOver(const metadata::LakeTableState& lake, ForeignSnapshot foreign, const BucketStreams& streams,
                const std::string& what, metadata::CommitLakeSnapshot* commit) {
  std::set<std::string> old_files, new_files, old_manifests, new_manifests;
  for (const auto& f : lake.files) old_files.insert(f.path);
  for (const auto& m : lake.manifests) old_manifests.insert(m.path);
  for (size_t i = 0; i < foreign.files.size(); ++i) {
    metadata::LakeFile& f = foreign.files[i];
    new_files.insert(f.path);
    if (old_files.count(f.path)) continue;
    auto stream = streams.find({foreign.partitions[i], static_cast<int32_t>(f.stream_id)});
    if (stream == streams.end()) {
      return InvalidArgumentError(what + ": file " + f.path + " is in partition '" + foreign.partitions[i] +
                                  "', which the Mink table does not have (write a row to it first)");
    }
    f.stream_id = stream->second;
    commit->added_files.push_back(std::move(f));
  }
  for (const auto& path : old_files) {
    if (!new_files.count(path)) commit->removed_files.push_back(path);
  }
  for (auto& m : foreign.manifests) {
    new_manifests.insert(m.path);
    if (!old_manifests.count(m.path)) commit->added_manifests.push_back(std::move(m));
  }
  for (const auto& path : old_manifests) {
    if (!new_manifests.count(path)) commit->removed_manifests.push_back(path);
  }
  commit->parent_snapshot_id = lake.snapshot_id;
  commit->snapshot = std::move(foreign.snapshot);
  return Status::Ok();
}

Result<ForeignSnapshot> ReadForeignSnapshot(Warehouse* warehouse, const LakeLayout& layout, int64_t spec_id, const json& snapshot, const std::string& what) {
  ForeignSnapshot out;
  metadata::LakeSnapshot& s = out.snapshot;
  s.snapshot_id = snapshot.value("snapshot-id", int64_t{0});
  s.parent_id = snapshot.value("parent-snapshot-id", int64_t{0});
  s.sequence_number = snapshot.value("sequence-number", int64_t{0});
  s.timestamp_ms = snapshot.value("timestamp-ms", int64_t{0});
  s.manifest_list = snapshot.value("manifest-list", "");
  s.summary = SummaryOf(snapshot);
  if (s.snapshot_id == 0 || s.manifest_list.empty()) {
    return InvalidArgumentError(what + ": the snapshot has no snapshot-id or manifest-list");
  }
  MINK_ASSIGN_OR_RETURN(std::string list_bytes, warehouse->Read(s.manifest_list));
  MINK_ASSIGN_OR_RETURN(auto manifests, ReadManifestList(list_bytes, s.manifest_list));
  for (const auto& m : manifests) {
    if (m.partition_spec_id != spec_id) {
      return InvalidArgumentError(what + ": manifest " + m.manifest_path + " has files of partition spec " +
                                  std::to_string(m.partition_spec_id) + ", not the current one");
    }
    out.manifests.push_back({m.manifest_path, m.manifest_length, m.content, m.sequence_number, m.min_sequence_number,
                             m.added_snapshot_id, m.added_files, m.added_rows, m.existing_files, m.existing_rows});
    MINK_ASSIGN_OR_RETURN(std::string bytes, warehouse->Read(m.manifest_path));
    MINK_ASSIGN_OR_RETURN(auto entries, ReadManifest(bytes, m.manifest_path));
    for (const auto& e : entries) {
      if (e.status == 2) continue;  // DELETED
      const std::string file = what + ": file " + e.file_path;
      if (e.content == 1) return InvalidArgumentError(file + " holds position deletes, which Mink does not read");
      if (e.content == 2 && e.equality_ids != layout.identifier_ids()) {
        return InvalidArgumentError(file + " deletes by fields " + json(e.equality_ids).dump() +
                                    ", not by the primary key");
      }
      std::string format = e.file_format;
      std::transform(format.begin(), format.end(), format.begin(), [](unsigned char c) { return std::tolower(c); });
      if (format != "parquet") return InvalidArgumentError(file + " is " + e.file_format + ", not Parquet");
      if (!warehouse->KeyOf(e.file_path).ok()) return InvalidArgumentError(file + " is not in the warehouse");
      auto partition = layout.PartitionOf(e.partition);
      if (!partition.ok()) return InvalidArgumentError(file + ": " + partition.status().message());
      metadata::LakeFile f;
      f.path = e.file_path;
      f.content = e.content;
      // ADDED entries inherit their numbers from the manifest.
      f.sequence_number = e.sequence_number.value_or(m.sequence_number);
      f.snapshot_id = e.snapshot_id.value_or(m.added_snapshot_id);
      f.stream_id = static_cast<uint64_t>(partition->second);
      f.record_count = e.record_count;
      f.size = e.file_size_in_bytes;
      out.files.push_back(std::move(f));
      out.partitions.push_back(std::move(partition->first));
    }
  }
  return out;
}

}  // namespace mink::lake
