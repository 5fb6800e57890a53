#include "storage/wal_writer.h"

#include <algorithm>
#include <limits>

#include "base/backoff.h"
#include "base/log.h"
#include "base/thread_priority.h"
#include "storage/object_format.h"
#include "storage/object_keys.h"

namespace mink::storage {

using metadata::Command;
using metadata::CommitObjects;
using metadata::ObjectEntry;
using metadata::SegmentEntry;
using metadata::State;

WalWriter::WalWriter(const StorageOptions& options, metadata::MetadataLog* meta,
                     object_store::ObjectStore* wal_store, int32_t wal_bucket_id,
                     NodeIdentity node, TailCache* tail)
    : options_(options),
      meta_(meta),
      wal_store_(wal_store),
      wal_bucket_id_(wal_bucket_id),
      node_(node),
      tail_(tail),
      upload_seconds_(metrics::HistogramOf("mink_wal_upload_duration_seconds",
                                           "Time to upload one WAL object, retries included.",
                                           metrics::LatencyBuckets())),
      commit_seconds_(metrics::HistogramOf("mink_wal_commit_duration_seconds",
                                           "Time to commit a group of uploaded WAL objects to the metadata log.",
                                           metrics::LatencyBuckets())),
      uploaded_bytes_(metrics::CounterOf("mink_wal_uploaded_bytes_total", "Bytes of WAL objects uploaded.")),
      upload_retries_(metrics::CounterOf("mink_wal_upload_retries_total", "WAL object uploads that failed and were retried.")),
      // One thread more than uploads in flight: the thread committing keeps its slot's upload
      // from waiting.
      uploads_(std::max(1, options.wal_max_inflight_uploads) + 1, "wal-upload") {
  sealer_ = std::thread([this] {
    NameThisThread("wal-seal");
    SealLoop();
  });
}

WalWriter::~WalWriter() { Stop(); }

void WalWriter::Adopt(uint64_t stream_id, int64_t epoch, int64_t committed_end) {
  std::lock_guard<std::mutex> lock(mutex_);
  Owned& o = owned_[stream_id];
  o.epoch = epoch;
  o.generation = ++generations_;  // never one an earlier ownership's runs carry
  o.next_offset = committed_end;
}

void WalWriter::Release(uint64_t stream_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  owned_.erase(stream_id);
}

bool WalWriter::Drain(const std::vector<uint64_t>& stream_ids, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (uint64_t id : stream_ids) {
    auto it = owned_.find(id);
    if (it != owned_.end()) it->second.draining = true;
  }
  const bool settled = space_cv_.wait_for(lock, timeout, [&] {
    for (uint64_t id : stream_ids) {
      if (unsettled_.count(id)) return false;
    }
    return true;
  });
  for (uint64_t id : stream_ids) owned_.erase(id);
  return settled;
}

bool WalWriter::Owns(uint64_t stream_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = owned_.find(stream_id);
  return it != owned_.end() && !it->second.draining;
}

int64_t WalWriter::WriteEpoch(uint64_t stream_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = owned_.find(stream_id);
  return it != owned_.end() && !it->second.draining ? it->second.epoch : -1;
}

Result<int64_t> WalWriter::Append(uint64_t stream_id, BatchInput input, AppendCallback done) {
  if (input.record_count <= 0) return InvalidArgumentError("a batch needs at least one record");
  if (!input.change_types.empty() &&
      input.change_types.size() != static_cast<size_t>(input.record_count)) {
    return InvalidArgumentError("a batch needs one change type per record");
  }
  const size_t size = EncodedBatchSize(input);
  std::unique_lock<std::mutex> lock(mutex_);
  auto not_owner = [&] {
    return FailedPreconditionError("stream " + std::to_string(stream_id) +
                                   " is not open for writing on node " +
                                   std::to_string(node_.node_id));
  };
  auto draining = [&] {
    auto it = owned_.find(stream_id);
    return it == owned_.end() || it->second.draining;
  };
  if (draining()) return not_owner();
  bool has_space = space_cv_.wait_for(lock, options_.append_wait_timeout, [&] {
    return stopping_ || pending_bytes_ == 0 || pending_bytes_ + size <= options_.max_pending_bytes;
  });
  if (stopping_) return UnavailableError("storage is stopping");
  if (!has_space) {
    return ResourceExhaustedError("too much data waiting for the object store (" +
                                  std::to_string(pending_bytes_) + " bytes)");
  }
  if (draining()) return not_owner();
  auto it = owned_.find(stream_id);
  if (input.expect_stream_epoch >= 0 && input.expect_stream_epoch != it->second.epoch) {
    return AbortedError("stream " + std::to_string(stream_id) + " changed owners: node " +
                        std::to_string(node_.node_id) + " writes it at epoch " +
                        std::to_string(it->second.epoch) + ", the write was checked at epoch " +
                        std::to_string(input.expect_stream_epoch));
  }
  ++unsettled_[stream_id];
  int64_t base = it->second.next_offset;
  it->second.next_offset += input.record_count;
  pending_bytes_ += size;
  if (open_.empty()) open_since_ = SteadyNow();
  open_.push_back(Pending{stream_id, it->second.generation, it->second.epoch, base,
                          std::move(input), std::move(done)});
  const bool reached_seal_bytes = options_.wal_seal_bytes > 0 &&
                                  open_bytes_ < options_.wal_seal_bytes &&
                                  open_bytes_ + size >= options_.wal_seal_bytes;
  open_bytes_ += size;
  if (open_.size() == 1 || reached_seal_bytes || open_bytes_ >= options_.wal_max_bytes) {
    seal_cv_.notify_one();
  }
  return base;
}

void WalWriter::SealLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (open_.empty()) {
      if (stopping_) break;
      seal_cv_.wait(lock);
      continue;
    }
    if (!stopping_) {
      auto deadline = open_since_ + options_.wal_flush_interval;
      // Eager only while the open object is small: at high rates it fills past that during an
      // upload, and the interval's larger objects (several uploads at once) keep throughput.
      const bool eager = (uploads_in_flight_ < options_.wal_eager_uploads &&
                          open_bytes_ < options_.wal_eager_max_bytes) ||
                         (options_.wal_seal_bytes > 0 && open_bytes_ >= options_.wal_seal_bytes &&
                          uploads_in_flight_ < options_.wal_max_inflight_uploads);
      if (!eager && open_bytes_ < options_.wal_max_bytes && SteadyNow() < deadline) {
        seal_cv_.wait_until(lock, deadline);
        continue;
      }
      if (uploads_in_flight_ >= options_.wal_max_inflight_uploads) {
        seal_cv_.wait(lock);
        continue;
      }
    }
    // Seal at most wal_max_bytes (at least one batch); what is left is sealed next, so a busy
    // node uploads several objects in parallel instead of one huge one.
    std::vector<Pending> batches;
    if (open_bytes_ <= options_.wal_max_bytes) {
      batches = std::move(open_);
      open_.clear();
      open_bytes_ = 0;
    } else {
      size_t take = 0, n = 0;
      while (n < open_.size()) {
        size_t size = EncodedBatchSize(open_[n].input);
        if (n > 0 && take + size > options_.wal_max_bytes) break;
        take += size;
        ++n;
      }
      batches.assign(std::make_move_iterator(open_.begin()),
                     std::make_move_iterator(open_.begin() + static_cast<std::ptrdiff_t>(n)));
      open_.erase(open_.begin(), open_.begin() + static_cast<std::ptrdiff_t>(n));
      open_bytes_ -= take;
    }
    // Appends of streams released or rewound since they were queued never go out.
    std::vector<Pending> live, dropped;
    size_t dropped_bytes = 0;
    for (auto& p : batches) {
      auto it = owned_.find(p.stream_id);
      if (it != owned_.end() && it->second.generation == p.generation) {
        live.push_back(std::move(p));
      } else {
        dropped_bytes += EncodedBatchSize(p.input);
        Settle(p.stream_id, 1);
        dropped.push_back(std::move(p));
      }
    }
    pending_bytes_ -= dropped_bytes;
    if (!live.empty()) ++uploads_in_flight_;
    lock.unlock();
    space_cv_.notify_all();
    for (auto& p : dropped) {
      p.done(AbortedError("stream " + std::to_string(p.stream_id) +
                          " stopped taking writes on this node before the batch was written"));
    }
    std::shared_ptr<Sealed> sealed = live.empty() ? nullptr : Seal(std::move(live));
    lock.lock();
    if (sealed) {
      sealed_.push_back(sealed);
      uploads_.Submit([this, sealed] { Upload(sealed); });
    }
  }
}

