#include "storage/stream_reader.h"

#include <functional>
#include <string>

namespace mink::storage {

StreamReader::StreamReader(metadata::MetadataLog* meta,
                           std::map<int32_t, object_store::ObjectStore*> stores_by_bucket,
                           BlockCache* blocks, TailCache* tail)
    : meta_(meta), stores_(std::move(stores_by_bucket)), blocks_(blocks), tail_(tail) {}

ReadStats StreamReader::stats() const {
  std::lock_guard<std::mutex> lock(stats_mutex_);
  return stats_;
}

namespace {

std::string CacheKey(const metadata::Segment& seg) {
  return seg.object_key + "@" + std::to_string(seg.position);
}

}  // namespace

Result<CachedRunPtr> StreamReader::FetchSegment(const metadata::Segment& seg,
                                                const std::string& cache_key) {
  auto store = stores_.find(seg.bucket_id);
  if (store == stores_.end()) {
    return DataLossError("object " + seg.object_key + " is in store bucket " +
                         std::to_string(seg.bucket_id) + ", which this node does not have");
  }
  // A run read before and dropped from the cache since (its key was counted more than once) is
  // read through the operating system's cache, which can then serve the next read of it.
  const auto reuse = blocks_->AccessCount(cache_key) > 1 ? object_store::Reuse::kRereading
                                                         : object_store::Reuse::kFirstRead;
  auto fetched = store->second->GetRangeBuffer(seg.object_key, seg.position, seg.length, reuse);
  if (!fetched.ok()) {
    if (IsNotFound(fetched.status())) {
      return DataLossError("object " + seg.object_key + " is missing from " +
                           store->second->Describe());
    }
    if (fetched.status().code() == StatusCode::kOutOfRange) {
      return DataLossError("object " + seg.object_key + " is truncated: " +
                           fetched.status().message());
    }
    return fetched.status();
  }
  if (fetched->size() != seg.length) {
    return DataLossError("object " + seg.object_key + " is truncated: expected " +
                         std::to_string(seg.length) + " bytes at " + std::to_string(seg.position) +
                         ", got " + std::to_string(fetched->size()));
  }
  {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    ++stats_.object_reads;
    stats_.object_bytes += fetched->size();
  }
  // The batches' payloads point into the fetched range, which they keep alive: no copy.
  auto range = std::make_shared<const object_store::Buffer>(std::move(*fetched));
  MINK_ASSIGN_OR_RETURN(auto batches,
                        DecodeBatches(range->view(), seg.object_key, seg.position, range));
  if (batches.empty() || batches.front().base_offset != seg.start_offset ||
      batches.back().end_offset() != seg.end_offset) {
    return DataLossError("object " + seg.object_key + " at byte " + std::to_string(seg.position) +
                         ": batches do not match the offsets the index records");
  }
  auto run = std::make_shared<CachedRun>();
  run->bytes = seg.length;
  run->batches.reserve(batches.size());
  for (auto& b : batches) run->batches.push_back(std::make_shared<const Batch>(std::move(b)));
  blocks_->Put(cache_key, run);  // only verified runs are cached
  return CachedRunPtr(std::move(run));
}

Result<ReadResult> StreamReader::Read(uint64_t stream_id, int64_t offset, size_t max_bytes,
                                      std::chrono::milliseconds max_wait) {
  const auto deadline = SteadyNow() + max_wait;
  ReadResult result;
  std::vector<metadata::Segment> segments;
  while (true) {
    int64_t seen_seq = 0;
    bool found = false;
    segments.clear();
    meta_->Read([&](const metadata::State& s) {
      seen_seq = s.applied_seq();
      const metadata::StreamState* st = s.FindStream(stream_id);
      if (st == nullptr) return;
      found = true;
      result.start_offset = st->start_offset;
      result.end_offset = st->end_offset;
      if (offset < st->start_offset || offset >= st->end_offset) return;
      // The segments from `offset` on, enough to fill max_bytes.
      auto it = st->segments.upper_bound(offset);
      if (it != st->segments.begin()) --it;
      uint64_t bytes = 0;
      for (; it != st->segments.end() && (bytes < max_bytes || segments.empty()); ++it) {
        segments.push_back(it->second);
        bytes += it->second.length;
      }
    });
    if (!found) return NotFoundError("no stream " + std::to_string(stream_id));
    if (offset < result.start_offset) {
      return OutOfRangeError("offset " + std::to_string(offset) + " is before the start " +
                             std::to_string(result.start_offset) + " of stream " +
                             std::to_string(stream_id));
    }
    if (offset > result.end_offset) {
      return OutOfRangeError("offset " + std::to_string(offset) + " is beyond the end " +
                             std::to_string(result.end_offset) + " of stream " +
                             std::to_string(stream_id));
    }
    if (offset == result.end_offset) {
      if (SteadyNow() >= deadline) return result;
      meta_->WaitApplied(seen_seq, std::chrono::duration_cast<std::chrono::milliseconds>(
                                       deadline - SteadyNow()) +
                                       std::chrono::milliseconds(1));
      continue;
    }
    break;
  }
  // Serve from the tail when it has the offset; otherwise walk the segments.
  std::vector<BatchPtr> tail = tail_->Get(stream_id, offset, max_bytes);
  if (!tail.empty()) {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    ++stats_.tail_hits;
    for (auto& b : tail) {
      if (b->base_offset >= result.end_offset) break;
      result.batches.push_back(std::move(b));
    }
    return result;
  }
  MINK_ASSIGN_OR_RETURN(std::vector<CachedRunPtr> runs,
                        LoadSegments(segments, SteadyNow() + kLoadBudget));
  size_t bytes = 0;
  int64_t at = offset;
  for (const CachedRunPtr& run : runs) {
    if (!result.batches.empty() && bytes >= max_bytes) break;
    for (const BatchPtr& b : run->batches) {
      if (b->end_offset() <= at) continue;
      if (!result.batches.empty() && bytes + b->payload.size() > max_bytes) return result;
      bytes += b->payload.size() + b->change_types.size() + kBatchHeaderSize;
      at = b->end_offset();
      result.batches.push_back(b);
    }
  }
  return result;
}

Result<std::vector<CachedRunPtr>> StreamReader::LoadSegments(
    const std::vector<metadata::Segment>& segments, SteadyTime deadline) {
  std::vector<CachedRunPtr> runs(segments.size());
  std::vector<std::string> keys(segments.size());
  std::vector<size_t> misses;
  uint64_t hits = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    keys[i] = CacheKey(segments[i]);
    runs[i] = blocks_->Get(keys[i]);
    if (runs[i]) {
      ++hits;
    } else {
      misses.push_back(i);
    }
  }
  if (hits > 0) {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.cache_hits += hits;
  }
  std::vector<Status> errors(segments.size());
  std::vector<std::function<void()>> fetches;
  for (size_t i : misses) {
    fetches.push_back([&, i] {
      if (i > 0 && SteadyNow() >= deadline) return;  // left to the next read
      auto run = FetchSegment(segments[i], keys[i]);
      if (run.ok()) {
        runs[i] = std::move(*run);
      } else {
        errors[i] = run.status();
      }
    });
  }
  RunTogether(&loads_, std::move(fetches));
  // The prefix up to the first segment not loaded: its error only when it is the first.
  size_t loaded = 0;
  while (loaded < runs.size() && runs[loaded]) ++loaded;
  if (loaded == 0 && !runs.empty()) return errors[0];
  runs.resize(loaded);
  return runs;
}

}  // namespace mink::storage
