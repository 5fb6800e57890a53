#include "metadata/state.h"

#include <nlohmann/json.hpp>

namespace mink::metadata {

using nlohmann::json;

const Segment* StreamState::Find(int64_t offset) const {
  auto it = segments.upper_bound(offset);
  if (it == segments.begin()) return nullptr;
  --it;
  return offset < it->second.end_offset ? &it->second : nullptr;
}

const StreamState* State::FindStream(uint64_t id) const {
  auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : &it->second;
}

int64_t State::NodeEpoch(int32_t node_id) const {
  auto it = nodes_.find(node_id);
  return it == nodes_.end() ? 0 : it->second.node_epoch;
}

namespace {

std::string StreamName(uint64_t id) { return "stream " + std::to_string(id); }

}  // namespace

struct Validator {
  const State& s;

  Status CheckNewObject(const ObjectEntry& o) const {
    if (o.key.empty()) return InvalidArgumentError("object key is empty");
    if (s.objects_.count(o.key) || s.unreferenced_.count(o.key)) {
      return AbortedError("object " + o.key + " is already committed");
    }
    if (o.segments.empty()) return InvalidArgumentError("object " + o.key + " has no segments");
    for (const auto& seg : o.segments) {
      if (seg.end_offset <= seg.start_offset) {
        return InvalidArgumentError("object " + o.key + ": empty offset range for " +
                                    StreamName(seg.stream_id));
      }
      if (seg.position + seg.length > o.size || seg.position + seg.length < seg.position) {
        return InvalidArgumentError("object " + o.key + ": segment bytes beyond the object size");
      }
    }
    return Status::Ok();
  }

  Status operator()(const RegisterNode& c) const {
    if (c.node_id <= 0) return InvalidArgumentError("node id must be positive");
    int64_t current = s.NodeEpoch(c.node_id);
    if (c.node_epoch != current + 1) {
      return AbortedError("node " + std::to_string(c.node_id) + " is at epoch " +
                          std::to_string(current) + ", cannot register epoch " +
                          std::to_string(c.node_epoch));
    }
    return Status::Ok();
  }

  Status operator()(const CreateStream& c) const {
    if (c.stream_id != s.next_stream_id_) {
      return AbortedError("stream id " + std::to_string(c.stream_id) + " is not the next id " +
                          std::to_string(s.next_stream_id_));
    }
    return Status::Ok();
  }

  Status operator()(const OpenStream& c) const {
    const StreamState* st = s.FindStream(c.stream_id);
    if (st == nullptr) return NotFoundError("no " + StreamName(c.stream_id));
    if (s.NodeEpoch(c.node_id) != c.node_epoch) {
      return AbortedError("node " + std::to_string(c.node_id) + " epoch " +
                          std::to_string(c.node_epoch) + " is fenced (current " +
                          std::to_string(s.NodeEpoch(c.node_id)) + ")");
    }
    if (c.epoch <= st->epoch) {
      return AbortedError(StreamName(c.stream_id) + " is at epoch " + std::to_string(st->epoch) +
                          ", cannot open at epoch " + std::to_string(c.epoch));
    }
    return Status::Ok();
  }

  Status operator()(const CommitObjects& c) const {
    if (s.NodeEpoch(c.node_id) != c.node_epoch) {
      return AbortedError("node " + std::to_string(c.node_id) + " epoch " +
                          std::to_string(c.node_epoch) + " is fenced");
    }
    std::map<uint64_t, int64_t> ends;  // running end per stream across the command
    std::map<std::string, bool> keys;
    for (const auto& o : c.objects) {
      MINK_RETURN_IF_ERROR(CheckNewObject(o));
      if (!keys.emplace(o.key, true).second) {
        return InvalidArgumentError("object " + o.key + " appears twice in one commit");
      }
      for (const auto& seg : o.segments) {
        const StreamState* st = s.FindStream(seg.stream_id);
        if (st == nullptr) return NotFoundError("no " + StreamName(seg.stream_id));
        if (seg.epoch != st->epoch || st->owner_node != c.node_id ||
            st->owner_node_epoch != c.node_epoch) {
          return AbortedError(StreamName(seg.stream_id) + " is fenced: epoch " +
                              std::to_string(seg.epoch) + " of node " +
                              std::to_string(c.node_id) + " but the stream is at epoch " +
                              std::to_string(st->epoch) + " owned by node " +
                              std::to_string(st->owner_node));
        }
        auto [it, fresh] = ends.emplace(seg.stream_id, st->end_offset);
        if (seg.start_offset != it->second) {
          return AbortedError(StreamName(seg.stream_id) + ": range starting at " +
                              std::to_string(seg.start_offset) +
                              " does not continue the committed end " +
                              std::to_string(it->second));
        }
        it->second = seg.end_offset;
      }
    }
    return Status::Ok();
  }

