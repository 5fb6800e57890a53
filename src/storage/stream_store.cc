#include "storage/stream_store.h"

#include <optional>

#include "base/log.h"
#include "metadata/out_of_touch.h"

namespace mink::storage {

using metadata::Command;
using metadata::State;

Result<NodeIdentity> StreamStore::RegisterNode(metadata::MetadataLog* meta, int32_t node_id) {
  int64_t epoch = 0;
  auto seq = meta->Append([&](const State& s) -> Result<Command> {
    epoch = s.NodeEpoch(node_id) + 1;
    return Command(metadata::RegisterNode{node_id, epoch});
  });
  if (!seq.ok()) return seq.status();
  return NodeIdentity{node_id, epoch};
}

Result<std::unique_ptr<StreamStore>> StreamStore::Open(const StorageOptions& options,
                                                       metadata::MetadataLog* meta,
                                                       StoreSet stores, NodeIdentity node,
                                                       bool maintenance) {
  if (!stores.data || !stores.wal) return InvalidArgumentError("storage needs a data and a WAL store");
  if (stores.data_bucket_id == stores.wal_bucket_id && stores.data != stores.wal) {
    return InvalidArgumentError("the data and WAL stores need different bucket ids");
  }
  auto store = std::unique_ptr<StreamStore>(new StreamStore(options, meta, std::move(stores), node));
  if (maintenance) {
    store->maintenance_ = std::thread([raw = store.get()] { raw->MaintenanceLoop(); });
  }
  return store;
}

StreamStore::StreamStore(const StorageOptions& options, metadata::MetadataLog* meta,
                         StoreSet stores, NodeIdentity node)
    : options_(options),
      meta_(meta),
      stores_(std::move(stores)),
      node_(node),
      tail_(options.tail_bytes_per_stream),
      blocks_(options.block_cache_bytes) {
  std::map<int32_t, object_store::ObjectStore*> by_bucket{
      {stores_.data_bucket_id, stores_.data.get()}, {stores_.wal_bucket_id, stores_.wal.get()}};
  reader_ = std::make_unique<StreamReader>(meta_, std::move(by_bucket), &blocks_, &tail_);
  writer_ = std::make_unique<WalWriter>(options_, meta_, stores_.wal.get(), stores_.wal_bucket_id,
                                        node_, &tail_);
}

StreamStore::~StreamStore() { Stop(); }

void StreamStore::Stop() {
  StopMaintenance();
  writer_->Stop();
}

void StreamStore::StopMaintenance() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (maintenance_.joinable()) maintenance_.join();
}

bool StreamStore::Stopping() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stopping_;
}

object_store::ObjectStore* StreamStore::StoreFor(int32_t bucket_id) const {
  return bucket_id == stores_.wal_bucket_id ? stores_.wal.get() : stores_.data.get();
}

Result<uint64_t> StreamStore::CreateStream(const std::string& name) {
  uint64_t id = 0;
  auto seq = meta_->Append([&](const State& s) -> Result<Command> {
    id = s.next_stream_id();
    return Command(metadata::CreateStream{id, name});
  });
  if (!seq.ok()) return seq.status();
  return id;
}

Status StreamStore::OpenStreams(const std::vector<uint64_t>& stream_ids) {
  if (stream_ids.empty()) return Status::Ok();
  auto seq = meta_->Append([&](const State& s) -> Result<Command> {
    metadata::OpenStreams open{node_.node_id, node_.node_epoch, {}};
    for (uint64_t id : stream_ids) {
      const metadata::StreamState* st = s.FindStream(id);
      if (st == nullptr) return NotFoundError("no stream " + std::to_string(id));
      open.streams.push_back({id, st->epoch + 1});
    }
    return Command(std::move(open));
  });
  if (!seq.ok()) return seq.status();
  for (uint64_t id : stream_ids) {
    int64_t epoch = 0, end = 0;
    if (!OwnedStream(id, &epoch, &end)) {
      // Taken by another owner since (the log moved on while this node caught up): not ours to
      // write; the next round of moves sees where it is.
      MINK_LOG_INFO("storage", "stream {} was taken by another owner while node {} opened it", id,
                    node_.node_id);
      continue;
    }
    tail_.Drop(id);
    writer_->Adopt(id, epoch, end);
    MINK_LOG_DEBUG("storage", "opened stream={} epoch={} end={} node={}", id, epoch, end,
                   node_.node_id);
  }
  return Status::Ok();
}

