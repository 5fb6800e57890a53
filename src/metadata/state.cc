#include "metadata/state.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <string_view>
#include <type_traits>

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

const TableState* State::FindTable(const std::string& database, const std::string& name) const {
  for (const auto& [id, t] : tables_) {
    if (t.database == database && t.name == name) return &t;
  }
  return nullptr;
}

const TableState* State::FindTable(int64_t table_id) const {
  auto it = tables_.find(table_id);
  return it == tables_.end() ? nullptr : &it->second;
}

namespace {

// JSON text pieces for Serialize, written exactly as json::dump() writes them.
template <typename Int>
void AppendJsonInt(std::string* out, Int value) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, end);
}

void AppendJsonString(std::string* out, std::string_view text) {
  out->push_back('"');
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (c < 0x20) {
          constexpr char kHex[] = "0123456789abcdef";
          *out += "\\u00";
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xF]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

void AppendJsonValue(std::string* out, const std::string& text) { AppendJsonString(out, text); }
template <typename Int>
  requires std::is_integral_v<Int>
void AppendJsonValue(std::string* out, Int value) {
  AppendJsonInt(out, value);
}

// Appends the array `[v1,v2,...]` as the next element of an enclosing array (a comma first
// unless *first).
template <typename... Values>
void AppendJsonTuple(std::string* out, bool* first, const Values&... values) {
  if (!*first) out->push_back(',');
  *first = false;
  out->push_back('[');
  const char* sep = "";
  ((out->append(sep), sep = ",", AppendJsonValue(out, values)), ...);
  out->push_back(']');
}

std::string StreamName(uint64_t id) { return "stream " + std::to_string(id); }

// Database and table names: letters, digits, '_' and '-' (tables also '.', as Kafka topic names
// have them), not starting with "__", at most 249 bytes.
Status CheckName(const std::string& what, const std::string& name) {
  const bool table = what == "table";
  bool ok = !name.empty() && name.size() <= 249 && name.rfind("__", 0) != 0 && name != "." &&
            name != "..";
  for (char c : name) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-' || (table && c == '.'));
  }
  if (!ok) {
    return InvalidArgumentError(what + " name '" + name + "' must be 1-249 letters, digits, '_'" +
                                (table ? ", '-' or '.'" : " or '-'") + " (not starting with __)");
  }
  return Status::Ok();
}

