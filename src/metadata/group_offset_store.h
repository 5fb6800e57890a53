#pragma once
// GroupOffsetStore: the committed offsets of Kafka consumer groups, kept by the metadata database
// in a table of their own (group_offsets, migration 2) beside the command log: high-rate data
// that the log's budget of a few hundred commands a second cannot carry (docs/architecture.md,
// Metadata log). Both backends implement it (LogStore::group_offsets()).
//
// Thread-safety: every method may be called from any thread.

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"

namespace mink::metadata {

// One committed offset of a consumer group (a row of group_offsets).
struct GroupOffset {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = -1;
  int32_t leader_epoch = -1;  // -1 = unknown
  std::string metadata;       // the client's opaque string (any bytes)
  int64_t commit_time_ms = 0;

  bool operator==(const GroupOffset&) const = default;
};

// Who may commit a group's offsets: the holder of the lease `lease` (the group's coordinator)
// at `epoch`. A node that lost the lease (it paused, another node took the group over) cannot
// commit over the new coordinator's offsets.
struct OffsetFence {
  std::string lease;
  std::string holder;
  int64_t epoch = 0;
};

// The refusal of a fenced commit whose lease row reads (`holder`, `epoch`), or none.
inline Status CheckOffsetFence(const OffsetFence& fence, bool found, const std::string& holder,
                               int64_t epoch) {
  if (found && holder == fence.holder && epoch == fence.epoch) return Status::Ok();
  return AbortedError("not the coordinator: lease " + fence.lease + " is " +
                      (found ? "held by " + holder + " at epoch " + std::to_string(epoch)
                             : std::string("not taken")) +
                      ", not by " + fence.holder + " at epoch " + std::to_string(fence.epoch));
}

class GroupOffsetStore {
 public:
  virtual ~GroupOffsetStore() = default;

  // Upserts `offsets` of `group` in one transaction: all rows land or none. When a (topic,
  // partition) appears more than once, the last one wins. With a `fence`, the transaction first
  // reads the lease row (locking it against a change of hands until it ends) and commits
  // nothing unless `fence->holder` holds it at `fence->epoch`: Aborted, naming the holder.
  virtual Status CommitGroupOffsets(const std::string& group,
                                    const std::vector<GroupOffset>& offsets,
                                    const OffsetFence* fence) = 0;
  Status CommitGroupOffsets(const std::string& group, const std::vector<GroupOffset>& offsets) {
    return CommitGroupOffsets(group, offsets, nullptr);
  }
  // Every committed offset of `group`, by topic then partition; empty for an unknown group.
  virtual Result<std::vector<GroupOffset>> ListGroupOffsets(const std::string& group) = 0;
  // The groups that have at least one committed offset, sorted.
  virtual Result<std::vector<std::string>> ListOffsetGroups() = 0;
  // Forgets every offset of `group` (Kafka's DeleteGroups); with a `fence`, only while its
  // holder holds the lease at its epoch, as CommitGroupOffsets (Aborted otherwise, nothing
  // deleted).
  virtual Status DeleteGroupOffsets(const std::string& group, const OffsetFence* fence) = 0;
  Status DeleteGroupOffsets(const std::string& group) { return DeleteGroupOffsets(group, nullptr); }
  // Forgets the offsets of `topic` in every group (the topic was deleted).
  virtual Status DeleteTopicOffsets(const std::string& topic) = 0;
};

}  // namespace mink::metadata
