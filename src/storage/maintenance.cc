// The background work of a StreamStore: compaction, garbage collection and retention.

#include <algorithm>
#include <limits>
#include <set>

#include "base/backoff.h"
#include "base/log.h"
#include "base/thread_pool.h"
#include "storage/object_format.h"
#include "storage/object_keys.h"
#include "storage/stream_store.h"

namespace mink::storage {

using metadata::Command;
using metadata::State;

namespace {

// A pass is bounded, so a stop never waits long for it: deletes per GC pass (one request each,
// run on the maintenance loads' threads; a backlog is worked off by passes back to back),
// segments per compaction round (one ranged GET each; a backlog of tiny WAL segments takes
// several rounds).
constexpr size_t kMaxDeletesPerPass = 8000;
// Keys per ForgetObjects command: a pass's deletes are recorded in a few commands of bounded size.
constexpr size_t kForgetPerCommand = 1000;
constexpr size_t kMaxRunSegments = 512;
// A round's segments are fetched this many at once (ranged GETs on compaction_loads_), then
// copied in order: a run of tiny WAL segments costs a GET's latency per window, not per segment,
// and what a window holds is bounded.
constexpr size_t kFetchWindow = 32;

// Uploads a compaction output (paced where the store paces background puts), retrying
// transient object-store failures a few times.
Status PutWithRetry(object_store::ObjectStore* store, const std::string& key,
                    const std::string& data) {
  Backoff backoff(std::chrono::milliseconds(10), std::chrono::milliseconds(500));
  Status s;
  for (int attempt = 0; attempt < 8; ++attempt) {
    s = store->PutInBackground(key, data);
    if (s.ok()) return s;
    std::this_thread::sleep_for(backoff.Next());
  }
  return s;
}

}  // namespace

Status StreamStore::RunCompaction() {
  std::vector<uint64_t> owned;
  meta_->Read([&](const State& s) {
    for (const auto& [id, st] : s.streams()) {
      if (st.owner_node == node_.node_id && st.owner_node_epoch == node_.node_epoch) {
        owned.push_back(id);
      }
    }
  });
  // A stream gets rounds until nothing in it is worth compacting: one round rewrites at most
  // stream_object_bytes, and a stream written faster than that per interval would otherwise
  // keep its WAL objects ever longer. The bound lets a node far behind catch up over several
  // intervals while GC and retention still get their turns.
  constexpr int kMaxRoundsPerStream = 64;
  Status first_error;
  for (uint64_t id : owned) {
    for (int round = 0; round < kMaxRoundsPerStream; ++round) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) return first_error;
      }
      Result<bool> compacted = CompactStream(id);
      if (!compacted.ok() && first_error.ok()) first_error = compacted.status();
      if (!compacted.ok() || !*compacted) break;  // failed, or nothing (more) worth it
    }
  }
  return first_error;
}

