#include "table/bucket_ownership.h"

namespace mink::table {

std::vector<uint64_t> AllBucketStreams(const metadata::State& state) {
  std::vector<uint64_t> streams;
  for (const auto& [id, t] : state.tables()) {
    streams.insert(streams.end(), t.streams.begin(), t.streams.end());
    for (const auto& [name, p] : t.partitions) {
      streams.insert(streams.end(), p.streams.begin(), p.streams.end());
    }
  }
  return streams;
}

std::vector<uint64_t> SingleNodeAssignment::StreamsToTake(const metadata::State& state) const {
  std::vector<uint64_t> take;
  for (uint64_t stream : AllBucketStreams(state)) {
    const metadata::StreamState* st = state.FindStream(stream);
    // Ours from an earlier process, or nobody's.
    if (st != nullptr && (st->owner_node == node_.node_id || st->owner_node == 0) &&
        st->owner_node_epoch != node_.node_epoch) {
      take.push_back(stream);
    }
  }
  return take;
}

std::vector<uint64_t> CoordinatedAssignment::StreamsToTake(const metadata::State& state) const {
  std::vector<uint64_t> take;
  // A process that is leaving takes nothing, not even the buckets it released a moment ago that
  // are still assigned to it (nobody else was there to take them).
  if (auto self = state.nodes().find(node_.node_id);
      self != state.nodes().end() && self->second.node_epoch == node_.node_epoch && self->second.leaving) {
    return take;
  }
  for (uint64_t stream : AllBucketStreams(state)) {
    const metadata::StreamState* st = state.FindStream(stream);
    if (st == nullptr || st->assigned_node != node_.node_id) continue;
    if (st->owner_node == 0 ||
        (st->owner_node == node_.node_id && st->owner_node_epoch != node_.node_epoch)) {
      take.push_back(stream);
    }
  }
  return take;
}

std::vector<uint64_t> CoordinatedAssignment::StreamsToRelease(const metadata::State& state) const {
  std::vector<uint64_t> release;
  for (uint64_t stream : AllBucketStreams(state)) {
    const metadata::StreamState* st = state.FindStream(stream);
    if (st != nullptr && st->owner_node == node_.node_id &&
        st->owner_node_epoch == node_.node_epoch && st->assigned_node != 0 &&
        st->assigned_node != node_.node_id) {
      release.push_back(stream);
    }
  }
  return release;
}

BucketOwnership::Moves BucketOwnership::Pending() const {
  return meta_->Read([&](const metadata::State& s) {
    Moves moves{assignment_->StreamsToTake(s), assignment_->StreamsToRelease(s), {}};
    const storage::NodeIdentity& self = storage_->node();
    for (uint64_t stream : AllBucketStreams(s)) {
      const metadata::StreamState* st = s.FindStream(stream);
      if (st != nullptr && (st->owner_node != self.node_id || st->owner_node_epoch != self.node_epoch) &&
          storage_->Writes(stream)) {
        moves.lost.push_back(stream);
      }
    }
    return moves;
  });
}

Status BucketOwnership::Apply(const Moves& moves, std::chrono::milliseconds drain_timeout,
                              const std::function<void()>& drained) {
  for (uint64_t s : moves.lost) storage_->CloseStream(s);
  MINK_RETURN_IF_ERROR(storage_->ReleaseStreams(moves.release, drain_timeout, drained));
  if (!moves.take.empty()) MINK_RETURN_IF_ERROR(storage_->OpenStreams(moves.take));
  return Status::Ok();
}

bool BucketOwnership::AwaitOwners(const std::vector<uint64_t>& streams,
                                  std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int64_t seq = meta_->applied_seq();
    bool owned = meta_->Read([&](const metadata::State& s) {
      for (uint64_t id : streams) {
        const metadata::StreamState* st = s.FindStream(id);
        if (st != nullptr && st->owner_node == 0) return false;
      }
      return true;
    });
    auto now = std::chrono::steady_clock::now();
    if (owned) return true;
    if (now >= deadline) return false;
    meta_->WaitApplied(seq, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
  }
}

Result<size_t> BucketOwnership::TakeAssigned() {
  std::vector<uint64_t> take =
      meta_->Read([&](const metadata::State& s) { return assignment_->StreamsToTake(s); });
  if (!take.empty()) MINK_RETURN_IF_ERROR(storage_->OpenStreams(take));
  return take.size();
}

std::map<int32_t, int64_t> BucketOwnership::BucketsPerNode() const {
  return meta_->Read([](const metadata::State& s) {
    std::map<int32_t, int64_t> owned;
    for (uint64_t stream : AllBucketStreams(s)) {
      const metadata::StreamState* st = s.FindStream(stream);
      if (st != nullptr && st->owner_node != 0 &&
          st->owner_node_epoch == s.NodeEpoch(st->owner_node)) {
        ++owned[st->owner_node];
      }
    }
    return owned;
  });
}

void BucketOwnership::Release(const std::vector<uint64_t>& streams) {
  for (uint64_t s : streams) storage_->CloseStream(s);
}

}  // namespace mink::table