  Status operator()(const ReplaceSegments& c) const {
    const StreamState* st = s.FindStream(c.stream_id);
    if (st == nullptr) return NotFoundError("no " + StreamName(c.stream_id));
    if (c.start_offset >= c.end_offset) return InvalidArgumentError("empty range to replace");
    auto it = st->segments.find(c.start_offset);
    size_t i = 0;
    int64_t at = c.start_offset;
    while (at < c.end_offset) {
      if (it == st->segments.end() || it->first != at || i >= c.replaced_keys.size() ||
          it->second.object_key != c.replaced_keys[i]) {
        return AbortedError(StreamName(c.stream_id) + ": segments to replace changed");
      }
      at = it->second.end_offset;
      ++it;
      ++i;
    }
    if (at != c.end_offset || i != c.replaced_keys.size()) {
      return AbortedError(StreamName(c.stream_id) + ": segments to replace changed");
    }
    MINK_RETURN_IF_ERROR(CheckNewObject(c.object));
    int64_t next = c.start_offset;
    for (const auto& seg : c.object.segments) {
      if (seg.stream_id != c.stream_id || seg.start_offset != next) {
        return InvalidArgumentError("replacement segments do not cover the range contiguously");
      }
      next = seg.end_offset;
    }
    if (next != c.end_offset) {
      return InvalidArgumentError("replacement segments do not cover the range contiguously");
    }
    return Status::Ok();
  }

  Status operator()(const TrimStream& c) const {
    const StreamState* st = s.FindStream(c.stream_id);
    if (st == nullptr) return NotFoundError("no " + StreamName(c.stream_id));
    if (c.new_start <= st->start_offset || c.new_start > st->end_offset) {
      return FailedPreconditionError(StreamName(c.stream_id) + ": cannot trim to " +
                                     std::to_string(c.new_start) + " (readable range " +
                                     std::to_string(st->start_offset) + ".." +
                                     std::to_string(st->end_offset) + ")");
    }
    return Status::Ok();
  }

  Status operator()(const DeleteStream& c) const {
    if (s.FindStream(c.stream_id) == nullptr) return NotFoundError("no " + StreamName(c.stream_id));
    return Status::Ok();
  }

  Status operator()(const ForgetObjects& c) const {
    for (const auto& key : c.keys) {
      if (!s.unreferenced_.count(key)) {
        return FailedPreconditionError("object " + key + " is not awaiting deletion");
      }
    }
    return Status::Ok();
  }
};

Status State::Validate(const Command& command) const { return std::visit(Validator{*this}, command); }

void State::AddObject(const ObjectEntry& o, int64_t time_ms) {
  objects_[o.key] = ObjectState{o.key, o.bucket_id, o.size,
                                static_cast<int64_t>(o.segments.size()), time_ms};
  for (const auto& seg : o.segments) {
    StreamState& st = streams_[seg.stream_id];
    st.segments[seg.start_offset] =
        Segment{seg.start_offset, seg.end_offset, o.key, o.bucket_id,
                seg.position,     seg.length,     seg.max_timestamp_ms};
  }
}

void State::Unreference(const std::string& key, int64_t time_ms) {
  auto it = objects_.find(key);
  if (it == objects_.end()) return;
  if (--it->second.references <= 0) {
    objects_.erase(it);
    unreferenced_[key] = time_ms;
  }
}

struct Applier {
  State& s;
  int64_t time_ms;