bool StreamStore::OwnedStream(uint64_t stream_id, int64_t* epoch, int64_t* end) const {
  return meta_->Read([&](const State& s) {
    const metadata::StreamState* st = s.FindStream(stream_id);
    if (st == nullptr || st->owner_node != node_.node_id ||
        st->owner_node_epoch != node_.node_epoch) {
      return false;
    }
    *epoch = st->epoch;
    *end = st->end_offset;
    return true;
  });
}

void StreamStore::AdoptOwned(const std::vector<uint64_t>& stream_ids) {
  for (uint64_t id : stream_ids) {
    int64_t epoch = 0, end = 0;
    bool ours = OwnedStream(id, &epoch, &end);
    if (ours && !writer_->Owns(id)) writer_->Adopt(id, epoch, end);
  }
}

std::vector<std::pair<int64_t, int64_t>> StreamStore::RecordTimeRanges(
    uint64_t stream_id, int64_t record_time_ms, int64_t undeclared_slack_ms) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  meta_->Read([&](const State& s) {
    const metadata::StreamState* st = s.FindStream(stream_id);
    if (st == nullptr) return;
    for (const auto& [first, seg] : st->segments) {
      if (seg.end_offset <= st->start_offset) continue;
      const bool may_hold = seg.max_record_time_ms != metadata::kUnknownRecordTime
                                ? seg.max_record_time_ms >= record_time_ms
                                : seg.max_timestamp_ms >= record_time_ms - undeclared_slack_ms;
      if (!may_hold) continue;
      const int64_t start = std::max(seg.start_offset, st->start_offset);
      if (!ranges.empty() && ranges.back().second == start) {
        ranges.back().second = seg.end_offset;
      } else {
        ranges.emplace_back(start, seg.end_offset);
      }
    }
  });
  return ranges;
}

Result<int64_t> StreamStore::OffsetAtTime(uint64_t stream_id, int64_t timestamp_ms) {
  // The first segment that holds a batch committed at or after the time, then its batches.
  std::optional<metadata::Segment> segment;
  int64_t start = 0, end = 0;
  bool found = meta_->Read([&](const State& s) {
    const metadata::StreamState* st = s.FindStream(stream_id);
    if (st == nullptr) return false;
    start = st->start_offset;
    end = st->end_offset;
    for (const auto& [first, seg] : st->segments) {
      if (seg.end_offset > st->start_offset && seg.max_timestamp_ms >= timestamp_ms) {
        segment = seg;
        break;
      }
    }
    return true;
  });
  if (!found) return NotFoundError("no stream " + std::to_string(stream_id));
  if (!segment) return end;
  int64_t at = std::max(start, segment->start_offset);
  while (at < end) {
    MINK_ASSIGN_OR_RETURN(ReadResult r, reader_->Read(stream_id, at, 1 << 20));
    if (r.batches.empty()) break;
    for (const auto& b : r.batches) {
      if (b->timestamp_ms >= timestamp_ms) return std::max(b->base_offset, start);
      at = b->end_offset();
    }
  }
  return end;
}

void StreamStore::CloseStream(uint64_t stream_id) {
  writer_->Release(stream_id);
  tail_.Drop(stream_id);
}

