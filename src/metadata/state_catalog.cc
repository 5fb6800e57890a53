// The catalog domain of the state machine: databases, tables and partitions, and the streams of
// their buckets.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "metadata/state.h"

namespace mink::metadata {

namespace {

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

}  // namespace

Status State::CheckCommand(const CreateDatabase& c) const {
    MINK_RETURN_IF_ERROR(CheckName("database", c.name));
    if (databases_.count(c.name)) {
      return AlreadyExistsError("database " + c.name + " already exists");
    }
    return Status::Ok();
  }

void State::ApplyCommand(const CreateDatabase& c, int64_t time_ms) {
    databases_[c.name] = DatabaseState{c.name, time_ms};
  }

Status State::CheckCommand(const DropDatabase& c) const {
    if (!databases_.count(c.name)) return NotFoundError("database " + c.name + " does not exist");
    if (!c.cascade) {
      size_t tables = 0;
      for (const auto& [id, t] : tables_) tables += t.database == c.name ? 1 : 0;
      if (tables > 0) {
        return FailedPreconditionError("database " + c.name + " is not empty (" +
                                       std::to_string(tables) + " tables); drop them first");
      }
    }
    return Status::Ok();
  }

void State::ApplyCommand(const DropDatabase& c, int64_t time_ms) {
    std::vector<int64_t> ids;
    for (const auto& [id, t] : tables_) {
      if (t.database == c.name) ids.push_back(id);
    }
    for (int64_t id : ids) RemoveTable(id, time_ms);
    databases_.erase(c.name);
  }

Status State::CheckCommand(const CreateTable& c) const {
    if (!databases_.count(c.database)) {
      return NotFoundError("database " + c.database + " does not exist");
    }
    MINK_RETURN_IF_ERROR(CheckName("table", c.name));
    if (FindTable(c.database, c.name) != nullptr) {
      return AlreadyExistsError("table " + c.database + "." + c.name + " already exists");
    }
    if (c.table_id != next_table_id_) {
      return AbortedError("table id " + std::to_string(c.table_id) + " is not the next id");
    }
    if (c.bucket_count < 1 || c.bucket_count > kMaxBuckets) {
      return InvalidArgumentError("bucket count must be 1.." + std::to_string(kMaxBuckets));
    }
    if (!c.partitioned && c.first_stream_id != next_stream_id_) {
      return AbortedError("stream id " + std::to_string(c.first_stream_id) + " is not the next id");
    }
    if (c.lake_attach) {
      MINK_RETURN_IF_ERROR(CheckLakeAttach(c));
    } else if (lake_catalog_tables_.count({NamespaceName{c.database}, c.name}) != 0) {
      return AlreadyExistsError("the lake catalog has a table " + c.database + "." + c.name +
                                " (created through the Iceberg REST API): create the Mink table with "
                                "--lake iceberg to attach it, or drop it there first");
    }
    return CheckOwner(c.owner_node, c.owner_node_epoch);
  }

void State::ApplyCommand(const CreateTable& c, int64_t time_ms) {
    TableState t;
    t.table_id = c.table_id;
    t.database = c.database;
    t.name = c.name;
    t.descriptor = c.descriptor;
    t.bucket_count = c.bucket_count;
    t.partitioned = c.partitioned;
    t.created_ms = time_ms;
    if (!c.partitioned) {
      t.streams = AddStreams(c.first_stream_id, c.bucket_count, t.full_name() + "/",
                               c.owner_node, c.owner_node_epoch);
    }
    tables_[c.table_id] = std::move(t);
    next_table_id_ = c.table_id + 1;
    if (c.lake_attach) ApplyLakeAttach(c, time_ms);
  }

Status State::CheckCommand(const DropTable& c) const {
    if (FindTable(c.database, c.name) == nullptr) {
      return NotFoundError("table " + c.database + "." + c.name + " does not exist");
    }
    return Status::Ok();
  }

void State::ApplyCommand(const DropTable& c, int64_t time_ms) {
    RemoveTable(FindTable(c.database, c.name)->table_id, time_ms);
  }

Status State::CheckCommand(const CreatePartition& c) const {
    const TableState* t = FindTable(c.table_id);
    if (t == nullptr) return NotFoundError("table id " + std::to_string(c.table_id) + " does not exist");
    if (!t->partitioned) return FailedPreconditionError("table " + t->full_name() + " is not partitioned");
    if (t->partitions.count(c.name)) {
      return AlreadyExistsError("partition " + c.name + " of " + t->full_name() + " already exists");
    }
    if (t->partitions.size() >= kMaxPartitions) {
      return ResourceExhaustedError("table " + t->full_name() + " has the maximum of " +
                                    std::to_string(kMaxPartitions) + " partitions");
    }
    if (c.partition_id != t->next_partition_id || c.first_stream_id != next_stream_id_) {
      return AbortedError("partition or stream id is not the next id");
    }
    return CheckOwner(c.owner_node, c.owner_node_epoch);
  }

void State::ApplyCommand(const CreatePartition& c, int64_t /*time_ms*/) {
    TableState& t = tables_[c.table_id];
    PartitionState p;
    p.partition_id = c.partition_id;
    p.name = c.name;
    p.streams = AddStreams(c.first_stream_id, t.bucket_count,
                             t.full_name() + "/p" + std::to_string(c.partition_id) + "/",
                             c.owner_node, c.owner_node_epoch);
    t.partitions[c.name] = std::move(p);
    t.next_partition_id = c.partition_id + 1;
  }

Status State::CheckCommand(const AlterTable& c) const {
    if (FindTable(c.table_id) == nullptr) {
      return NotFoundError("table id " + std::to_string(c.table_id) + " does not exist");
    }
    return Status::Ok();
  }

void State::ApplyCommand(const AlterTable& c, int64_t /*time_ms*/) { tables_[c.table_id].descriptor = c.descriptor; }

Status State::CheckCommand(const AllocateAutoIncrement& c) const {
  const TableState* t = FindTable(c.table_id);
  if (t == nullptr) return NotFoundError("table id " + std::to_string(c.table_id) + " does not exist");
  if (c.first != t->next_auto_increment) {
    return AbortedError("auto-increment range does not start at the table's next value");
  }
  if (c.count <= 0 || c.first > INT64_MAX - c.count) {
    return InvalidArgumentError("auto-increment range of " + std::to_string(c.count) +
                                " values from " + std::to_string(c.first) + " does not fit");
  }
  return Status::Ok();
}

void State::ApplyCommand(const AllocateAutoIncrement& c, int64_t /*time_ms*/) {
  tables_[c.table_id].next_auto_increment = c.first + c.count;
}

void State::RemoveTable(int64_t table_id, int64_t time_ms) {
  auto found = tables_.find(table_id);
  if (found == tables_.end()) return;
  for (uint64_t id : found->second.streams) RemoveStream(id, time_ms);
  for (const auto& [name, p] : found->second.partitions) {
    for (uint64_t id : p.streams) RemoveStream(id, time_ms);
  }
  tables_.erase(found);
  lake_tables_.erase(table_id);  // its lake files stay in the warehouse
}

}  // namespace mink::metadata