  void operator()(const RegisterNode& c) const {
    s.nodes_[c.node_id] = NodeState{c.node_id, c.node_epoch};
  }
  void operator()(const CreateStream& c) const {
    StreamState st;
    st.stream_id = c.stream_id;
    st.name = c.name;
    s.streams_[c.stream_id] = std::move(st);
    s.next_stream_id_ = c.stream_id + 1;
  }
  void operator()(const OpenStream& c) const {
    StreamState& st = s.streams_[c.stream_id];
    st.epoch = c.epoch;
    st.owner_node = c.node_id;
    st.owner_node_epoch = c.node_epoch;
  }
  void operator()(const CommitObjects& c) const {
    for (const auto& o : c.objects) {
      s.AddObject(o, time_ms);
      for (const auto& seg : o.segments) {
        StreamState& st = s.streams_[seg.stream_id];
        st.end_offset = std::max(st.end_offset, seg.end_offset);
      }
    }
  }
  void operator()(const ReplaceSegments& c) const {
    StreamState& st = s.streams_[c.stream_id];
    auto it = st.segments.find(c.start_offset);
    while (it != st.segments.end() && it->first < c.end_offset) {
      std::string key = it->second.object_key;
      it = st.segments.erase(it);
      s.Unreference(key, time_ms);
    }
    s.AddObject(c.object, time_ms);
  }
  void operator()(const TrimStream& c) const {
    StreamState& st = s.streams_[c.stream_id];
    st.start_offset = c.new_start;
    auto it = st.segments.begin();
    while (it != st.segments.end() && it->second.end_offset <= c.new_start) {
      std::string key = it->second.object_key;
      it = st.segments.erase(it);
      s.Unreference(key, time_ms);
    }
  }
  void operator()(const DeleteStream& c) const {
    auto found = s.streams_.find(c.stream_id);
    std::vector<std::string> keys;
    for (const auto& [start, seg] : found->second.segments) keys.push_back(seg.object_key);
    s.streams_.erase(found);
    for (const auto& key : keys) s.Unreference(key, time_ms);
  }
  void operator()(const ForgetObjects& c) const {
    for (const auto& key : c.keys) s.unreferenced_.erase(key);
  }
};

void State::Apply(const Command& command, int64_t seq, int64_t time_ms) {
  std::visit(Applier{*this, time_ms}, command);
  applied_seq_ = seq;
}

std::string State::Serialize() const {
  json j;
  j["version"] = 1;
  j["applied_seq"] = applied_seq_;
  j["next_stream_id"] = next_stream_id_;
  json nodes = json::array();
  for (const auto& [id, n] : nodes_) nodes.push_back({id, n.node_epoch});
  j["nodes"] = nodes;
  json streams = json::array();
  for (const auto& [id, st] : streams_) {
    json segments = json::array();
    for (const auto& [start, seg] : st.segments) {
      segments.push_back({seg.start_offset, seg.end_offset, seg.object_key, seg.bucket_id,
                          seg.position, seg.length, seg.max_timestamp_ms});
    }
    streams.push_back({{"id", id},
                       {"name", st.name},
                       {"epoch", st.epoch},
                       {"owner", st.owner_node},
                       {"owner_epoch", st.owner_node_epoch},
                       {"start", st.start_offset},
                       {"end", st.end_offset},
                       {"segments", segments}});
  }
  j["streams"] = streams;
  json objects = json::array();
  for (const auto& [key, o] : objects_) {
    objects.push_back({key, o.bucket_id, o.size, o.references, o.committed_ms});
  }
  j["objects"] = objects;
  j["unreferenced"] = unreferenced_;
  return j.dump();
}

Result<State> State::Deserialize(const std::string& text) {
  try {
    json j = json::parse(text);
    if (j.at("version").get<int>() != 1) {
      return InvalidArgumentError("unknown metadata snapshot version");
    }
    State s;
    s.applied_seq_ = j.at("applied_seq").get<int64_t>();
    s.next_stream_id_ = j.at("next_stream_id").get<uint64_t>();
    for (const auto& n : j.at("nodes")) {
      int32_t id = n.at(0).get<int32_t>();
      s.nodes_[id] = NodeState{id, n.at(1).get<int64_t>()};
    }
    for (const auto& js : j.at("streams")) {
      StreamState st;
      st.stream_id = js.at("id").get<uint64_t>();
      st.name = js.at("name").get<std::string>();
      st.epoch = js.at("epoch").get<int64_t>();
      st.owner_node = js.at("owner").get<int32_t>();
      st.owner_node_epoch = js.at("owner_epoch").get<int64_t>();
      st.start_offset = js.at("start").get<int64_t>();
      st.end_offset = js.at("end").get<int64_t>();
      for (const auto& g : js.at("segments")) {
        Segment seg{g.at(0).get<int64_t>(),  g.at(1).get<int64_t>(),  g.at(2).get<std::string>(),
                    g.at(3).get<int32_t>(),  g.at(4).get<uint64_t>(), g.at(5).get<uint64_t>(),
                    g.at(6).get<int64_t>()};
        st.segments[seg.start_offset] = seg;
      }
      s.streams_[st.stream_id] = std::move(st);
    }
    for (const auto& o : j.at("objects")) {
      std::string key = o.at(0).get<std::string>();
      s.objects_[key] = ObjectState{key, o.at(1).get<int32_t>(), o.at(2).get<uint64_t>(),
                                    o.at(3).get<int64_t>(), o.at(4).get<int64_t>()};
    }
    s.unreferenced_ = j.at("unreferenced").get<std::map<std::string, int64_t>>();
    return s;
  } catch (const std::exception& e) {
    return DataLossError(std::string("metadata snapshot does not parse: ") + e.what());
  }
}

}  // namespace mink::metadata
