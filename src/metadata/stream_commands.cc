#include "metadata/commands_json.h"

namespace mink::metadata {
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

}  // namespace

json ToJson(const CreateStream& c) { return {{"stream", c.stream_id}, {"name", c.name}}; }

void FromJson(const json& j, CreateStream* c) {
  c->stream_id = j.at("stream").get<uint64_t>();
  c->name = j.at("name").get<std::string>();
}

json ToJson(const OpenStreams& c) {
  json streams = json::array();
  for (const auto& s : c.streams) streams.push_back({s.stream_id, s.epoch});
  return {{"node", c.node_id}, {"node_epoch", c.node_epoch}, {"streams", streams}};
}

void FromJson(const json& j, OpenStreams* c) {
  c->node_id = j.at("node").get<int32_t>();
  c->node_epoch = j.at("node_epoch").get<int64_t>();
  for (const auto& s : j.at("streams")) {
    c->streams.push_back(StreamEpoch{s.at(0).get<uint64_t>(), s.at(1).get<int64_t>()});
  }
}

json ToJson(const CommitObjects& c) {
  json objects = json::array();
  for (const auto& o : c.objects) objects.push_back(ObjectToJson(o));
  return {{"node", c.node_id}, {"node_epoch", c.node_epoch}, {"objects", objects}};
}

void FromJson(const json& j, CommitObjects* c) {
  c->node_id = j.at("node").get<int32_t>();
  c->node_epoch = j.at("node_epoch").get<int64_t>();
  for (const auto& o : j.at("objects")) c->objects.push_back(ObjectFromJson(o));
}

json ToJson(const ReplaceSegments& c) {
  return {{"stream", c.stream_id}, {"start", c.start_offset}, {"end", c.end_offset},
          {"replaced", c.replaced_keys}, {"object", ObjectToJson(c.object)}};
}

void FromJson(const json& j, ReplaceSegments* c) {
  c->stream_id = j.at("stream").get<uint64_t>();
  c->start_offset = j.at("start").get<int64_t>();
  c->end_offset = j.at("end").get<int64_t>();
  c->replaced_keys = j.at("replaced").get<std::vector<std::string>>();
  c->object = ObjectFromJson(j.at("object"));
}

json ToJson(const TrimStream& c) { return {{"stream", c.stream_id}, {"new_start", c.new_start}}; }

void FromJson(const json& j, TrimStream* c) {
  c->stream_id = j.at("stream").get<uint64_t>();
  c->new_start = j.at("new_start").get<int64_t>();
}

json ToJson(const DeleteStream& c) { return {{"stream", c.stream_id}}; }

void FromJson(const json& j, DeleteStream* c) { c->stream_id = j.at("stream").get<uint64_t>(); }

json ToJson(const AssignStreams& c) {
  json assignments = json::array();
  for (const auto& a : c.assignments) {
    json one = {a.stream_id, a.node_id};
    if (a.takeover) one.push_back(1);
    assignments.push_back(std::move(one));
  }
  return {{"coordinator", c.coordinator}, {"lease_epoch", c.lease_epoch},
          {"assignments", assignments}};
}

void FromJson(const json& j, AssignStreams* c) {
  c->coordinator = j.at("coordinator").get<int32_t>();
  c->lease_epoch = j.at("lease_epoch").get<int64_t>();
  for (const auto& a : j.at("assignments")) {
    c->assignments.push_back(StreamAssignment{a.at(0).get<uint64_t>(), a.at(1).get<int32_t>(),
                                              a.size() > 2 && a.at(2).get<int>() != 0});
  }
}

json ToJson(const ReleaseStreams& c) {
  return {{"node", c.node_id}, {"node_epoch", c.node_epoch}, {"streams", c.stream_ids}};
}

void FromJson(const json& j, ReleaseStreams* c) {
  c->node_id = j.at("node").get<int32_t>();
  c->node_epoch = j.at("node_epoch").get<int64_t>();
  c->stream_ids = j.at("streams").get<std::vector<uint64_t>>();
}

json ToJson(const ForgetObjects& c) { return {{"keys", c.keys}}; }

void FromJson(const json& j, ForgetObjects* c) {
  c->keys = j.at("keys").get<std::vector<std::string>>();
}

}  // namespace mink::metadata