std::shared_ptr<WalWriter::Sealed> WalWriter::Seal(std::vector<Pending> batches) {
  auto sealed = std::make_shared<Sealed>();
  sealed->sealed_at = SteadyNow();
  // Commit timestamps never go backwards on a node.
  int64_t ts = std::max(meta_->clock()->NowMillis(), last_timestamp_ms_);
  last_timestamp_ms_ = ts;
  std::map<uint64_t, std::vector<Pending*>> by_stream;
  for (auto& p : batches) {
    by_stream[p.stream_id].push_back(&p);
    sealed->pending_bytes += EncodedBatchSize(p.input);
  }
  ObjectBuilder builder(ObjectKind::kWal);
  builder.Reserve(sealed->pending_bytes + 4 + 48 * by_stream.size() + 32);
  for (auto& [stream_id, list] : by_stream) {
    builder.BeginRun(stream_id);
    SealedRun run;
    run.stream_id = stream_id;
    run.generation = list.front()->generation;
    run.epoch = list.front()->epoch;
    run.max_record_time_ms = std::numeric_limits<int64_t>::min();
    for (Pending* p : list) {
      run.max_record_time_ms = std::max(run.max_record_time_ms, p->input.max_record_time_ms);
      builder.AddBatch(p->input, p->base_offset, ts);
      auto batch = std::make_shared<Batch>();
      batch->base_offset = p->base_offset;
      batch->record_count = p->input.record_count;
      batch->timestamp_ms = ts;
      batch->writer_id = p->input.writer_id;
      batch->writer_epoch = p->input.writer_epoch;
      batch->batch_sequence = p->input.batch_sequence;
      batch->schema_id = p->input.schema_id;
      batch->change_types = std::move(p->input.change_types);
      batch->payload = SharedBytes(std::move(p->input.payload));
      run.batches.push_back(std::move(batch));
      run.callbacks.push_back(std::move(p->done));
    }
    builder.EndRun();
    const RunEntry& entry = builder.runs().back();
    run.start_offset = entry.start_offset;
    run.end_offset = entry.end_offset;
    run.position = entry.position;
    run.length = entry.length;
    run.max_timestamp_ms = entry.max_timestamp_ms;
    sealed->runs.push_back(std::move(run));
  }
  sealed->bytes = builder.Finish();
  sealed->size = sealed->bytes.size();
  sealed->key = WalObjectKey(node_.node_id, node_.node_epoch, next_object_seq_++);
  return sealed;
}

