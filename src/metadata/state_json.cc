// The state's canonical JSON text (State::Serialize) and loading it back. The large arrays
// (streams and their segments, objects, unreferenced objects) are written by hand, byte for
// byte what nlohmann's dump() writes (keys sorted, no spaces; StateTest checks by parsing and
// dumping), because building a DOM of a large state took 5-10 times as long (decision 0008);
// the small parts and every read go through nlohmann.

#include <nlohmann/json.hpp>

#include <charconv>
#include <string_view>
#include <type_traits>

#include "metadata/commands_json.h"
#include "metadata/state.h"

namespace mink::metadata {

using nlohmann::json;

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
// [[key,size],...]
void AppendJsonValue(std::string* out, const std::vector<KvSnapshotFile>& files) {
  out->push_back('[');
  for (size_t i = 0; i < files.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->push_back('[');
    AppendJsonString(out, files[i].key);
    out->push_back(',');
    AppendJsonInt(out, files[i].size);
    out->push_back(']');
  }
  out->push_back(']');
}
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

}  // namespace

std::string State::Serialize() const {
  // Written by hand rather than through a json DOM: the text is the same as json::dump() would
  // give (keys in order, no spaces, the same escapes), at a fraction of the time and allocations;
  // a large state has thousands of segments. The small catalog goes through the DOM.
  std::string out;
  size_t segments = 0;
  for (const auto& [id, st] : streams_) segments += st.segments.size();
  out.reserve(256 + 96 * segments + 64 * objects_.size() + 48 * unreferenced_.size());
  out += '{';
  if (!acls_.empty()) {
    json acls = json::array();
    for (const auto& e : acls_) acls.push_back(ToJson(e));
    out += "\"acls\":";
    out += acls.dump();
    out += ',';
  }
  out += "\"applied_seq\":";
  AppendJsonInt(&out, applied_seq_);
  if (!continuous_.empty()) {
    json objects = json::array();
    for (const auto& [name, o] : continuous_) {
      objects.push_back({name, o.kind, o.statement, o.definition, o.inputs, o.created_ms, o.epoch, o.progress});
    }
    out += ",\"continuous\":";
    out += objects.dump();
  }
  out += ",\"coordinator\":[";
  AppendJsonInt(&out, coordinator_.node_id);
  out += ',';
  AppendJsonInt(&out, coordinator_.node_epoch);
  out += ',';
  AppendJsonInt(&out, coordinator_.lease_epoch);
  out += ']';
  json databases = json::array();
  for (const auto& [name, d] : databases_) databases.push_back({name, d.created_ms});
  out += ",\"databases\":";
  out += databases.dump();
  json namespaces = json::array(), catalog_tables = json::array(), outcomes = json::array();
  for (const auto& [name, ns] : lake_namespaces_) namespaces.push_back({name, ns.properties});
  for (const auto& [name, t] : lake_catalog_tables_) {
    catalog_tables.push_back({name.first, name.second, t.metadata_location, t.previous_location});
  }
  for (const auto& [key, o] : idempotent_outcomes_) outcomes.push_back({key, o.status, o.body, o.time_ms});
  out += ",\"idempotent_outcomes\":";
  out += outcomes.dump();
  out += ",\"kv_snapshots\":[";
  bool first = true;
  for (const auto& [id, k] : kv_snapshots_) {
    AppendJsonTuple(&out, &first, id, k.key, k.bucket_id, k.size, k.offset, k.files);
  }
  json lakes = json::array();
  for (const auto& [id, l] : lake_tables_) {
    json snapshots = json::array(), manifests = json::array(), files = json::array();
    for (const auto& s : l.snapshots) snapshots.push_back(ToJson(s));
    for (const auto& m : l.manifests) manifests.push_back(ToJson(m));
    for (const auto& f : l.files) files.push_back(ToJson(f));
    json offsets = json::array();
    for (const auto& [stream, end] : l.offsets) offsets.push_back({stream, end});
    lakes.push_back({{"table", id},
                     {"uuid", l.table_uuid},
                     {"location", l.location},
                     {"metadata", l.metadata_location},
                     {"snapshot", l.snapshot_id},
                     {"seq", l.sequence_number},
                     {"updated_ms", l.last_updated_ms},
                     {"snapshots", snapshots},
                     {"metadata_log", l.metadata_log},
                     {"manifests", manifests},
                     {"files", files},
                     {"offsets", offsets}});
  }
  out += "],\"lake_catalog_tables\":";
  out += catalog_tables.dump();
  out += ",\"lake_namespaces\":";
  out += namespaces.dump();
  out += ",\"lake_tables\":";
  out += lakes.dump();
  out += ",\"next_stream_id\":";
  AppendJsonInt(&out, next_stream_id_);
  out += ",\"next_table_id\":";
  AppendJsonInt(&out, next_table_id_);
  out += ",\"next_writer_id\":";
  AppendJsonInt(&out, next_writer_id_);
  out += ",\"nodes\":[";
  first = true;
  for (const auto& [id, n] : nodes_) {
    if (n.leaving) {
      AppendJsonTuple(&out, &first, id, n.node_epoch, 1);
    } else {
      AppendJsonTuple(&out, &first, id, n.node_epoch);
    }
  }
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
    out += '{';
    if (st.assigned_node != 0) {  // only once a coordinator assigned the stream
      out += "\"assigned\":";
      AppendJsonInt(&out, st.assigned_node);
      out += ',';
    }
    out += "\"end\":";
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
                      {"next_auto_increment", t.next_auto_increment},
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
  out += '}';
  if (!users_.empty()) {
    json users = json::array();
    for (const auto& [name, u] : users_) users.push_back({name, UserCredentialsJson(u.credentials), u.created_ms});
    out += ",\"users\":";
    out += users.dump();
  }
  out += ",\"version\":1}";
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
    s.placement_seq_ = s.applied_seq_;
    if (auto c = j.find("coordinator"); c != j.end()) {  // absent in snapshots before it existed
      s.coordinator_ = CoordinatorState{c->at(0).get<int32_t>(), c->at(1).get<int64_t>(),
                                        c->at(2).get<int64_t>()};
    }
    s.next_stream_id_ = j.at("next_stream_id").get<uint64_t>();
    for (const auto& n : j.at("nodes")) {
      int32_t id = n.at(0).get<int32_t>();
      s.nodes_[id] = NodeState{id, n.at(1).get<int64_t>(), n.size() > 2 && n.at(2).get<int>() != 0};
    }
    for (const auto& js : j.at("streams")) {
      StreamState st;
      st.stream_id = js.at("id").get<uint64_t>();
      st.name = js.at("name").get<std::string>();
      st.epoch = js.at("epoch").get<int64_t>();
      st.owner_node = js.at("owner").get<int32_t>();
      st.owner_node_epoch = js.at("owner_epoch").get<int64_t>();
      st.assigned_node = js.value("assigned", 0);
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
      t.next_auto_increment = jt.value("next_auto_increment", int64_t{1});
      t.created_ms = jt.at("created_ms").get<int64_t>();
      s.tables_[t.table_id] = std::move(t);
    }
    for (const auto& k : j.at("kv_snapshots")) {
      KvSnapshotState& snapshot = s.kv_snapshots_[k.at(0).get<uint64_t>()];
      snapshot = KvSnapshotState{k.at(1).get<std::string>(), k.at(2).get<int32_t>(),
                                 k.at(3).get<uint64_t>(), k.at(4).get<int64_t>(), {}};
      if (k.size() > 5) {
        for (const auto& f : k.at(5)) {
          snapshot.files.push_back({f.at(0).get<std::string>(), f.at(1).get<uint64_t>()});
        }
      }
    }
    for (const auto& jl : j.value("lake_tables", json::array())) {
      LakeTableState l;
      l.table_uuid = jl.at("uuid").get<std::string>();
      l.location = jl.at("location").get<std::string>();
      l.metadata_location = jl.at("metadata").get<std::string>();
      l.snapshot_id = jl.at("snapshot").get<int64_t>();
      l.sequence_number = jl.at("seq").get<int64_t>();
      l.last_updated_ms = jl.at("updated_ms").get<int64_t>();
      for (const auto& x : jl.at("snapshots")) FromJson(x, &l.snapshots.emplace_back());
      l.metadata_log =
          jl.at("metadata_log").get<std::vector<std::pair<std::string, int64_t>>>();
      for (const auto& x : jl.at("manifests")) FromJson(x, &l.manifests.emplace_back());
      for (const auto& x : jl.at("files")) FromJson(x, &l.files.emplace_back());
      for (const auto& o : jl.at("offsets")) l.offsets[o.at(0).get<uint64_t>()] = o.at(1).get<int64_t>();
      s.lake_tables_[jl.at("table").get<int64_t>()] = std::move(l);
    }
    for (const auto& n : j.value("lake_namespaces", json::array())) {
      s.lake_namespaces_[n.at(0).get<NamespaceName>()].properties =
          n.at(1).get<std::map<std::string, std::string>>();
    }
    for (const auto& t : j.value("lake_catalog_tables", json::array())) {
      s.lake_catalog_tables_[{t.at(0).get<NamespaceName>(), t.at(1).get<std::string>()}] =
          LakeCatalogTableState{t.at(2).get<std::string>(), t.at(3).get<std::string>()};
    }
    for (const auto& o : j.value("continuous", json::array())) {
      s.continuous_[o.at(0).get<std::string>()] =
          ContinuousObjectState{o.at(1).get<std::string>(), o.at(2).get<std::string>(), o.at(3).get<std::string>(),
                                o.at(4).get<std::vector<std::string>>(), o.at(5).get<int64_t>(),
                                o.size() > 6 ? o.at(6).get<int64_t>() : 0, o.size() > 7 ? o.at(7).get<std::string>() : ""};
    }
    // "cluster_secret" (snapshots before 2026-12) is dropped: the log keeps no secret.
    for (const auto& e : j.value("acls", json::array())) s.acls_.insert(AclEntryFromJson(e));
    for (const auto& u : j.value("users", json::array())) {
      CreateUser c;
      FromJson(json{{"name", u.at(0)}, {"credentials", u.at(1)}}, &c);
      s.users_[c.name] = UserState{std::move(c.credentials), u.at(2).get<int64_t>()};
    }
    for (const auto& o : j.value("idempotent_outcomes", json::array())) {
      s.idempotent_outcomes_[o.at(0).get<std::string>()] =
          IdempotentRecord{o.at(1).get<int32_t>(), o.at(2).get<std::string>(), o.at(3).get<int64_t>()};
    }
    return s;
  } catch (const std::exception& e) {
    return DataLossError(std::string("metadata snapshot does not parse: ") + e.what());
  }
}

}  // namespace mink::metadata
