// The KV snapshots domain of the state machine: the newest KV snapshot of each primary-key
// bucket.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "metadata/state.h"

namespace mink::metadata {

namespace {

std::string StreamName(uint64_t id) { return "stream " + std::to_string(id); }

}  // namespace

Status State::CheckCommand(const CommitKvSnapshot& c) const {
    const StreamState* st = FindStream(c.stream_id);
    if (st == nullptr) return NotFoundError("no " + StreamName(c.stream_id));
    if (objects_.count(c.key) || unreferenced_.count(c.key)) {
      return AbortedError("object " + c.key + " is already committed");
    }
    if (c.offset > st->end_offset) {
      return InvalidArgumentError("KV snapshot offset beyond the end of " + StreamName(c.stream_id));
    }
    auto prev = kv_snapshots_.find(c.stream_id);
    if (prev != kv_snapshots_.end() && c.offset < prev->second.offset) {
      return AbortedError("a newer KV snapshot of " + StreamName(c.stream_id) + " exists");
    }
    return Status::Ok();
  }

void State::ApplyCommand(const CommitKvSnapshot& c, int64_t time_ms) {
    auto prev = kv_snapshots_.find(c.stream_id);
    if (prev != kv_snapshots_.end()) Unreference(prev->second.key, time_ms);
    objects_[c.key] = ObjectState{c.key, c.bucket_id, c.size, 1, time_ms};
    kv_snapshots_[c.stream_id] = KvSnapshotState{c.key, c.bucket_id, c.size, c.offset};
  }

}  // namespace mink::metadata
