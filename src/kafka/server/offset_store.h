#pragma once
// OffsetStore: the committed offsets of Kafka consumer groups. They are durable in the metadata
// database's group_offsets table (metadata::GroupOffsetStore), not in the command
// log (docs/architecture.md, Metadata log), and cached per group: a group's offsets are read from
// the database on its first use after a start, and every commit is written through before it
// becomes visible.
//
// In a cluster the group's coordinator passes its fence (metadata::OffsetFence): a commit lands
// only while the fence's lease is held at its epoch, and the cache belongs to one epoch, so a
// node that coordinates a group again after another did reads its offsets afresh.
//
// Thread-safety: every method may be called from any thread. Commit, Fetch, Groups, DeleteTopic
// and DeleteGroup block on the database: call them from a blocking pool, not an io thread.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "metadata/group_offset_store.h"

namespace mink::kafka {

// (topic, partition) -> its committed offset.
using GroupOffsetMap = std::map<std::pair<std::string, int32_t>, metadata::GroupOffset>;

class OffsetStore {
 public:
  // `store` (not owned, may be null) keeps the offsets durable; without it they live in memory
  // only (tests and tools).
  explicit OffsetStore(metadata::GroupOffsetStore* store) : store_(store) {}
  OffsetStore(const OffsetStore&) = delete;
  OffsetStore& operator=(const OffsetStore&) = delete;

  // Writes `offsets` of `group` to the database in one transaction, then to the cache. On an
  // error nothing is visible (the database may still have them if only the reply was lost).
  // `fence`: null for a node alone.
  Status Commit(const std::string& group, const std::vector<metadata::GroupOffset>& offsets,
                const metadata::OffsetFence* fence);
  // Every committed offset of `group` (empty for a group that never committed), as of the
  // fence's epoch (read from the database again when the cache is of another).
  Result<GroupOffsetMap> Fetch(const std::string& group, const metadata::OffsetFence* fence);
  // The groups with at least one committed offset, sorted.
  Result<std::vector<std::string>> Groups();
  // Forgets `topic`'s offsets in every group (the topic was deleted).
  Status DeleteTopic(const std::string& topic);
  // Forgets every offset of `group` (DeleteGroups).
  // Forgets the group's offsets; `fence` as for Commit (a node that lost the group deletes
  // nothing).
  Status DeleteGroup(const std::string& group, const metadata::OffsetFence* fence);

 private:
  struct Entry {
    std::mutex mutex;  // held across the database write, so the cache follows commit order
    bool loaded = false;
    int64_t epoch = 0;  // the fence epoch the cache was read under
    GroupOffsetMap offsets;
  };
  std::shared_ptr<Entry> EntryFor(const std::string& group);
  // Reads the group's offsets from the database unless that was done under `epoch`. Caller
  // holds e.mutex.
  Status LoadLocked(const std::string& group, Entry& e, int64_t epoch);

  metadata::GroupOffsetStore* const store_;
  std::mutex mutex_;  // guards entries_ (not the entries)
  std::map<std::string, std::shared_ptr<Entry>> entries_;
};

}  // namespace mink::kafka
