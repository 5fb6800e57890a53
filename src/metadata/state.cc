#include "metadata/state.h"

namespace mink::metadata {

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

Status State::Validate(const Command& command) const {
  return std::visit([this](const auto& c) { return CheckCommand(c); }, command);
}

void State::Apply(const Command& command, int64_t seq, int64_t time_ms) {
  std::visit([&](const auto& c) { ApplyCommand(c, time_ms); }, command);
  applied_seq_ = seq;
  // The commands of the data path (many a second) leave the placement of buckets as it was;
  // every other kind may change it.
  const bool data_only =
      std::holds_alternative<CommitObjects>(command) ||
      std::holds_alternative<ReplaceSegments>(command) ||
      std::holds_alternative<TrimStream>(command) ||
      std::holds_alternative<ForgetObjects>(command) ||
      std::holds_alternative<AllocateWriterId>(command) ||
      std::holds_alternative<CommitKvSnapshot>(command) ||
      std::holds_alternative<AllocateAutoIncrement>(command) ||
      std::holds_alternative<CommitLakeSnapshot>(command) ||
      std::holds_alternative<CommitContinuousProgress>(command);
  if (!data_only) placement_seq_ = seq;
}

}  // namespace mink::metadata
