#include "metadata/commands_json.h"

namespace mink::metadata {

json ToJson(const CreateDatabase& c) { return {{"name", c.name}}; }

void FromJson(const json& j, CreateDatabase* c) { c->name = j.at("name").get<std::string>(); }

json ToJson(const DropDatabase& c) { return {{"name", c.name}, {"cascade", c.cascade}}; }

void FromJson(const json& j, DropDatabase* c) {
  c->name = j.at("name").get<std::string>();
  c->cascade = j.at("cascade").get<bool>();
}

json ToJson(const CreateTable& c) {
  json j = {{"database", c.database},          {"name", c.name},
            {"table", c.table_id},             {"descriptor", c.descriptor},
            {"buckets", c.bucket_count},       {"partitioned", c.partitioned},
            {"first_stream", c.first_stream_id}, {"owner", c.owner_node},
            {"owner_epoch", c.owner_node_epoch}};
  if (c.lake_attach) {
    const LakeAttach& a = *c.lake_attach;
    j["lake_attach"] = {{"namespace", a.space},
                        {"name", a.name},
                        {"metadata", a.metadata_location},
                        {"last_seq", a.last_sequence_number},
                        {"commit", ToJson(a.commit)}};
    if (!a.kv_snapshots.empty()) {
      json kv = json::array();
      for (const auto& k : a.kv_snapshots) kv.push_back(ToJson(k));
      j["lake_attach"]["kv"] = std::move(kv);
    }
    if (!a.partitions.empty()) j["lake_attach"]["partitions"] = a.partitions;
    if (a.external) j["lake_attach"]["external"] = true;
  }
  return j;
}

void FromJson(const json& j, CreateTable* c) {
  c->database = j.at("database").get<std::string>();
  c->name = j.at("name").get<std::string>();
  c->table_id = j.at("table").get<int64_t>();
  c->descriptor = j.at("descriptor").get<std::string>();
  c->bucket_count = j.at("buckets").get<int32_t>();
  c->partitioned = j.at("partitioned").get<bool>();
  c->first_stream_id = j.at("first_stream").get<uint64_t>();
  c->owner_node = j.at("owner").get<int32_t>();
  c->owner_node_epoch = j.at("owner_epoch").get<int64_t>();
  if (j.contains("lake_attach")) {
    const json& a = j.at("lake_attach");
    LakeAttach attach;
    attach.space = a.at("namespace").get<std::vector<std::string>>();
    attach.name = a.at("name").get<std::string>();
    attach.metadata_location = a.at("metadata").get<std::string>();
    attach.last_sequence_number = a.at("last_seq").get<int64_t>();
    FromJson(a.at("commit"), &attach.commit);
    if (a.contains("kv")) {
      for (const auto& k : a.at("kv")) {
        CommitKvSnapshot snapshot;
        FromJson(k, &snapshot);
        attach.kv_snapshots.push_back(std::move(snapshot));
      }
    }
    if (a.contains("partitions")) attach.partitions = a.at("partitions").get<std::vector<std::string>>();
    attach.external = a.value("external", false);
    c->lake_attach = std::move(attach);
  }
}

json ToJson(const DropTable& c) { return {{"database", c.database}, {"name", c.name}}; }

void FromJson(const json& j, DropTable* c) {
  c->database = j.at("database").get<std::string>();
  c->name = j.at("name").get<std::string>();
}

json ToJson(const CreatePartition& c) {
  return {{"table", c.table_id},         {"name", c.name},
          {"partition", c.partition_id}, {"first_stream", c.first_stream_id},
          {"owner", c.owner_node},       {"owner_epoch", c.owner_node_epoch}};
}

void FromJson(const json& j, CreatePartition* c) {
  c->table_id = j.at("table").get<int64_t>();
  c->name = j.at("name").get<std::string>();
  c->partition_id = j.at("partition").get<int64_t>();
  c->first_stream_id = j.at("first_stream").get<uint64_t>();
  c->owner_node = j.at("owner").get<int32_t>();
  c->owner_node_epoch = j.at("owner_epoch").get<int64_t>();
}

json ToJson(const AlterTable& c) { return {{"table", c.table_id}, {"descriptor", c.descriptor}}; }

void FromJson(const json& j, AlterTable* c) {
  c->table_id = j.at("table").get<int64_t>();
  c->descriptor = j.at("descriptor").get<std::string>();
}

json ToJson(const AllocateAutoIncrement& c) {
  return {{"table", c.table_id}, {"first", c.first}, {"count", c.count}};
}

void FromJson(const json& j, AllocateAutoIncrement* c) {
  c->table_id = j.at("table").get<int64_t>();
  c->first = j.at("first").get<int64_t>();
  c->count = j.at("count").get<int64_t>();
}

}  // namespace mink::metadata
