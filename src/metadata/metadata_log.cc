#include "metadata/metadata_log.h"

#include "base/backoff.h"
#include "base/log.h"
#include "base/random_id.h"
#include "base/strings.h"
#include "base/thread_priority.h"
#include "metadata/out_of_touch.h"

namespace mink::metadata {
namespace {

constexpr int kReadBatch = 1000;

}  // namespace

Result<std::unique_ptr<MetadataLog>> MetadataLog::Open(const std::string& url,
                                                       MetadataOptions options) {
  MINK_ASSIGN_OR_RETURN(auto store, OpenLogStore(url));
  const bool shared_database = url.rfind("sqlite:", 0) != 0;
  // A test's own clock drives liveness as it drives everything else.
  const bool system_clock = options.clock == SystemClock::Get();
  MINK_ASSIGN_OR_RETURN(auto log, Open(std::move(store), std::move(options)));
  if (shared_database && system_clock) {
    MINK_ASSIGN_OR_RETURN(log->liveness_store_, OpenLogStore(url, /*listen=*/false));
    log->database_clock_ = std::make_unique<DatabaseClock>();
    MINK_RETURN_IF_ERROR(log->database_clock_->Refresh(log->liveness_store_.get()));
  }
  return log;
}

const Clock* MetadataLog::liveness_clock() const {
  return database_clock_ ? database_clock_.get() : options_.clock;
}

Status MetadataLog::RefreshLivenessClock() {
  return database_clock_ ? database_clock_->Refresh(liveness_store_.get()) : Status::Ok();
}

Result<std::unique_ptr<MetadataLog>> MetadataLog::Open(std::unique_ptr<LogStore> store,
                                                       MetadataOptions options) {
  MINK_RETURN_IF_ERROR(store->Migrate());
  auto log = std::unique_ptr<MetadataLog>(new MetadataLog(std::move(store), std::move(options)));
  MINK_RETURN_IF_ERROR(log->Load());
  if (log->options_.tail) {
    log->tailer_ = std::thread([raw = log.get()] {
      NameThisThread("meta-tail");
      raw->TailLoop();
    });
  }
  return log;
}

MetadataLog::MetadataLog(std::unique_ptr<LogStore> store, MetadataOptions options)
    : store_(std::move(store)), options_(std::move(options)) {}

MetadataLog::~MetadataLog() {
  stopping_ = true;
  if (tailer_.joinable()) tailer_.join();
  snapshotter_.reset();  // a due snapshot is still written first
}

Status MetadataLog::Load() {
  MINK_ASSIGN_OR_RETURN(auto snapshot, store_->LatestSnapshot());
  if (snapshot) {
    MINK_ASSIGN_OR_RETURN(State loaded, State::Deserialize(snapshot->body));
    std::unique_lock<std::shared_mutex> lock(state_mutex_);
    state_ = std::move(loaded);
  }
  if (options_.snapshot_every > 0) {
    snapshotter_ = std::make_unique<Snapshotter>(store_.get(), options_.snapshot_every,
                                                 options_.keep_snapshots, state_,
                                                 snapshot ? snapshot->body.size() : 0);
  }
  return CatchUp();
}

int64_t MetadataLog::applied_seq() const {
  std::shared_lock<std::shared_mutex> lock(state_mutex_);
  return state_.applied_seq();
}

int64_t MetadataLog::WaitApplied(int64_t seq, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(applied_mutex_);
  applied_cv_.wait_for(lock, timeout, [&] { return applied_seq() > seq; });
  return applied_seq();
}

void MetadataLog::ApplyRecord(const CommandRecord& record) {
  Apply(record.seq, record.time_ms, record.kind, DecodeCommand(record.kind, record.body),
        record.body.size());
}

void MetadataLog::Apply(int64_t seq, int64_t time_ms, const std::string& kind,
                        Result<Command> command, uint64_t body_bytes) {
  {
    std::unique_lock<std::shared_mutex> lock(state_mutex_);
    if (seq != state_.applied_seq() + 1) return;  // applied already
    Status valid = command.ok() ? state_.Validate(*command) : command.status();
    // The snapshotter hears of each command under this lock, so in seq order.
    if (valid.ok()) {
      state_.Apply(*command, seq, time_ms);
      if (snapshotter_) snapshotter_->Applied(std::move(*command), seq, time_ms, body_bytes);
    } else {
      // Every node skips the same invalid command, so states stay equal.
      MINK_LOG_WARN("metadata", "skipping invalid command seq={} kind={}: {}", seq, kind,
                    valid.ToString());
      state_.Skip(seq);
      if (snapshotter_) snapshotter_->Skipped(seq, body_bytes);
    }
  }
  std::lock_guard<std::mutex> lock(applied_mutex_);
  applied_cv_.notify_all();
}

Status MetadataLog::CatchUp() {
  std::lock_guard<std::mutex> lock(catch_up_mutex_);
  int64_t unused = 0;
  return CatchUpLocked("", &unused);
}

Status MetadataLog::CatchUpLocked(const std::string& our_id, int64_t* our_seq) {
  while (true) {
    int64_t after = applied_seq();
    MINK_ASSIGN_OR_RETURN(auto records, store_->ReadAfter(after, kReadBatch));
    if (records.empty()) return Status::Ok();
    if (records.front().seq != after + 1) {
      // The commands we need were pruned: jump to the newest snapshot, then continue.
      MINK_ASSIGN_OR_RETURN(auto snapshot, store_->LatestSnapshot());
      if (!snapshot || snapshot->seq < after || snapshot->seq + 1 < records.front().seq) {
        return DataLossError("metadata log has a gap after seq " + std::to_string(after) +
                             " and no snapshot covers it");
      }
      MINK_ASSIGN_OR_RETURN(State loaded, State::Deserialize(snapshot->body));
      std::unique_lock<std::shared_mutex> state_lock(state_mutex_);
      state_ = std::move(loaded);
      if (snapshotter_) snapshotter_->Reset(state_, snapshot->body.size());
      continue;
    }
    for (const auto& record : records) {
      ApplyRecord(record);
      if (!our_id.empty() && record.id == our_id) *our_seq = record.seq;
    }
    if (static_cast<int>(records.size()) < kReadBatch) return Status::Ok();
  }
}

Result<int64_t> MetadataLog::Append(const Builder& build) { return AppendGuarded(build, nullptr); }

Result<int64_t> MetadataLog::AppendGuarded(const Builder& build, const Guard& guard) {
  const std::string id = RandomHex(16);
  const auto deadline = SteadyNow() + options_.append_timeout;
  Backoff backoff(std::chrono::milliseconds(2), std::chrono::milliseconds(200));
  Status last_error;
  // Seqs at which an attempt of ours was sent but its commit was not confirmed (the reply was
  // lost): each may hold our command. Resolved by reading that seq, never guessed.
  std::vector<int64_t> uncertain;
  while (true) {
    if (fenced_ && fenced_()) {
      const std::string why = OutOfTouchMessage(options_.node_label);
      if (!uncertain.empty()) {
        return OutcomeUnknownError("metadata command " + id + " may be at seq " +
                                   std::to_string(uncertain.back()) + "; " + why);
      }
      return UnavailableError(why);
    }
    CommandRecord record;
    std::optional<Command> appended;  // applied as built: decoding its body again gives the same
    int64_t landed = 0;
    bool sent = false;
    Status refused;  // the builder or validation said no: final
    auto attempt = [&]() -> Status {
      MINK_RETURN_IF_ERROR(CatchUpLocked(id, &landed));
      if (landed != 0) return Status::Ok();  // an earlier attempt of ours is in the log
      // Another thread (the tailer) may have applied it: the log itself says.
      MINK_ASSIGN_OR_RETURN(landed, FindUncertain(id, &uncertain));
      if (landed != 0) return Status::Ok();
      Result<Command> command = Read([&](const State& s) -> Result<Command> {
        Result<Command> built = build(s);
        if (!built.ok()) return built;
        Status valid = s.Validate(*built);
        if (!valid.ok()) return valid;
        // The seq is taken from the same state the command was validated against: if the log
        // moved on meanwhile, the insert conflicts and we try again.
        record.seq = s.applied_seq() + 1;
        return built;
      });
      if (!command.ok()) {
        refused = command.status();
        return refused;
      }
      if (guard) {
        Status allowed = guard(store_.get());
        if (!allowed.ok()) {
          refused = allowed;
          return refused;
        }
      }
      record.id = id;
      record.time_ms = options_.clock->NowMillis();
      record.node = options_.node_label;
      record.kind = KindOf(*command);
      record.body = EncodeBody(*command);
      appended = std::move(*command);
      sent = true;
      return store_->Insert(record);
    };
    Status s;
    {
      // Lock order: catch_up_mutex_, then the store's connection (the tailer takes the same).
      std::lock_guard<std::mutex> lock(catch_up_mutex_);
      // A guard must see the database in the insert's transaction: always under the lock.
      s = options_.use_append_lock || guard ? store_->WithAppendLock(attempt) : attempt();
    }
    if (!refused.ok()) return refused;
    if (s.ok()) {
      if (landed != 0) return landed;
      Apply(record.seq, record.time_ms, record.kind, std::move(*appended), record.body.size());
      return record.seq;
    }
    // Aborted: a conflict (another writer took the seq) or a rollback, so nothing landed. Any
    // other failure after the insert was sent (the connection dropped around COMMIT) may have
    // landed it.
    if (sent && !IsAborted(s)) uncertain.push_back(record.seq);
    last_error = s;
    if (SteadyNow() >= deadline) {
      if (!uncertain.empty()) {
        return OutcomeUnknownError("metadata command " + id + " may be at seq " +
                                   std::to_string(uncertain.back()) +
                                   " and the log could not be read to tell: " +
                                   last_error.ToString());
      }
      return UnavailableError("metadata append timed out: " + last_error.ToString());
    }
    if (!IsAborted(s)) {
      MINK_LOG_WARN("metadata", "append failed, retrying: {}", s.ToString());
    }
    std::this_thread::sleep_for(backoff.Next());
  }
}

Result<int64_t> MetadataLog::FindUncertain(const std::string& id, std::vector<int64_t>* uncertain) {
  const int64_t applied = applied_seq();  // caught up by the caller: every committed command
  for (auto it = uncertain->begin(); it != uncertain->end();) {
    const int64_t seq = *it;
    if (seq > applied) {
      // Nothing is committed at that seq yet. Kept: without the append lock a late COMMIT of
      // that attempt could still land there, and then the next attempt's insert at the same seq
      // conflicts and the attempt after it finds ours.
      ++it;
      continue;
    }
    MINK_ASSIGN_OR_RETURN(auto records, store_->ReadAfter(seq - 1, 1));
    if (records.empty() || records.front().seq != seq) {
      // Pruned behind a snapshot: the log can no longer say whose command it was.
      return UnavailableError("metadata command " + id + " may be at seq " +
                              std::to_string(seq) + ", which is pruned from the log");
    }
    if (records.front().id == id) return seq;
    it = uncertain->erase(it);  // another writer's command holds it: ours did not land there
  }
  return 0;
}

void MetadataLog::TailLoop() {
  auto last_warning = SteadyNow() - std::chrono::hours(1);
  while (!stopping_) {
    store_->WaitForCommands(applied_seq(), std::chrono::milliseconds(100));
    if (stopping_) break;
    Status s = CatchUp();
    if (!s.ok() && SteadyNow() - last_warning > std::chrono::seconds(10)) {
      last_warning = SteadyNow();
      MINK_LOG_WARN("metadata", "tailing {} failed: {}", store_->Describe(), s.ToString());
    }
  }
}

}  // namespace mink::metadata