Status StreamStore::ReleaseStreams(const std::vector<uint64_t>& stream_ids,
                                   std::chrono::milliseconds drain_timeout,
                                   const std::function<void()>& drained) {
  if (stream_ids.empty()) return Status::Ok();
  if (!writer_->Drain(stream_ids, drain_timeout)) {
    MINK_LOG_WARN("storage", "releasing {} streams: appends still in flight after {} ms fail",
                  stream_ids.size(), drain_timeout.count());
  } else if (drained) {
    drained();
  }
  for (uint64_t id : stream_ids) tail_.Drop(id);
  bool nothing = false;
  auto seq = meta_->Append([&](const State& s) -> Result<Command> {
    metadata::ReleaseStreams release{node_.node_id, node_.node_epoch, {}};
    for (uint64_t id : stream_ids) {
      const metadata::StreamState* st = s.FindStream(id);
      if (st != nullptr && st->owner_node == node_.node_id &&
          st->owner_node_epoch == node_.node_epoch) {
        release.stream_ids.push_back(id);
      }
    }
    nothing = release.stream_ids.empty();
    if (nothing) return AbortedError("none of the streams is owned here any more");
    return Command(std::move(release));
  });
  if (!seq.ok() && !nothing) return seq.status();
  return Status::Ok();
}

Status StreamStore::DeleteStream(uint64_t stream_id) {
  CloseStream(stream_id);
  auto seq = meta_->Append(Command(metadata::DeleteStream{stream_id}));
  return seq.ok() ? Status::Ok() : seq.status();
}

Result<int64_t> StreamStore::Append(uint64_t stream_id, BatchInput input, AppendCallback done) {
  if (Fenced()) {
    return AbortedError(metadata::OutOfTouchMessage(std::to_string(node_.node_id)) +
                        ", so another node may own stream " + std::to_string(stream_id));
  }
  return writer_->Append(stream_id, std::move(input), std::move(done));
}

Result<AppendResult> StreamStore::AppendAndWait(uint64_t stream_id, BatchInput input) {
  auto promise = std::make_shared<std::promise<Status>>();
  std::future<Status> committed = promise->get_future();
  int32_t count = input.record_count;
  MINK_ASSIGN_OR_RETURN(int64_t base,
                        Append(stream_id, std::move(input),
                               [promise](Status s) { promise->set_value(std::move(s)); }));
  Status s = committed.get();
  if (!s.ok()) return s;
  return AppendResult{base, base + count};
}

Status StreamStore::Trim(uint64_t stream_id, int64_t new_start) {
  auto seq = meta_->Append(Command(metadata::TrimStream{stream_id, new_start}));
  return seq.ok() ? Status::Ok() : seq.status();
}

MaintenanceStats StreamStore::maintenance_stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void StreamStore::MaintenanceLoop() {
  auto next_compaction = SteadyNow() + options_.compaction_interval;
  auto next_gc = SteadyNow() + options_.gc_interval;
  auto next_retention = SteadyNow() + options_.retention_interval;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    auto wake = std::min({next_compaction, next_gc, next_retention});
    stop_cv_.wait_until(lock, wake, [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    auto now = SteadyNow();
    auto run = [](const char* what, Status s) {
      if (!s.ok()) MINK_LOG_WARN("storage", "{} failed: {}", what, s.ToString());
    };
    if (now >= next_compaction) {
      run("compaction", RunCompaction());
      next_compaction = SteadyNow() + options_.compaction_interval;
    }
    if (now >= next_gc) {
      std::function<bool()> gate;
      {
        std::lock_guard<std::mutex> gate_lock(mutex_);
        gate = gc_gate_;
      }
      if (!gate || gate()) run("garbage collection", RunGarbageCollection());
      // A backlog left by a bounded pass is worked on at once, not a gc interval later.
      next_gc = SteadyNow() + (gc_backlog_ ? std::chrono::milliseconds(0) : options_.gc_interval);
    }
    if (now >= next_retention) {
      run("retention", RunRetention());
      next_retention = SteadyNow() + options_.retention_interval;
    }
    lock.lock();
  }
}

}  // namespace mink::storage