void WalWriter::Upload(const std::shared_ptr<Sealed>& sealed) {
  Backoff backoff(std::chrono::milliseconds(10), std::chrono::milliseconds(1000));
  const auto deadline = sealed->sealed_at + options_.upload_deadline;
  Status s;
  const int64_t start = metrics::NowNanos();
  for (int attempt = 1;; ++attempt) {
    s = wal_store_->PutUnpublished(sealed->key, sealed->bytes);
    if (s.ok() || SteadyNow() >= deadline) break;
    upload_retries_.Add();
    if (attempt == 1 || attempt % 10 == 0) {
      MINK_LOG_WARN("storage", "upload of {} failed (attempt {}), retrying: {}", sealed->key,
                    attempt, s.ToString());
    }
    std::this_thread::sleep_for(backoff.Next());
  }
  upload_seconds_.Observe(metrics::SecondsSince(start));
  if (s.ok()) uploaded_bytes_.Add(static_cast<double>(sealed->size));
  std::string().swap(sealed->bytes);
  std::unique_lock<std::mutex> lock(mutex_);
  sealed->state = s.ok() ? Sealed::State::kUploaded : Sealed::State::kFailed;
  sealed->error = s.ok() ? s : UnavailableError("object store write failed: " + s.ToString());
  // The sealer waits for a free slot only with an object open; otherwise an append wakes it.
  const bool wake_sealer = !open_.empty();
  --uploads_in_flight_;
  if (wake_sealer) seal_cv_.notify_one();
  CommitReady(lock);
}