constexpr int32_t kMaxBuckets = 4096;
constexpr size_t kMaxPartitions = 1000;

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

  Status CheckOwner(int32_t node, int64_t node_epoch) const {
    if (node != 0 && s.NodeEpoch(node) != node_epoch) {
      return AbortedError("node " + std::to_string(node) + " epoch " +
                          std::to_string(node_epoch) + " is fenced (current " +
                          std::to_string(s.NodeEpoch(node)) + ")");
    }
    return Status::Ok();
  }

  Status operator()(const OpenStreams& c) const {
    if (c.streams.empty()) return InvalidArgumentError("no streams to open");
    MINK_RETURN_IF_ERROR(CheckOwner(c.node_id, c.node_epoch));
    std::map<uint64_t, bool> seen;
    for (const auto& se : c.streams) {
      const StreamState* st = s.FindStream(se.stream_id);
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

  Status operator()(const CreateDatabase& c) const {
    MINK_RETURN_IF_ERROR(CheckName("database", c.name));
    if (s.databases_.count(c.name)) {
      return AlreadyExistsError("database " + c.name + " already exists");
    }
    return Status::Ok();
  }

  Status operator()(const DropDatabase& c) const {
    if (!s.databases_.count(c.name)) return NotFoundError("database " + c.name + " does not exist");
    if (!c.cascade) {
      size_t tables = 0;
      for (const auto& [id, t] : s.tables_) tables += t.database == c.name ? 1 : 0;
      if (tables > 0) {
        return FailedPreconditionError("database " + c.name + " is not empty (" +
                                       std::to_string(tables) + " tables); drop them first");
      }
    }
    return Status::Ok();
  }

  Status operator()(const CreateTable& c) const {
    if (!s.databases_.count(c.database)) {
      return NotFoundError("database " + c.database + " does not exist");
    }
    MINK_RETURN_IF_ERROR(CheckName("table", c.name));
    if (s.FindTable(c.database, c.name) != nullptr) {
      return AlreadyExistsError("table " + c.database + "." + c.name + " already exists");
    }
    if (c.table_id != s.next_table_id_) {
      return AbortedError("table id " + std::to_string(c.table_id) + " is not the next id");
    }
    if (c.bucket_count < 1 || c.bucket_count > kMaxBuckets) {
      return InvalidArgumentError("bucket count must be 1.." + std::to_string(kMaxBuckets));
    }
    if (!c.partitioned && c.first_stream_id != s.next_stream_id_) {
      return AbortedError("stream id " + std::to_string(c.first_stream_id) + " is not the next id");
    }
    return CheckOwner(c.owner_node, c.owner_node_epoch);
  }

  Status operator()(const DropTable& c) const {
    if (s.FindTable(c.database, c.name) == nullptr) {
      return NotFoundError("table " + c.database + "." + c.name + " does not exist");
    }
    return Status::Ok();
  }

  Status operator()(const CreatePartition& c) const {
    const TableState* t = s.FindTable(c.table_id);
    if (t == nullptr) return NotFoundError("table id " + std::to_string(c.table_id) + " does not exist");
    if (!t->partitioned) return FailedPreconditionError("table " + t->full_name() + " is not partitioned");
    if (t->partitions.count(c.name)) {
      return AlreadyExistsError("partition " + c.name + " of " + t->full_name() + " already exists");
    }
    if (t->partitions.size() >= kMaxPartitions) {
      return ResourceExhaustedError("table " + t->full_name() + " has the maximum of " +
                                    std::to_string(kMaxPartitions) + " partitions");
    }
    if (c.partition_id != t->next_partition_id || c.first_stream_id != s.next_stream_id_) {
      return AbortedError("partition or stream id is not the next id");
    }
    return CheckOwner(c.owner_node, c.owner_node_epoch);
  }

  Status operator()(const AlterTable& c) const {
    if (s.FindTable(c.table_id) == nullptr) {
      return NotFoundError("table id " + std::to_string(c.table_id) + " does not exist");
    }
    return Status::Ok();
  }

  Status operator()(const AllocateWriterId& c) const {
    if (c.writer_id != s.next_writer_id_) return AbortedError("writer id is not the next id");
    return Status::Ok();
  }

  Status operator()(const CommitKvSnapshot& c) const {
    const StreamState* st = s.FindStream(c.stream_id);
    if (st == nullptr) return NotFoundError("no " + StreamName(c.stream_id));
    if (s.objects_.count(c.key) || s.unreferenced_.count(c.key)) {
      return AbortedError("object " + c.key + " is already committed");
    }
    if (c.offset > st->end_offset) {
      return InvalidArgumentError("KV snapshot offset beyond the end of " + StreamName(c.stream_id));
    }
    auto prev = s.kv_snapshots_.find(c.stream_id);
    if (prev != s.kv_snapshots_.end() && c.offset < prev->second.offset) {
      return AbortedError("a newer KV snapshot of " + StreamName(c.stream_id) + " exists");
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
  void operator()(const OpenStreams& c) const {
    for (const auto& se : c.streams) {
      StreamState& st = s.streams_[se.stream_id];
      st.epoch = se.epoch;
      st.owner_node = c.node_id;
      st.owner_node_epoch = c.node_epoch;
    }
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
  void operator()(const DeleteStream& c) const { s.RemoveStream(c.stream_id, time_ms); }
  void operator()(const ForgetObjects& c) const {
    for (const auto& key : c.keys) s.unreferenced_.erase(key);
  }
  void operator()(const CreateDatabase& c) const {
    s.databases_[c.name] = DatabaseState{c.name, time_ms};
  }
  void operator()(const DropDatabase& c) const {
    std::vector<int64_t> ids;
    for (const auto& [id, t] : s.tables_) {
      if (t.database == c.name) ids.push_back(id);
    }
    for (int64_t id : ids) s.RemoveTable(id, time_ms);
    s.databases_.erase(c.name);
  }
  void operator()(const CreateTable& c) const {
    TableState t;
    t.table_id = c.table_id;
    t.database = c.database;
    t.name = c.name;
    t.descriptor = c.descriptor;
    t.bucket_count = c.bucket_count;
    t.partitioned = c.partitioned;
    t.created_ms = time_ms;
    if (!c.partitioned) {
      t.streams = s.AddStreams(c.first_stream_id, c.bucket_count, t.full_name() + "/",
                               c.owner_node, c.owner_node_epoch);
    }
    s.tables_[c.table_id] = std::move(t);
    s.next_table_id_ = c.table_id + 1;
  }
  void operator()(const DropTable& c) const {
    s.RemoveTable(s.FindTable(c.database, c.name)->table_id, time_ms);
  }
  void operator()(const CreatePartition& c) const {
    TableState& t = s.tables_[c.table_id];
    PartitionState p;
    p.partition_id = c.partition_id;
    p.name = c.name;
    p.streams = s.AddStreams(c.first_stream_id, t.bucket_count,
                             t.full_name() + "/p" + std::to_string(c.partition_id) + "/",
                             c.owner_node, c.owner_node_epoch);
    t.partitions[c.name] = std::move(p);
    t.next_partition_id = c.partition_id + 1;
  }
  void operator()(const AlterTable& c) const { s.tables_[c.table_id].descriptor = c.descriptor; }
  void operator()(const AllocateWriterId& c) const { s.next_writer_id_ = c.writer_id + 1; }
  void operator()(const CommitKvSnapshot& c) const {
    auto prev = s.kv_snapshots_.find(c.stream_id);
    if (prev != s.kv_snapshots_.end()) s.Unreference(prev->second.key, time_ms);
    s.objects_[c.key] = ObjectState{c.key, c.bucket_id, c.size, 1, time_ms};
    s.kv_snapshots_[c.stream_id] = KvSnapshotState{c.key, c.bucket_id, c.size, c.offset};
  }
};

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
    Unreference(snapshot->second.key, time_ms);
    kv_snapshots_.erase(snapshot);
  }
}

void State::RemoveTable(int64_t table_id, int64_t time_ms) {
  auto found = tables_.find(table_id);
  if (found == tables_.end()) return;
  for (uint64_t id : found->second.streams) RemoveStream(id, time_ms);
  for (const auto& [name, p] : found->second.partitions) {
    for (uint64_t id : p.streams) RemoveStream(id, time_ms);
  }
  tables_.erase(found);
}

void State::Apply(const Command& command, int64_t seq, int64_t time_ms) {
  std::visit(Applier{*this, time_ms}, command);
  applied_seq_ = seq;
}

std::string State::Serialize() const {
  // Written by hand rather than through a json DOM: the text is the same as json::dump() would
  // give (keys in order, no spaces, the same escapes), at a fraction of the time and allocations;
  // a large state has thousands of segments. The small catalog goes through the DOM.
  std::string out;
  size_t segments = 0;
  for (const auto& [id, st] : streams_) segments += st.segments.size();
  out.reserve(256 + 96 * segments + 64 * objects_.size() + 48 * unreferenced_.size());
  out += "{\"applied_seq\":";
  AppendJsonInt(&out, applied_seq_);
  json databases = json::array();
  for (const auto& [name, d] : databases_) databases.push_back({name, d.created_ms});
  out += ",\"databases\":";
  out += databases.dump();
  out += ",\"kv_snapshots\":[";
  bool first = true;
  for (const auto& [id, k] : kv_snapshots_) {
    AppendJsonTuple(&out, &first, id, k.key, k.bucket_id, k.size, k.offset);
  }
  out += "],\"next_stream_id\":";
  AppendJsonInt(&out, next_stream_id_);
  out += ",\"next_table_id\":";
  AppendJsonInt(&out, next_table_id_);
  out += ",\"next_writer_id\":";
  AppendJsonInt(&out, next_writer_id_);
  out += ",\"nodes\":[";
  first = true;
  for (const auto& [id, n] : nodes_) AppendJsonTuple(&out, &first, id, n.node_epoch);
  out += "],\"objects\":[";
  first = true;
  for (const auto& [key, o] : objects_) {
    AppendJsonTuple(&out, &first, key, o.bucket_id, o.size, o.references, o.committed_ms);
  }
  out += "],\"streams\":[";
  const char* sep = "";
  for (const auto& [id, st] : streams_) {
    out += sep;
    sep = ",";
    out += "{\"end\":";
    AppendJsonInt(&out, st.end_offset);
    out += ",\"epoch\":";
    AppendJsonInt(&out, st.epoch);
    out += ",\"id\":";
    AppendJsonInt(&out, id);
    out += ",\"name\":";
    AppendJsonString(&out, st.name);
    out += ",\"owner\":";
    AppendJsonInt(&out, st.owner_node);
    out += ",\"owner_epoch\":";
    AppendJsonInt(&out, st.owner_node_epoch);
    out += ",\"segments\":[";
    bool first_segment = true;
    for (const auto& [start, seg] : st.segments) {
      // The record-time bound is an eighth element when there is one.
      if (seg.max_record_time_ms == kUnknownRecordTime) {
        AppendJsonTuple(&out, &first_segment, seg.start_offset, seg.end_offset, seg.object_key,
                        seg.bucket_id, seg.position, seg.length, seg.max_timestamp_ms);
      } else {
        AppendJsonTuple(&out, &first_segment, seg.start_offset, seg.end_offset, seg.object_key,
                        seg.bucket_id, seg.position, seg.length, seg.max_timestamp_ms,
                        seg.max_record_time_ms);
      }
    }
    out += "],\"start\":";
    AppendJsonInt(&out, st.start_offset);
    out += '}';
  }
  json tables = json::array();
  for (const auto& [id, t] : tables_) {
    json partitions = json::array();
    for (const auto& [name, p] : t.partitions) {
      partitions.push_back({p.partition_id, name, p.streams});
    }
    tables.push_back({{"id", id},
                      {"database", t.database},
                      {"name", t.name},
                      {"descriptor", t.descriptor},
                      {"buckets", t.bucket_count},
                      {"partitioned", t.partitioned},
                      {"streams", t.streams},
                      {"partitions", partitions},
                      {"next_partition", t.next_partition_id},
                      {"created_ms", t.created_ms}});
  }
  out += "],\"tables\":";
  out += tables.dump();
  out += ",\"unreferenced\":{";
  sep = "";
  for (const auto& [key, since] : unreferenced_) {
    out += sep;
    sep = ",";
    AppendJsonString(&out, key);
    out += ':';
    AppendJsonInt(&out, since);
  }
  out += "},\"version\":1}";
  return out;
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
                    g.at(6).get<int64_t>(),
                    g.size() > 7 ? g.at(7).get<int64_t>() : kUnknownRecordTime};
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
    s.next_table_id_ = j.at("next_table_id").get<int64_t>();
    s.next_writer_id_ = j.at("next_writer_id").get<int64_t>();
    for (const auto& d : j.at("databases")) {
      std::string name = d.at(0).get<std::string>();
      s.databases_[name] = DatabaseState{name, d.at(1).get<int64_t>()};
    }
    for (const auto& jt : j.at("tables")) {
      TableState t;
      t.table_id = jt.at("id").get<int64_t>();
      t.database = jt.at("database").get<std::string>();
      t.name = jt.at("name").get<std::string>();
      t.descriptor = jt.at("descriptor").get<std::string>();
      t.bucket_count = jt.at("buckets").get<int32_t>();
      t.partitioned = jt.at("partitioned").get<bool>();
      t.streams = jt.at("streams").get<std::vector<uint64_t>>();
      for (const auto& p : jt.at("partitions")) {
        PartitionState ps{p.at(0).get<int64_t>(), p.at(1).get<std::string>(),
                          p.at(2).get<std::vector<uint64_t>>()};
        t.partitions[ps.name] = std::move(ps);
      }
      t.next_partition_id = jt.at("next_partition").get<int64_t>();
      t.created_ms = jt.at("created_ms").get<int64_t>();
      s.tables_[t.table_id] = std::move(t);
    }
    for (const auto& k : j.at("kv_snapshots")) {
      s.kv_snapshots_[k.at(0).get<uint64_t>()] =
          KvSnapshotState{k.at(1).get<std::string>(), k.at(2).get<int32_t>(),
                          k.at(3).get<uint64_t>(), k.at(4).get<int64_t>()};
    }
    return s;
  } catch (const std::exception& e) {
    return DataLossError(std::string("metadata snapshot does not parse: ") + e.what());
  }
}

}  // namespace mink::metadata