Result<bool> StreamStore::CompactStream(uint64_t stream_id) {
  const int64_t now = meta_->clock()->NowMillis();
  // The first run of consecutive segments worth rewriting: WAL segments old enough, and small
  // stream objects, up to stream_object_bytes.
  std::vector<metadata::Segment> run;
  meta_->Read([&](const State& s) {
    const metadata::StreamState* st = s.FindStream(stream_id);
    if (st == nullptr) return;
    uint64_t bytes = 0;
    bool has_wal = false;
    std::set<std::string> objects;  // distinct objects in the run
    // Worth rewriting: it frees a WAL object, or it merges two or more stream objects.
    auto worth_it = [&] { return has_wal || objects.size() >= 2; };
    for (const auto& [start, seg] : st->segments) {
      auto object = s.objects().find(seg.object_key);
      bool wal = IsWalKey(seg.object_key);
      bool eligible =
          object != s.objects().end() &&
          (wal ? object->second.committed_ms + options_.compaction_min_age.count() <= now
               : object->second.size < options_.small_object_bytes);
      if (eligible && bytes + seg.length <= options_.stream_object_bytes && run.size() < kMaxRunSegments) {
        run.push_back(seg);
        bytes += seg.length;
        has_wal |= wal;
        objects.insert(seg.object_key);
        continue;
      }
      if (worth_it()) break;
      run.clear();
      objects.clear();
      bytes = 0;
      has_wal = false;
      if (eligible) {
        run.push_back(seg);
        bytes = seg.length;
        has_wal = wal;
        objects.insert(seg.object_key);
      }
    }
    if (!worth_it()) run.clear();
  });
  if (run.empty()) return false;

  // Copy the batches verbatim (checking every checksum) into blocks of about block_bytes.
  ObjectBuilder builder(ObjectKind::kStream);
  uint64_t block_start = 0;
  builder.BeginRun(stream_id);
  // Each block's record-time bound: the largest bound of the segments it copies from.
  std::vector<int64_t> block_record_time{std::numeric_limits<int64_t>::min()};
  std::vector<Result<object_store::Buffer>> window;
  for (size_t i = 0; i < run.size(); ++i) {
    const metadata::Segment& seg = run[i];
    if (i % kFetchWindow == 0) {
      if (Stopping()) return false;  // nothing uploaded yet: the next owner compacts it
      const size_t n = std::min(kFetchWindow, run.size() - i);
      window.clear();
      for (size_t k = 0; k < n; ++k) window.emplace_back(UnavailableError("not fetched"));
      std::vector<std::function<void()>> fetches;
      for (size_t k = 0; k < n; ++k) {
        fetches.push_back([&, k] {
          const metadata::Segment& s = run[i + k];
          window[k] = StoreFor(s.bucket_id)->GetRangeBuffer(s.object_key, s.position, s.length,
                                                            object_store::Reuse::kFirstRead);
        });
      }
      RunTogether(&compaction_loads_, std::move(fetches));
    }
    auto& bytes = window[i % kFetchWindow];
    if (!bytes.ok()) return bytes.status().WithContext("compaction of stream " + std::to_string(stream_id));
    if (bytes->size() != seg.length) {
      return DataLossError("object " + seg.object_key + " is truncated");
    }
    MINK_ASSIGN_OR_RETURN(auto spans, ScanBatches(bytes->view(), seg.object_key, seg.position));
    for (const auto& span : spans) {
      if (builder.size() - block_start >= options_.block_bytes) {
        builder.BeginRun(stream_id);
        block_start = builder.size();
        block_record_time.push_back(std::numeric_limits<int64_t>::min());
      }
      block_record_time.back() = std::max(block_record_time.back(), seg.max_record_time_ms);
      builder.AddRawBatch(bytes->view().substr(span.position - seg.position, span.length),
                          span.base_offset, span.record_count, span.timestamp_ms);
    }
  }
  builder.EndRun();
  metadata::ObjectEntry object;
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    seq = next_object_seq_++;
  }
  object.key = StreamObjectKey(stream_id, run.front().start_offset, node_.node_id,
                               node_.node_epoch, seq);
  object.bucket_id = stores_.data_bucket_id;
  for (size_t i = 0; i < builder.runs().size(); ++i) {
    const RunEntry& r = builder.runs()[i];
    object.segments.push_back(metadata::SegmentEntry{stream_id, 0, r.start_offset, r.end_offset,
                                                     r.position, r.length, r.max_timestamp_ms,
                                                     i < block_record_time.size()
                                                         ? block_record_time[i]
                                                         : metadata::kUnknownRecordTime});
  }
  std::string data = builder.Finish();
  object.size = data.size();
  const auto upload_start = SteadyNow();
  MINK_RETURN_IF_ERROR(PutWithRetry(stores_.data.get(), object.key, data));
  if (SteadyNow() - upload_start > options_.orphan_grace / 2) {
    // The orphan sweep may already consider it never committed: do not commit it.
    (void)stores_.data->Delete(object.key);
    return UnavailableError("compaction output " + object.key + " took too long to upload");
  }

  metadata::ReplaceSegments replace;
  replace.stream_id = stream_id;
  replace.start_offset = run.front().start_offset;
  replace.end_offset = run.back().end_offset;
  for (const auto& seg : run) replace.replaced_keys.push_back(seg.object_key);
  replace.object = std::move(object);
  auto seq_or = meta_->Append(Command(replace));
  if (!seq_or.ok()) {
    // Refused (the stream changed meanwhile): the new object is nobody's; remove it now. When the
    // outcome is unknown the log may reference it: the orphan sweep decides later.
    if (!IsOutcomeUnknown(seq_or.status())) (void)stores_.data->Delete(replace.object.key);
    if (IsAborted(seq_or.status())) return false;
    return seq_or.status();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.compactions;
  return true;
}

