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
}

}  // namespace mink::metadata