void WalWriter::CommitReady(std::unique_lock<std::mutex>& lock) {
  // One thread commits at a time; the others leave what they finished to it, and it looks
  // again before it lets go, so nothing uploaded is left behind.
  if (committing_) return;
  committing_ = true;
  while (!sealed_.empty() && sealed_.front()->state != Sealed::State::kUploading) {
    std::vector<std::shared_ptr<Sealed>> group;
    if (sealed_.front()->state == Sealed::State::kFailed) {
      group.push_back(sealed_.front());
      sealed_.pop_front();
    } else {
      while (!sealed_.empty() && sealed_.front()->state == Sealed::State::kUploaded &&
             static_cast<int>(group.size()) < options_.max_objects_per_commit) {
        group.push_back(sealed_.front());
        sealed_.pop_front();
      }
    }
    lock.unlock();
    if (group.front()->state == Sealed::State::kFailed) {
      for (auto& run : group.front()->runs) FailRun(&run, group.front()->error, false);
    } else {
      Commit(group);
    }
    Finish(group);
    lock.lock();
  }
  committing_ = false;
}

void WalWriter::Commit(const std::vector<std::shared_ptr<Sealed>>& all) {
  // An object older than half the orphan grace may already be swept as never committed.
  std::vector<std::shared_ptr<Sealed>> group;
  const auto max_age = options_.orphan_grace / 2;
  for (const auto& sealed : all) {
    if (SteadyNow() - sealed->sealed_at > max_age) {
      for (auto& run : sealed->runs) {
        FailRun(&run, UnavailableError("WAL object " + sealed->key + " took too long to commit"),
                false);
      }
    } else {
      group.push_back(sealed);
    }
  }
  // Runs of streams rewound or released meanwhile are not committed.
  std::vector<std::vector<char>> eligible(group.size());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < group.size(); ++i) {
      for (const auto& run : group[i]->runs) {
        auto it = owned_.find(run.stream_id);
        eligible[i].push_back(it != owned_.end() && it->second.generation == run.generation);
      }
    }
  }
  // Decided per attempt by the builder from the caught-up state: accepted, or why not.
  std::vector<std::vector<Status>> verdict;
  std::vector<std::vector<char>> fenced;
  bool nothing = false;
  auto build = [&](const State& s) -> Result<Command> {
    verdict.assign(group.size(), {});
    fenced.assign(group.size(), {});
    nothing = false;
    CommitObjects cmd;
    cmd.node_id = node_.node_id;
    cmd.node_epoch = node_.node_epoch;
    bool node_fenced = s.NodeEpoch(node_.node_id) != node_.node_epoch;
    std::map<uint64_t, int64_t> ends;
    for (size_t i = 0; i < group.size(); ++i) {
      const Sealed& sealed = *group[i];
      ObjectEntry object;
      object.key = sealed.key;
      object.bucket_id = wal_bucket_id_;
      object.size = sealed.size;
      for (size_t r = 0; r < sealed.runs.size(); ++r) {
        const SealedRun& run = sealed.runs[r];
        const metadata::StreamState* st = s.FindStream(run.stream_id);
        std::string name = "stream " + std::to_string(run.stream_id);
        if (node_fenced) {
          verdict[i].push_back(AbortedError("node " + std::to_string(node_.node_id) + " epoch " +
                                             std::to_string(node_.node_epoch) + " is fenced"));
          fenced[i].push_back(true);
          continue;
        }
        if (st == nullptr || st->epoch != run.epoch || st->owner_node != node_.node_id ||
            st->owner_node_epoch != node_.node_epoch) {
          verdict[i].push_back(AbortedError(
              name + " is fenced: it was opened at a newer epoch or by another node"));
          fenced[i].push_back(true);
          continue;
        }
        fenced[i].push_back(false);
        if (!eligible[i][r]) {
          verdict[i].push_back(AbortedError(name + " was rewound before this batch committed"));
          continue;
        }
        auto [end, fresh] = ends.emplace(run.stream_id, st->end_offset);
        if (run.start_offset != end->second) {
          verdict[i].push_back(AbortedError(name + ": batch at offset " +
                                            std::to_string(run.start_offset) +
                                            " does not continue the committed end " +
                                            std::to_string(end->second)));
          continue;
        }
        end->second = run.end_offset;
        verdict[i].push_back(Status::Ok());
        object.segments.push_back(SegmentEntry{run.stream_id, run.epoch, run.start_offset,
                                               run.end_offset, run.position, run.length,
                                               run.max_timestamp_ms, run.max_record_time_ms});
      }
      if (!object.segments.empty()) cmd.objects.push_back(std::move(object));
    }
    if (cmd.objects.empty()) {
      nothing = true;
      return AbortedError("nothing to commit");
    }
    return Command(std::move(cmd));
  };
  const int64_t start = metrics::NowNanos();
  Result<int64_t> committed = group.empty() ? Result<int64_t>(0) : meta_->Append(build);
  if (!group.empty()) commit_seconds_.Observe(metrics::SecondsSince(start));
  for (size_t i = 0; i < group.size(); ++i) {
    for (size_t r = 0; r < group[i]->runs.size(); ++r) {
      SealedRun& run = group[i]->runs[r];
      if (!committed.ok() && !nothing) {
        FailRun(&run, UnavailableError("commit to the metadata log failed: " +
                                       committed.status().ToString()),
                false);
      } else if (verdict[i][r].ok()) {
        tail_->Add(run.stream_id, run.batches);
        {
          std::lock_guard<std::mutex> totals(totals_mutex_);
          AppendTotals& t = totals_[run.stream_id];
          t.records += run.end_offset - run.start_offset;
          t.bytes += static_cast<int64_t>(run.length);
        }
        for (auto& cb : run.callbacks) cb(Status::Ok());
      } else {
        FailRun(&run, verdict[i][r], fenced[i][r]);
      }
    }
  }
}

