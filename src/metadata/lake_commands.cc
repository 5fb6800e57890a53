#include "metadata/commands_json.h"

namespace mink::metadata {

json ToJson(const LakeFile& f) {
  return {{"path", f.path},         {"content", f.content}, {"seq", f.sequence_number},
          {"snapshot", f.snapshot_id}, {"stream", f.stream_id}, {"records", f.record_count},
          {"size", f.size}};
}

void FromJson(const json& j, LakeFile* f) {
  f->path = j.at("path").get<std::string>();
  f->content = j.at("content").get<int32_t>();
  f->sequence_number = j.at("seq").get<int64_t>();
  f->snapshot_id = j.at("snapshot").get<int64_t>();
  f->stream_id = j.at("stream").get<uint64_t>();
  f->record_count = j.at("records").get<int64_t>();
  f->size = j.at("size").get<int64_t>();
}

json ToJson(const LakeManifest& m) {
  json j = {{"path", m.path},
            {"length", m.length},
            {"content", m.content},
            {"seq", m.sequence_number},
            {"min_seq", m.min_sequence_number},
            {"snapshot", m.snapshot_id},
            {"files", m.added_files},
            {"rows", m.added_rows}};
  if (m.existing_files != 0) {
    j["existing_files"] = m.existing_files;
    j["existing_rows"] = m.existing_rows;
  }
  return j;
}

void FromJson(const json& j, LakeManifest* m) {
  m->path = j.at("path").get<std::string>();
  m->length = j.at("length").get<int64_t>();
  m->content = j.at("content").get<int32_t>();
  m->sequence_number = j.at("seq").get<int64_t>();
  m->min_sequence_number = j.at("min_seq").get<int64_t>();
  m->snapshot_id = j.at("snapshot").get<int64_t>();
  m->added_files = j.at("files").get<int32_t>();
  m->added_rows = j.at("rows").get<int64_t>();
  m->existing_files = j.value("existing_files", int32_t{0});
  m->existing_rows = j.value("existing_rows", int64_t{0});
}

json ToJson(const LakeSnapshot& s) {
  return {{"id", s.snapshot_id},         {"parent", s.parent_id},
          {"seq", s.sequence_number},    {"ts", s.timestamp_ms},
          {"manifest_list", s.manifest_list}, {"summary", s.summary},
          {"schema", s.schema_id}};
}

void FromJson(const json& j, LakeSnapshot* s) {
  s->snapshot_id = j.at("id").get<int64_t>();
  s->parent_id = j.at("parent").get<int64_t>();
  s->sequence_number = j.at("seq").get<int64_t>();
  s->timestamp_ms = j.at("ts").get<int64_t>();
  s->manifest_list = j.at("manifest_list").get<std::string>();
  s->summary = j.at("summary").get<std::map<std::string, std::string>>();
  s->schema_id = j.at("schema").get<int32_t>();
}

namespace {

template <typename T>
json List(const std::vector<T>& items) {
  json out = json::array();
  for (const auto& i : items) out.push_back(ToJson(i));
  return out;
}

template <typename T>
std::vector<T> ListOf(const json& j) {
  std::vector<T> out;
  for (const auto& i : j) {
    T t;
    FromJson(i, &t);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

json ToJson(const CommitLakeSnapshot& c) {
  json offsets = json::array();
  for (const auto& [stream, end] : c.offsets) offsets.push_back({stream, end});
  return {{"table", c.table_id},
          {"parent", c.parent_snapshot_id},
          {"uuid", c.table_uuid},
          {"location", c.location},
          {"snapshot", ToJson(c.snapshot)},
          {"metadata", c.metadata_location},
          {"added_files", List(c.added_files)},
          {"removed_files", c.removed_files},
          {"added_manifests", List(c.added_manifests)},
          {"removed_manifests", c.removed_manifests},
          {"offsets", offsets}};
}

void FromJson(const json& j, CommitLakeSnapshot* c) {
  c->table_id = j.at("table").get<int64_t>();
  c->parent_snapshot_id = j.at("parent").get<int64_t>();
  c->table_uuid = j.at("uuid").get<std::string>();
  c->location = j.at("location").get<std::string>();
  FromJson(j.at("snapshot"), &c->snapshot);
  c->metadata_location = j.at("metadata").get<std::string>();
  c->added_files = ListOf<LakeFile>(j.at("added_files"));
  c->removed_files = j.at("removed_files").get<std::vector<std::string>>();
  c->added_manifests = ListOf<LakeManifest>(j.at("added_manifests"));
  c->removed_manifests = j.at("removed_manifests").get<std::vector<std::string>>();
  for (const auto& o : j.at("offsets")) {
    c->offsets.emplace_back(o.at(0).get<uint64_t>(), o.at(1).get<int64_t>());
  }
}

}  // namespace mink::metadata
