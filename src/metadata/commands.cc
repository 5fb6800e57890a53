#include "metadata/commands.h"

#include <nlohmann/json.hpp>

namespace mink::metadata {

using nlohmann::json;

namespace {

json SegmentToJson(const SegmentEntry& s) {
  return json{{"stream", s.stream_id},  {"epoch", s.epoch},   {"start", s.start_offset},
              {"end", s.end_offset},    {"pos", s.position},  {"len", s.length},
              {"max_ts", s.max_timestamp_ms}};
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
  json operator()(const OpenStream& c) const {
    return {{"stream", c.stream_id}, {"epoch", c.epoch}, {"node", c.node_id},
            {"node_epoch", c.node_epoch}};
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
};

struct KindNamer {
  std::string operator()(const RegisterNode&) const { return "node.register"; }
  std::string operator()(const CreateStream&) const { return "stream.create"; }
  std::string operator()(const OpenStream&) const { return "stream.open"; }
  std::string operator()(const CommitObjects&) const { return "objects.commit"; }
  std::string operator()(const ReplaceSegments&) const { return "stream.replace"; }
  std::string operator()(const TrimStream&) const { return "stream.trim"; }
  std::string operator()(const DeleteStream&) const { return "stream.delete"; }
  std::string operator()(const ForgetObjects&) const { return "objects.forget"; }
};

Command Decode(const std::string& kind, const json& j) {
  if (kind == "node.register") {
    return RegisterNode{j.at("node").get<int32_t>(), j.at("node_epoch").get<int64_t>()};
  }
  if (kind == "stream.create") {
    return CreateStream{j.at("stream").get<uint64_t>(), j.at("name").get<std::string>()};
  }
  if (kind == "stream.open") {
    return OpenStream{j.at("stream").get<uint64_t>(), j.at("epoch").get<int64_t>(),
                      j.at("node").get<int32_t>(), j.at("node_epoch").get<int64_t>()};
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