void WalWriter::FailRun(SealedRun* run, const Status& why, bool fenced) {
  for (auto& cb : run->callbacks) cb(why);
  int64_t committed_end = meta_->Read([&](const State& s) {
    const metadata::StreamState* st = s.FindStream(run->stream_id);
    return st ? st->end_offset : 0;
  });
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = owned_.find(run->stream_id);
  if (it == owned_.end() || it->second.generation != run->generation) return;
  if (fenced) {
    MINK_LOG_WARN("storage", "stream={} fenced, no longer written by this node: {}",
                  run->stream_id, why.ToString());
    owned_.erase(it);
  } else {
    // Later appends continue from what is committed; their offsets are reassigned.
    it->second.generation = ++generations_;
    it->second.next_offset = committed_end;
  }
}

void WalWriter::Finish(const std::vector<std::shared_ptr<Sealed>>& group) {
  size_t bytes = 0;
  for (const auto& s : group) bytes += s->pending_bytes;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_bytes_ -= bytes;
    for (const auto& s : group) {
      for (const auto& run : s->runs) Settle(run.stream_id, static_cast<int64_t>(run.callbacks.size()));
    }
  }
  space_cv_.notify_all();
}

void WalWriter::Settle(uint64_t stream_id, int64_t appends) {
  auto it = unsettled_.find(stream_id);
  if (it == unsettled_.end()) return;
  it->second -= appends;
  if (it->second <= 0) unsettled_.erase(it);
}

std::map<uint64_t, WalWriter::AppendTotals> WalWriter::CommittedTotals() const {
  std::lock_guard<std::mutex> lock(totals_mutex_);
  return totals_;
}

void WalWriter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && !sealer_.joinable()) return;
    stopping_ = true;
  }
  seal_cv_.notify_all();
  space_cv_.notify_all();
  // Uploads and commits are bounded by upload_deadline and the metadata append timeout; the
  // last upload to finish commits what is left.
  if (sealer_.joinable()) sealer_.join();
  uploads_.Stop();
}

}  // namespace mink::storage