Status StreamStore::RunGarbageCollection() {
  const int64_t now = meta_->clock()->NowMillis();
  // 1. Objects that lost their last reference more than delete_grace ago.
  std::vector<std::string> expired;
  meta_->Read([&](const State& s) {
    for (const auto& [key, since] : s.unreferenced()) {
      if (since + options_.delete_grace.count() <= now) expired.push_back(key);
    }
  });
  // Bounded, and over when the node stops: what was deleted is forgotten below either way, so
  // the next pass (here or on the next coordinator) goes on from there.
  const size_t attempted = std::min(expired.size(), kMaxDeletesPerPass);
  std::vector<char> gone(attempted, 0);
  std::vector<std::function<void()>> deletes;
  for (size_t i = 0; i < attempted; ++i) {
    deletes.push_back([this, &expired, &gone, i] {
      if (Stopping()) return;
      const std::string& key = expired[i];
      gone[i] = (IsWalKey(key) ? stores_.wal : stores_.data)->Delete(key).ok();
    });
  }
  // Many at once: a delete is a round trip to the object store, and a busy cluster's WAL
  // objects expire faster than one at a time can remove them.
  RunTogether(&compaction_loads_, std::move(deletes));
  std::vector<std::string> deleted;
  for (size_t i = 0; i < attempted; ++i) {
    if (gone[i]) deleted.push_back(expired[i]);
  }
  // More expired than a pass takes, and deletes work: the next pass runs at once.
  gc_backlog_ = expired.size() > attempted && !deleted.empty();
  for (size_t first = 0; first < deleted.size(); first += kForgetPerCommand) {
    const size_t last = std::min(deleted.size(), first + kForgetPerCommand);
    auto seq = meta_->Append([&](const State& s) -> Result<Command> {
      metadata::ForgetObjects forget;
      for (size_t i = first; i < last; ++i) {
        if (s.unreferenced().count(deleted[i])) forget.keys.push_back(deleted[i]);
      }
      if (forget.keys.empty()) return AbortedError("already forgotten");
      return Command(forget);
    });
    if (!seq.ok() && !IsAborted(seq.status())) return seq.status();
  }
  if (!deleted.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.objects_deleted += deleted.size();
  }

  if (Stopping()) return Status::Ok();
  // 2. Objects uploaded but never committed, looked for a few times per orphan grace: the
  // listing reads every key of the WAL and data prefixes, and an orphan waits a grace anyway.
  const auto since_sweep = SteadyNow() - last_orphan_sweep_;
  if (last_orphan_sweep_ != SteadyTime{} && since_sweep < options_.orphan_grace / 4) return Status::Ok();
  last_orphan_sweep_ = SteadyNow();
  // List first, then read the state: an object
  // committed after the listing is in that state. Writers never commit an object older than
  // half the orphan grace, so one older than the grace can no longer become referenced.
  struct Listing {
    object_store::ObjectStore* store;
    std::vector<object_store::ObjectInfo> objects;
  };
  std::vector<Listing> listings;
  for (auto [store, prefix] : {std::pair{stores_.wal.get(), kWalPrefix},
                               std::pair{stores_.data.get(), kStreamPrefix},
                               std::pair{stores_.data.get(), kKvPrefix},
                               std::pair{stores_.data.get(), kWritersPrefix}}) {
    MINK_ASSIGN_OR_RETURN(auto objects, store->List(prefix));
    listings.push_back(Listing{store, std::move(objects)});
  }
  // The state must be the log's as of now, not this node's possibly lagging view: an object whose
  // commit this node has not applied yet is not an orphan.
  MINK_RETURN_IF_ERROR(meta_->CatchUp());
  std::set<std::string> known;
  meta_->Read([&](const State& s) {
    for (const auto& [key, o] : s.objects()) known.insert(key);
    for (const auto& [key, since] : s.unreferenced()) known.insert(key);
  });
  uint64_t orphans = 0;
  for (const auto& listing : listings) {
    for (const auto& info : listing.objects) {
      if (known.count(info.key)) continue;
      if (info.last_modified_ms + options_.orphan_grace.count() > now) continue;
      if (listing.store->Delete(info.key).ok()) {
        ++orphans;
        MINK_LOG_INFO("storage", "deleted never-committed object {}", info.key);
      }
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.orphans_deleted += orphans;
  return Status::Ok();
}

void StreamStore::SetGarbageCollectionGate(std::function<bool()> gate) {
  std::lock_guard<std::mutex> lock(mutex_);
  gc_gate_ = std::move(gate);
}

void StreamStore::SetRetentionPolicy(RetentionPolicy policy) {
  std::lock_guard<std::mutex> lock(mutex_);
  retention_policy_ = std::move(policy);
}

Status StreamStore::RunRetention() {
  const int64_t now = meta_->clock()->NowMillis();
  RetentionPolicy policy;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    policy = retention_policy_;
  }
  std::vector<uint64_t> owned;
  meta_->Read([&](const State& s) {
    for (const auto& [id, st] : s.streams()) {
      if (st.owner_node == node_.node_id && st.owner_node_epoch == node_.node_epoch) owned.push_back(id);
    }
  });
  std::map<uint64_t, RetentionRule> rules;
  for (uint64_t id : owned) {
    rules[id] = policy ? policy(id) : RetentionRule{options_.retention.count(), INT64_MAX};
  }
  std::vector<std::pair<uint64_t, int64_t>> trims;
  meta_->Read([&](const State& s) {
    for (const auto& [id, rule] : rules) {
      const metadata::StreamState* st = s.FindStream(id);
      if (st == nullptr || rule.ttl_ms <= 0) continue;
      const int64_t cutoff = now - rule.ttl_ms;
      int64_t new_start = st->end_offset;  // everything expired unless a newer segment exists
      for (const auto& [start, seg] : st->segments) {
        if (seg.max_timestamp_ms >= cutoff) {
          new_start = std::max(seg.start_offset, st->start_offset);
          break;
        }
      }
      new_start = std::min(new_start, rule.max_trim_offset);
      if (new_start > st->start_offset) trims.emplace_back(id, new_start);
    }
  });
  for (const auto& [id, new_start] : trims) {
    MINK_RETURN_IF_ERROR(Trim(id, new_start));
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.trims;
  }
  return Status::Ok();
}

}  // namespace mink::storage
