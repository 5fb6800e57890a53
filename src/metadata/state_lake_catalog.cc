// The lake catalog's own namespaces and tables (lake_catalog_commands.h). A namespace is a Mink
// database or one created through the REST API; a table name is taken by a Mink table of the
// database it names or by a table of the catalog; a commit moves each table's metadata pointer
// only from the location it expects (so two writers cannot both commit on top of one file).
// Outcomes with an Idempotency-Key are kept for kIdempotencyLifetimeMs after their command.

#include <set>

#include "metadata/state.h"

namespace mink::metadata {
namespace {

std::string Dotted(const NamespaceName& space) {
  std::string out;
  for (const auto& level : space) out += (out.empty() ? "" : ".") + level;
  return out;
}

std::string Dotted(const NamespaceName& space, const std::string& name) {
  return Dotted(space) + "." + name;
}

Status CheckName(const NamespaceName& space) {
  if (space.empty()) return InvalidArgumentError("a namespace has at least one level");
  for (const auto& level : space) {
    if (level.empty()) return InvalidArgumentError("a namespace level is empty");
  }
  return Status::Ok();
}

}  // namespace

bool State::LakeNamespaceExists(const NamespaceName& name) const {
  if (name.size() == 1 && databases_.count(name[0])) return true;
  return lake_namespaces_.count(name) > 0;
}

const TableState* State::MinkTableOf(const NamespaceName& space, const std::string& name) const {
  return space.size() == 1 ? FindTable(space[0], name) : nullptr;
}

Status State::CheckOutcome(const IdempotentOutcome& outcome) const {
  if (!outcome.key.empty() && idempotent_outcomes_.count(outcome.key)) {
    return AbortedError("Idempotency-Key " + outcome.key + " was used already");
  }
  return Status::Ok();
}

void State::KeepOutcome(const IdempotentOutcome& outcome, int64_t time_ms) {
  std::erase_if(idempotent_outcomes_, [&](const auto& entry) {
    return entry.second.time_ms + kIdempotencyLifetimeMs < time_ms;
  });
  if (!outcome.key.empty()) {
    idempotent_outcomes_[outcome.key] = IdempotentRecord{outcome.status, outcome.body, time_ms};
  }
}

Status State::CheckCommand(const CreateLakeNamespace& c) const {
  MINK_RETURN_IF_ERROR(CheckName(c.name));
  if (LakeNamespaceExists(c.name)) {
    return AlreadyExistsError("namespace " + Dotted(c.name) + " already exists");
  }
  return CheckOutcome(c.outcome);
}

void State::ApplyCommand(const CreateLakeNamespace& c, int64_t time_ms) {
  lake_namespaces_[c.name].properties = c.properties;
  KeepOutcome(c.outcome, time_ms);
}

Status State::CheckCommand(const DropLakeNamespace& c) const {
  if (c.name.size() == 1 && databases_.count(c.name[0])) {
    return FailedPreconditionError("namespace " + Dotted(c.name) +
                                   " is a Mink database: drop it with mink db drop");
  }
  if (!lake_namespaces_.count(c.name)) {
    return NotFoundError("namespace " + Dotted(c.name) + " does not exist");
  }
  for (const auto& [name, table] : lake_catalog_tables_) {
    if (name.first == c.name) {
      return FailedPreconditionError("namespace " + Dotted(c.name) + " is not empty: it has table " +
                                     name.second);
    }
  }
  return CheckOutcome(c.outcome);
}

void State::ApplyCommand(const DropLakeNamespace& c, int64_t time_ms) {
  lake_namespaces_.erase(c.name);
  KeepOutcome(c.outcome, time_ms);
}

Status State::CheckCommand(const UpdateLakeNamespace& c) const {
  if (!LakeNamespaceExists(c.name)) {
    return NotFoundError("namespace " + Dotted(c.name) + " does not exist");
  }
  for (const auto& key : c.removals) {
    if (c.updates.count(key)) {
      return InvalidArgumentError("property " + key + " is both removed and updated");
    }
  }
  return CheckOutcome(c.outcome);
}

void State::ApplyCommand(const UpdateLakeNamespace& c, int64_t time_ms) {
  auto& properties = lake_namespaces_[c.name].properties;
  for (const auto& key : c.removals) properties.erase(key);
  for (const auto& [key, value] : c.updates) properties[key] = value;
  KeepOutcome(c.outcome, time_ms);
}

Status State::CheckCommand(const CommitLakeCatalog& c) const {
  if (c.moves.empty()) return InvalidArgumentError("a catalog commit moves at least one table");
  std::set<LakeTableName> seen;
  for (const auto& m : c.moves) {
    const std::string table = Dotted(m.space, m.name);
    if (m.name.empty()) return InvalidArgumentError("a table name is empty");
    if (!seen.insert({m.space, m.name}).second) {
      return InvalidArgumentError("table " + table + " appears twice in one commit");
    }
    if (!LakeNamespaceExists(m.space)) {
      return NotFoundError("namespace " + Dotted(m.space) + " does not exist");
    }
    if (MinkTableOf(m.space, m.name) != nullptr) {
      return FailedPreconditionError("table " + table + " is a Mink table: only its tiering commits to it");
    }
    auto it = lake_catalog_tables_.find({m.space, m.name});
    const std::string current = it == lake_catalog_tables_.end() ? "" : it->second.metadata_location;
    if (m.expected != current) {
      if (m.expected.empty()) return AlreadyExistsError("table " + table + " already exists");
      if (current.empty()) return NotFoundError("table " + table + " does not exist");
      return AbortedError("table " + table + " is at " + current + ", not " + m.expected);
    }
    if (m.expected.empty() && m.location.empty()) {
      return InvalidArgumentError("table " + table + " is neither there nor created");
    }
  }
  return CheckOutcome(c.outcome);
}

void State::ApplyCommand(const CommitLakeCatalog& c, int64_t time_ms) {
  for (const auto& m : c.moves) {
    if (m.location.empty()) {
      lake_catalog_tables_.erase({m.space, m.name});
    } else {
      lake_catalog_tables_[{m.space, m.name}] = LakeCatalogTableState{m.location, m.expected};
    }
  }
  KeepOutcome(c.outcome, time_ms);
}

Status State::CheckCommand(const RenameLakeTable& c) const {
  const std::string from = Dotted(c.from_space, c.from_name);
  const std::string to = Dotted(c.to_space, c.to_name);
  if (MinkTableOf(c.from_space, c.from_name) != nullptr) {
    return FailedPreconditionError("table " + from + " is a Mink table: rename it with Mink");
  }
  if (!lake_catalog_tables_.count({c.from_space, c.from_name})) {
    return NotFoundError("table " + from + " does not exist");
  }
  if (c.to_name.empty()) return InvalidArgumentError("a table name is empty");
  if (!LakeNamespaceExists(c.to_space)) {
    return NotFoundError("namespace " + Dotted(c.to_space) + " does not exist");
  }
  if (lake_catalog_tables_.count({c.to_space, c.to_name}) || MinkTableOf(c.to_space, c.to_name)) {
    return AlreadyExistsError("table " + to + " already exists");
  }
  return CheckOutcome(c.outcome);
}

void State::ApplyCommand(const RenameLakeTable& c, int64_t time_ms) {
  auto node = lake_catalog_tables_.extract({c.from_space, c.from_name});
  node.key() = {c.to_space, c.to_name};
  lake_catalog_tables_.insert(std::move(node));
  KeepOutcome(c.outcome, time_ms);
}

Status State::CheckLakeAttach(const CreateTable& c) const {
  const LakeAttach& a = *c.lake_attach;
  const std::string what = "attaching the lake table " + Dotted(a.space) + "." + a.name + ": ";
  if (!c.partitioned && !a.partitions.empty()) {
    return InvalidArgumentError(what + "an unpartitioned table has no partitions to create");
  }
  if (a.partitions.size() > kMaxPartitions) {
    return ResourceExhaustedError(what + "its " + std::to_string(a.partitions.size()) +
                                  " partitions are more than a table may have (" + std::to_string(kMaxPartitions) +
                                  ")");
  }
  if (!a.partitions.empty() && c.first_stream_id != next_stream_id_) {
    return AbortedError(what + "stream id " + std::to_string(c.first_stream_id) + " is not the next id");
  }
  std::set<std::string> names;
  for (const auto& p : a.partitions) {
    if (p.empty() || !names.insert(p).second) {
      return InvalidArgumentError(what + "partition '" + p + "' is empty or named twice");
    }
  }
  // Buckets by index: an unpartitioned table's, or every partition's.
  const uint64_t buckets = static_cast<uint64_t>(c.bucket_count) * std::max<uint64_t>(1, a.partitions.size());
  if (a.space != NamespaceName{c.database} || a.name != c.name) {
    return InvalidArgumentError(what + "it is not the table's own name");
  }
  if (a.external && lake_catalog_tables_.count({a.space, a.name})) {
    return AlreadyExistsError(what + "the built-in lake catalog has a table of that name too");
  }
  if (!a.external) {
    auto it = lake_catalog_tables_.find({a.space, a.name});
    if (it == lake_catalog_tables_.end()) return AbortedError(what + "it no longer exists");
    if (it->second.metadata_location != a.metadata_location) {
      return AbortedError(what + "it changed meanwhile (its metadata is now " + it->second.metadata_location + ")");
    }
  }
  for (const auto& f : a.commit.added_files) {
    if (f.stream_id >= buckets || (c.partitioned && a.partitions.empty())) {
      return InvalidArgumentError(what + "file " + f.path + " is in bucket " + std::to_string(f.stream_id) +
                                  " of " + std::to_string(c.partitioned && a.partitions.empty() ? 0 : buckets));
    }
  }
  for (const auto& k : a.kv_snapshots) {
    if (k.stream_id >= buckets || k.offset != 0) {
      return InvalidArgumentError(what + "KV snapshot " + k.key + " is not of a bucket at offset 0");
    }
    if (objects_.count(k.key) || unreferenced_.count(k.key)) {
      return AbortedError(what + "object " + k.key + " is already committed");
    }
  }
  return Status::Ok();
}

void State::ApplyLakeAttach(const CreateTable& c, int64_t time_ms) {
  const LakeAttach& a = *c.lake_attach;
  for (size_t i = 0; i < a.partitions.size(); ++i) {
    ApplyCommand(CreatePartition{c.table_id, a.partitions[i], tables_[c.table_id].next_partition_id,
                                 c.first_stream_id + i * static_cast<uint64_t>(c.bucket_count), c.owner_node,
                                 c.owner_node_epoch},
                 time_ms);
  }
  CommitLakeSnapshot commit = a.commit;
  commit.table_id = c.table_id;
  for (auto& f : commit.added_files) f.stream_id = c.first_stream_id + f.stream_id;
  if (commit.snapshot.snapshot_id != 0) {
    ApplyCommand(commit, time_ms);
  } else {
    // A table without a snapshot yet: only its identity and metadata file.
    LakeTableState& lake = lake_tables_[c.table_id];
    lake.table_uuid = commit.table_uuid;
    lake.location = commit.location;
    lake.metadata_location = commit.metadata_location;
    lake.last_updated_ms = time_ms;
  }
  LakeTableState& lake = lake_tables_[c.table_id];
  lake.sequence_number = std::max(lake.sequence_number, a.last_sequence_number);
  for (CommitKvSnapshot k : a.kv_snapshots) {
    k.stream_id = c.first_stream_id + k.stream_id;
    ApplyCommand(k, time_ms);
  }
  if (!a.external) lake_catalog_tables_.erase({a.space, a.name});
}

}  // namespace mink::metadata
