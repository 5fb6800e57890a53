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
    for (const auto& f : c.files) {
      // Being deleted: no longer in the store to be named (a writer whose state lags).
      if (unreferenced_.count(f.key) || f.key == c.key) {
        return AbortedError("KV snapshot file " + f.key + " is no longer referenced");
      }
    }
    if (c.stream_epoch != 0 && c.stream_epoch != st->epoch) {
      return AbortedError("a KV snapshot of " + StreamName(c.stream_id) + " at epoch " +
                          std::to_string(c.stream_epoch) + ": the stream is at epoch " +
                          std::to_string(st->epoch));
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
    // The new snapshot's references first, so a file it shares with the previous one never
    // drops to none in between.
    uint64_t size = c.size;
    for (const auto& f : c.files) {
      auto [it, added] = objects_.try_emplace(f.key, ObjectState{f.key, c.bucket_id, f.size, 0, time_ms});
      ++it->second.references;
      size += f.size;
    }
    auto prev = kv_snapshots_.find(c.stream_id);
    if (prev != kv_snapshots_.end()) ReleaseKvSnapshot(prev->second, time_ms);
    objects_[c.key] = ObjectState{c.key, c.bucket_id, c.size, 1, time_ms};
    kv_snapshots_[c.stream_id] = KvSnapshotState{c.key, c.bucket_id, size, c.offset, c.files};
  }

void State::ReleaseKvSnapshot(const KvSnapshotState& snapshot, int64_t time_ms) {
  Unreference(snapshot.key, time_ms);
  for (const auto& f : snapshot.files) Unreference(f.key, time_ms);
}

}  // namespace mink::metadata
