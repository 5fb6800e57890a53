#include "metadata/commands.h"

#include <nlohmann/json.hpp>

namespace mink::metadata {

using nlohmann::json;

namespace {

json SegmentToJson(const SegmentEntry& s) {
  json j{{"stream", s.stream_id}, {"epoch", s.epoch}, {"start", s.start_offset},
         {"end", s.end_offset},   {"pos", s.position}, {"len", s.length},
         {"max_ts", s.max_timestamp_ms}};
  if (s.max_record_time_ms != kUnknownRecordTime) j["max_rec_ts"] = s.max_record_time_ms;
  return j;
}

SegmentEntry SegmentFromJson(const json& j) {
  SegmentEntry s;
  s.stream_id = j.at("stream").get<uint64_t>();
  s.epoch = j.at("epoch").get<int64_t>();
  s.start_offset = j.at("start").get<int64_t>();
  s.end_offset = j.at("end").get<int64_t>();
  s.position = j.at("pos").get<uint64_t>();
  s.length = j.at("len").get<uint64_t>();
  s.max_timestamp_ms = j.at("max_ts").get<int64_t>();
  // Absent in commands written before record-time bounds existed, and for undeclared ones.
  s.max_record_time_ms = j.value("max_rec_ts", kUnknownRecordTime);
  return s;
}

json ObjectToJson(const ObjectEntry& o) {
  json segments = json::array();
  for (const auto& s : o.segments) segments.push_back(SegmentToJson(s));
  return json{{"key", o.key}, {"bucket", o.bucket_id}, {"size", o.size}, {"segments", segments}};
}

ObjectEntry ObjectFromJson(const json& j) {
  ObjectEntry o;
  o.key = j.at("key").get<std::string>();
  o.bucket_id = j.at("bucket").get<int32_t>();
  o.size = j.at("size").get<uint64_t>();
  for (const auto& s : j.at("segments")) o.segments.push_back(SegmentFromJson(s));
  return o;
}

struct Encoder {
  json operator()(const RegisterNode& c) const {
    return {{"node", c.node_id}, {"node_epoch", c.node_epoch}};
  }
  json operator()(const CreateStream& c) const { return {{"stream", c.stream_id}, {"name", c.name}}; }
  json operator()(const OpenStreams& c) const {
    json streams = json::array();
    for (const auto& s : c.streams) streams.push_back({s.stream_id, s.epoch});
    return {{"node", c.node_id}, {"node_epoch", c.node_epoch}, {"streams", streams}};
  }
  json operator()(const CommitObjects& c) const {
    json objects = json::array();
    for (const auto& o : c.objects) objects.push_back(ObjectToJson(o));
    return {{"node", c.node_id}, {"node_epoch", c.node_epoch}, {"objects", objects}};
  }
  json operator()(const ReplaceSegments& c) const {
    return {{"stream", c.stream_id}, {"start", c.start_offset}, {"end", c.end_offset},
            {"replaced", c.replaced_keys}, {"object", ObjectToJson(c.object)}};
  }
  json operator()(const TrimStream& c) const {
    return {{"stream", c.stream_id}, {"new_start", c.new_start}};
  }
  json operator()(const DeleteStream& c) const { return {{"stream", c.stream_id}}; }
  json operator()(const ForgetObjects& c) const { return {{"keys", c.keys}}; }
  json operator()(const CreateDatabase& c) const { return {{"name", c.name}}; }
  json operator()(const DropDatabase& c) const { return {{"name", c.name}, {"cascade", c.cascade}}; }
  json operator()(const CreateTable& c) const {
    return {{"database", c.database},       {"name", c.name},
            {"table", c.table_id},          {"descriptor", c.descriptor},
            {"buckets", c.bucket_count},    {"partitioned", c.partitioned},
            {"first_stream", c.first_stream_id}, {"owner", c.owner_node},
            {"owner_epoch", c.owner_node_epoch}};
  }
  json operator()(const DropTable& c) const { return {{"database", c.database}, {"name", c.name}}; }
  json operator()(const CreatePartition& c) const {
    return {{"table", c.table_id},          {"name", c.name},
            {"partition", c.partition_id},  {"first_stream", c.first_stream_id},
            {"owner", c.owner_node},        {"owner_epoch", c.owner_node_epoch}};
  }
  json operator()(const AlterTable& c) const {
    return {{"table", c.table_id}, {"descriptor", c.descriptor}};
  }
  json operator()(const AllocateWriterId& c) const { return {{"writer", c.writer_id}}; }
  json operator()(const CommitKvSnapshot& c) const {
    return {{"stream", c.stream_id}, {"key", c.key}, {"bucket", c.bucket_id},
            {"size", c.size}, {"offset", c.offset}};
  }
};

struct KindNamer {
  std::string operator()(const RegisterNode&) const { return "node.register"; }
  std::string operator()(const CreateStream&) const { return "stream.create"; }
  std::string operator()(const OpenStreams&) const { return "streams.open"; }
  std::string operator()(const CommitObjects&) const { return "objects.commit"; }
  std::string operator()(const ReplaceSegments&) const { return "stream.replace"; }
  std::string operator()(const TrimStream&) const { return "stream.trim"; }
  std::string operator()(const DeleteStream&) const { return "stream.delete"; }
  std::string operator()(const ForgetObjects&) const { return "objects.forget"; }
  std::string operator()(const CreateDatabase&) const { return "database.create"; }
  std::string operator()(const DropDatabase&) const { return "database.drop"; }
  std::string operator()(const CreateTable&) const { return "table.create"; }
  std::string operator()(const DropTable&) const { return "table.drop"; }
  std::string operator()(const CreatePartition&) const { return "partition.create"; }
  std::string operator()(const AlterTable&) const { return "table.alter"; }
  std::string operator()(const AllocateWriterId&) const { return "writer.allocate"; }
  std::string operator()(const CommitKvSnapshot&) const { return "kv.snapshot"; }
};

Command Decode(const std::string& kind, const json& j) {
  if (kind == "node.register") {
    return RegisterNode{j.at("node").get<int32_t>(), j.at("node_epoch").get<int64_t>()};
  }
  if (kind == "stream.create") {
    return CreateStream{j.at("stream").get<uint64_t>(), j.at("name").get<std::string>()};
  }
  if (kind == "streams.open") {
    OpenStreams c;
    c.node_id = j.at("node").get<int32_t>();
    c.node_epoch = j.at("node_epoch").get<int64_t>();
    for (const auto& s : j.at("streams")) {
      c.streams.push_back(StreamEpoch{s.at(0).get<uint64_t>(), s.at(1).get<int64_t>()});
    }
    return c;
  }
  if (kind == "objects.commit") {
    CommitObjects c;
    c.node_id = j.at("node").get<int32_t>();
    c.node_epoch = j.at("node_epoch").get<int64_t>();
    for (const auto& o : j.at("objects")) c.objects.push_back(ObjectFromJson(o));
    return c;
  }
  if (kind == "stream.replace") {
    ReplaceSegments c;
    c.stream_id = j.at("stream").get<uint64_t>();
    c.start_offset = j.at("start").get<int64_t>();
    c.end_offset = j.at("end").get<int64_t>();
    c.replaced_keys = j.at("replaced").get<std::vector<std::string>>();
    c.object = ObjectFromJson(j.at("object"));
    return c;
  }
  if (kind == "stream.trim") {
    return TrimStream{j.at("stream").get<uint64_t>(), j.at("new_start").get<int64_t>()};
  }
  if (kind == "stream.delete") return DeleteStream{j.at("stream").get<uint64_t>()};
  if (kind == "objects.forget") return ForgetObjects{j.at("keys").get<std::vector<std::string>>()};
  if (kind == "database.create") return CreateDatabase{j.at("name").get<std::string>()};
  if (kind == "database.drop") {
    return DropDatabase{j.at("name").get<std::string>(), j.at("cascade").get<bool>()};
  }
  if (kind == "table.create") {
    CreateTable c;
    c.database = j.at("database").get<std::string>();
    c.name = j.at("name").get<std::string>();
    c.table_id = j.at("table").get<int64_t>();
    c.descriptor = j.at("descriptor").get<std::string>();
    c.bucket_count = j.at("buckets").get<int32_t>();
    c.partitioned = j.at("partitioned").get<bool>();
    c.first_stream_id = j.at("first_stream").get<uint64_t>();
    c.owner_node = j.at("owner").get<int32_t>();
    c.owner_node_epoch = j.at("owner_epoch").get<int64_t>();
    return c;
  }
  if (kind == "table.drop") {
    return DropTable{j.at("database").get<std::string>(), j.at("name").get<std::string>()};
  }
  if (kind == "partition.create") {
    CreatePartition c;
    c.table_id = j.at("table").get<int64_t>();
    c.name = j.at("name").get<std::string>();
    c.partition_id = j.at("partition").get<int64_t>();
    c.first_stream_id = j.at("first_stream").get<uint64_t>();
    c.owner_node = j.at("owner").get<int32_t>();
    c.owner_node_epoch = j.at("owner_epoch").get<int64_t>();
    return c;
  }
  if (kind == "table.alter") {
    return AlterTable{j.at("table").get<int64_t>(), j.at("descriptor").get<std::string>()};
  }
  if (kind == "writer.allocate") return AllocateWriterId{j.at("writer").get<int64_t>()};
  if (kind == "kv.snapshot") {
    return CommitKvSnapshot{j.at("stream").get<uint64_t>(), j.at("key").get<std::string>(),
                            j.at("bucket").get<int32_t>(), j.at("size").get<uint64_t>(),
                            j.at("offset").get<int64_t>()};
  }
  throw std::invalid_argument("unknown command kind '" + kind + "'");
}

}  // namespace

std::string KindOf(const Command& command) { return std::visit(KindNamer{}, command); }

std::string EncodeBody(const Command& command) { return std::visit(Encoder{}, command).dump(); }

Result<Command> DecodeCommand(const std::string& kind, const std::string& body) {
  try {
    return Decode(kind, json::parse(body));
  } catch (const std::exception& e) {
    return InvalidArgumentError("cannot decode metadata command " + kind + ": " + e.what());
  }
}

}  // namespace mink::metadata
