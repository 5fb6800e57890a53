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
