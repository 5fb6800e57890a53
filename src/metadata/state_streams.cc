// The streams-and-objects domain of the state machine: streams, their owners and epochs, the
// objects holding their batches, and the garbage left when objects lose their last segment.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "metadata/state.h"

namespace mink::metadata {

namespace {

std::string StreamName(uint64_t id) { return "stream " + std::to_string(id); }

}  // namespace

Status State::CheckNewObject(const ObjectEntry& o) const {
    if (o.key.empty()) return InvalidArgumentError("object key is empty");
    if (objects_.count(o.key) || unreferenced_.count(o.key)) {
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

Status State::CheckOwner(int32_t node, int64_t node_epoch) const {
    if (node != 0 && NodeEpoch(node) != node_epoch) {
      return AbortedError("node " + std::to_string(node) + " epoch " +
                          std::to_string(node_epoch) + " is fenced (current " +
                          std::to_string(NodeEpoch(node)) + ")");
    }
    return Status::Ok();
  }

Status State::CheckCommand(const CreateStream& c) const {
    if (c.stream_id != next_stream_id_) {
      return AbortedError("stream id " + std::to_string(c.stream_id) + " is not the next id " +
                          std::to_string(next_stream_id_));
    }
    return Status::Ok();
  }

void State::ApplyCommand(const CreateStream& c, int64_t /*time_ms*/) {
    StreamState st;
    st.stream_id = c.stream_id;
    st.name = c.name;
    streams_[c.stream_id] = std::move(st);
    next_stream_id_ = c.stream_id + 1;
  }

Status State::CheckCommand(const OpenStreams& c) const {
    if (c.streams.empty()) return InvalidArgumentError("no streams to open");
    MINK_RETURN_IF_ERROR(CheckOwner(c.node_id, c.node_epoch));
    std::map<uint64_t, bool> seen;
    for (const auto& se : c.streams) {
      const StreamState* st = FindStream(se.stream_id);
      if (st == nullptr) return NotFoundError("no " + StreamName(se.stream_id));
      if (!seen.emplace(se.stream_id, true).second) {
        return InvalidArgumentError(StreamName(se.stream_id) + " appears twice");
      }
      if (se.epoch <= st->epoch) {
        return AbortedError(StreamName(se.stream_id) + " is at epoch " +
                            std::to_string(st->epoch) + ", cannot open at epoch " +
                            std::to_string(se.epoch));
      }
    }
    return Status::Ok();
  }

void State::ApplyCommand(const OpenStreams& c, int64_t /*time_ms*/) {
    for (const auto& se : c.streams) {
      StreamState& st = streams_[se.stream_id];
      st.epoch = se.epoch;
      st.owner_node = c.node_id;
      st.owner_node_epoch = c.node_epoch;
    }
  }

Status State::CheckCommand(const CommitObjects& c) const {
    if (NodeEpoch(c.node_id) != c.node_epoch) {
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
        const StreamState* st = FindStream(seg.stream_id);
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

void State::ApplyCommand(const CommitObjects& c, int64_t time_ms) {
    for (const auto& o : c.objects) {
      AddObject(o, time_ms);
      for (const auto& seg : o.segments) {
        StreamState& st = streams_[seg.stream_id];
        st.end_offset = std::max(st.end_offset, seg.end_offset);
      }
    }
  }

Status State::CheckCommand(const ReplaceSegments& c) const {
    const StreamState* st = FindStream(c.stream_id);
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

void State::ApplyCommand(const ReplaceSegments& c, int64_t time_ms) {
    StreamState& st = streams_[c.stream_id];
    auto it = st.segments.find(c.start_offset);
    while (it != st.segments.end() && it->first < c.end_offset) {
      std::string key = it->second.object_key;
      it = st.segments.erase(it);
      Unreference(key, time_ms);
    }
    AddObject(c.object, time_ms);
  }

Status State::CheckCommand(const TrimStream& c) const {
    const StreamState* st = FindStream(c.stream_id);
    if (st == nullptr) return NotFoundError("no " + StreamName(c.stream_id));
    if (c.new_start <= st->start_offset || c.new_start > st->end_offset) {
      return FailedPreconditionError(StreamName(c.stream_id) + ": cannot trim to " +
                                     std::to_string(c.new_start) + " (readable range " +
                                     std::to_string(st->start_offset) + ".." +
                                     std::to_string(st->end_offset) + ")");
    }
    return Status::Ok();
  }

void State::ApplyCommand(const TrimStream& c, int64_t time_ms) {
    StreamState& st = streams_[c.stream_id];
    st.start_offset = c.new_start;
    auto it = st.segments.begin();
    while (it != st.segments.end() && it->second.end_offset <= c.new_start) {
      std::string key = it->second.object_key;
      it = st.segments.erase(it);
      Unreference(key, time_ms);
    }
  }

Status State::CheckCommand(const DeleteStream& c) const {
    if (FindStream(c.stream_id) == nullptr) return NotFoundError("no " + StreamName(c.stream_id));
    return Status::Ok();
  }

void State::ApplyCommand(const DeleteStream& c, int64_t time_ms) { RemoveStream(c.stream_id, time_ms); }

Status State::CheckCommand(const ForgetObjects& c) const {
    for (const auto& key : c.keys) {
      if (!unreferenced_.count(key)) {
        return FailedPreconditionError("object " + key + " is not awaiting deletion");
      }
    }
    return Status::Ok();
  }

void State::ApplyCommand(const ForgetObjects& c, int64_t /*time_ms*/) {
    for (const auto& key : c.keys) unreferenced_.erase(key);
  }

void State::AddObject(const ObjectEntry& o, int64_t time_ms) {
  objects_[o.key] = ObjectState{o.key, o.bucket_id, o.size,
                                static_cast<int64_t>(o.segments.size()), time_ms};
  for (const auto& seg : o.segments) {
    StreamState& st = streams_[seg.stream_id];
    st.segments[seg.start_offset] =
        Segment{seg.start_offset, seg.end_offset, o.key,           o.bucket_id,
                seg.position,     seg.length,     seg.max_timestamp_ms, seg.max_record_time_ms};
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

std::vector<uint64_t> State::AddStreams(uint64_t first, int32_t count, const std::string& prefix,
                                        int32_t owner, int64_t owner_epoch) {
  std::vector<uint64_t> ids;
  for (int32_t b = 0; b < count; ++b) {
    StreamState st;
    st.stream_id = first + static_cast<uint64_t>(b);
    st.name = prefix + "b" + std::to_string(b);
    if (owner != 0) {
      st.epoch = 1;
      st.owner_node = owner;
      st.owner_node_epoch = owner_epoch;
    }
    streams_[st.stream_id] = std::move(st);
    ids.push_back(first + static_cast<uint64_t>(b));
  }
  next_stream_id_ = first + static_cast<uint64_t>(count);
  return ids;
}

void State::RemoveStream(uint64_t stream_id, int64_t time_ms) {
  auto found = streams_.find(stream_id);
  if (found == streams_.end()) return;
  std::vector<std::string> keys;
  for (const auto& [start, seg] : found->second.segments) keys.push_back(seg.object_key);
  streams_.erase(found);
  for (const auto& key : keys) Unreference(key, time_ms);
  auto snapshot = kv_snapshots_.find(stream_id);
  if (snapshot != kv_snapshots_.end()) {
    ReleaseKvSnapshot(snapshot->second, time_ms);
    kv_snapshots_.erase(snapshot);
  }
}

Status State::CheckCommand(const AssignStreams& c) const {
  if (c.coordinator == 0 || c.coordinator != coordinator_.node_id ||
      c.lease_epoch != coordinator_.lease_epoch) {
    return AbortedError("node " + std::to_string(c.coordinator) + " at lease epoch " +
                        std::to_string(c.lease_epoch) + " is not the elected coordinator (node " +
                        std::to_string(coordinator_.node_id) + " at lease epoch " +
                        std::to_string(coordinator_.lease_epoch) + ")");
  }
  if (c.assignments.empty()) return InvalidArgumentError("no streams to assign");
  std::map<uint64_t, bool> seen;
  for (const auto& a : c.assignments) {
    if (FindStream(a.stream_id) == nullptr) return NotFoundError("no " + StreamName(a.stream_id));
    if (!seen.emplace(a.stream_id, true).second) {
      return InvalidArgumentError(StreamName(a.stream_id) + " appears twice");
    }
    if (NodeEpoch(a.node_id) == 0) {
      return NotFoundError("node " + std::to_string(a.node_id) + " never registered");
    }
  }
  return Status::Ok();
}

void State::ApplyCommand(const AssignStreams& c, int64_t /*time_ms*/) {
  for (const auto& a : c.assignments) {
    StreamState& st = streams_[a.stream_id];
    st.assigned_node = a.node_id;
    if (a.takeover) {
      st.owner_node = 0;
      st.owner_node_epoch = 0;
    }
  }
}

Status State::CheckCommand(const ReleaseStreams& c) const {
  MINK_RETURN_IF_ERROR(CheckOwner(c.node_id, c.node_epoch));
  if (c.stream_ids.empty()) return InvalidArgumentError("no streams to release");
  for (uint64_t id : c.stream_ids) {
    const StreamState* st = FindStream(id);
    if (st == nullptr) return NotFoundError("no " + StreamName(id));
    if (st->owner_node != c.node_id || st->owner_node_epoch != c.node_epoch) {
      return AbortedError(StreamName(id) + " is not owned by node " + std::to_string(c.node_id) +
                          " epoch " + std::to_string(c.node_epoch));
    }
  }
  return Status::Ok();
}

void State::ApplyCommand(const ReleaseStreams& c, int64_t /*time_ms*/) {
  for (uint64_t id : c.stream_ids) {
    StreamState& st = streams_[id];
    st.owner_node = 0;
    st.owner_node_epoch = 0;
  }
}

}  // namespace mink::metadata
