#pragma once
// LogStore: the durable tables behind the metadata command log, one implementation per database
// (sqlite/, postgres/). It knows rows, not meaning: the state machine (state.h) gives commands
// their meaning and MetadataLog (metadata_log.h) drives the append protocol.
//
// Tables (see migrations in each backend): commands(seq, id, time_ms, node, kind, body),
// snapshots(seq, body), heartbeats(node_id, node_epoch, address, updated_ms),
// leases(name, holder, epoch, expires_ms), schema_version(version), and (migration 2)
// group_offsets(group_id, topic, partition, committed_offset, leader_epoch, metadata,
// commit_time_ms): the Kafka consumer groups' committed offsets, high-rate data kept out of the
// command log (docs/architecture.md, Metadata log), and (migration 3)
// snapshot_parts(seq, part, body) with snapshots.parts: a snapshot is stored in parts, see
// WriteSnapshot, and (migration 4) heartbeats.kafka_address.
//
// Thread-safety: every method may be called from any thread; a backend serialises use of its
// connection internally.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "metadata/group_offset_store.h"

namespace mink::metadata {

struct CommandRecord {
  int64_t seq = 0;
  std::string id;  // unique per append attempt: lets a retrier recognise its own command
  int64_t time_ms = 0;
  std::string node;
  std::string kind;
  std::string body;  // JSON
};

struct SnapshotRecord {
  int64_t seq = 0;  // the state after applying every command up to and including seq
  std::string body;
};

struct Heartbeat {
  int32_t node_id = 0;
  int64_t node_epoch = 0;
  std::string address;  // the node's advertised Flight address
  int64_t updated_ms = 0;
  std::string kafka_address;  // its advertised Kafka address ("" without a Kafka listener)
};

struct Lease {
  std::string name;
  std::string holder;
  int64_t epoch = 0;  // grows each time the lease changes hands
  int64_t expires_ms = 0;
};

// Bytes of one snapshot part at most.
inline constexpr size_t kSnapshotPartBytes = 256 << 10;

// Cuts a snapshot's text into parts of at most kSnapshotPartBytes, never inside a UTF-8
// sequence (PostgreSQL stores them as text), the same way every time.
std::vector<std::string_view> SplitSnapshot(std::string_view body);

class LogStore {
 public:
  virtual ~LogStore() = default;

  // Brings the schema to the newest numbered migration. Safe to run concurrently from nodes.
  virtual Status Migrate() = 0;
  virtual Result<int> SchemaVersion() = 0;

  // Commands with seq > after_seq, ascending, at most `limit`.
  virtual Result<std::vector<CommandRecord>> ReadAfter(int64_t after_seq, int limit) = 0;
  // The highest seq in the log (0 when it holds none): how far a node that applied less lags.
  virtual Result<int64_t> LastSeq() = 0;
  // Inserts one command. Aborted when a command with that seq exists (another writer won).
  virtual Status Insert(const CommandRecord& record) = 0;
  // Runs `fn` while holding the database's append lock when it has one (PostgreSQL: an advisory
  // transaction lock; SQLite: BEGIN IMMEDIATE), so contending appenders queue instead of
  // retrying. ReadAfter and Insert called by `fn` on this thread run inside that transaction.
  // When `fn` fails the transaction is rolled back.
  virtual Status WithAppendLock(const std::function<Status()>& fn) = 0;
  // Blocks until a command after `after_seq` may exist or `timeout` passes (PostgreSQL:
  // LISTEN/NOTIFY; SQLite: in-process wake-up plus polling). Spurious returns are allowed.
  virtual void WaitForCommands(int64_t after_seq, std::chrono::milliseconds timeout) = 0;

  virtual Result<std::optional<SnapshotRecord>> LatestSnapshot() = 0;
  // Writes the parts of SplitSnapshot(body) each in its own transaction, then the snapshots row
  // that names how many there are: appends interleave with a large snapshot instead of waiting
  // for all of it, and the snapshot is visible only once complete. Two nodes writing the same
  // seq write the same parts (the state's text is canonical).
  virtual Status WriteSnapshot(const SnapshotRecord& snapshot) = 0;
  // Deletes commands with seq <= commands_up_to_seq, snapshots older than the newest `keep`
  // ones, and the snapshot parts below the oldest kept snapshot (those of a write that never
  // finished too). May take several transactions; a kept snapshot stays readable throughout.
  virtual Status Prune(int64_t commands_up_to_seq, int keep_snapshots) = 0;

  // The database server's clock, in milliseconds since the epoch (SQLite: this machine's).
  virtual Result<int64_t> DatabaseNowMillis() = 0;

  virtual Status UpsertHeartbeat(const Heartbeat& heartbeat) = 0;
  virtual Result<std::vector<Heartbeat>> ListHeartbeats() = 0;
  // Takes or renews lease `name` for `holder` until now_ms + ttl_ms, if it is free, expired or
  // already held by `holder` (a conditional update). Returns the lease as it is afterwards:
  // the caller holds it iff lease.holder == holder.
  virtual Result<Lease> TryAcquireLease(const std::string& name, const std::string& holder,
                                        int64_t now_ms, int64_t ttl_ms) = 0;
  // As TryAcquireLease, and also takes the lease from `superseded` before it expires: a holder
  // that `holder` replaces (an earlier start of the same node), so a restarted node need not
  // wait out the lease of the process it replaces.
  virtual Result<Lease> TakeOverLease(const std::string& name, const std::string& holder,
                                      const std::string& superseded, int64_t now_ms,
                                      int64_t ttl_ms) = 0;
  // Lease `name` as it is, or nothing if it was never taken. Inside WithAppendLock it reads in
  // that transaction, so an append can check that its writer still holds a lease.
  virtual Result<std::optional<Lease>> ReadLease(const std::string& name) = 0;

  // The consumer groups' committed offsets, kept beside the log (group_offset_store.h); null
  // when the store keeps none.
  virtual GroupOffsetStore* group_offsets() { return nullptr; }

  virtual std::string Describe() const = 0;

};

// A LogStore that passes every call to `inner`: wrappers that observe or delay some calls (a
// benchmark's timers, a test's faults) override just those.
class ForwardingLogStore : public LogStore {
 public:
  explicit ForwardingLogStore(std::unique_ptr<LogStore> inner) : inner_(std::move(inner)) {}

  Status Migrate() override { return inner_->Migrate(); }
  Result<int> SchemaVersion() override { return inner_->SchemaVersion(); }
  Result<std::vector<CommandRecord>> ReadAfter(int64_t after_seq, int limit) override {
    return inner_->ReadAfter(after_seq, limit);
  }
  Result<int64_t> LastSeq() override { return inner_->LastSeq(); }
  Status Insert(const CommandRecord& record) override { return inner_->Insert(record); }
  Status WithAppendLock(const std::function<Status()>& fn) override {
    return inner_->WithAppendLock(fn);
  }
  void WaitForCommands(int64_t after_seq, std::chrono::milliseconds timeout) override {
    inner_->WaitForCommands(after_seq, timeout);
  }
  Result<std::optional<SnapshotRecord>> LatestSnapshot() override {
    return inner_->LatestSnapshot();
  }
  Status WriteSnapshot(const SnapshotRecord& snapshot) override {
    return inner_->WriteSnapshot(snapshot);
  }
  Status Prune(int64_t commands_up_to_seq, int keep_snapshots) override {
    return inner_->Prune(commands_up_to_seq, keep_snapshots);
  }
  Result<int64_t> DatabaseNowMillis() override { return inner_->DatabaseNowMillis(); }
  Status UpsertHeartbeat(const Heartbeat& heartbeat) override {
    return inner_->UpsertHeartbeat(heartbeat);
  }
  Result<std::vector<Heartbeat>> ListHeartbeats() override { return inner_->ListHeartbeats(); }
  Result<Lease> TryAcquireLease(const std::string& name, const std::string& holder,
                                int64_t now_ms, int64_t ttl_ms) override {
    return inner_->TryAcquireLease(name, holder, now_ms, ttl_ms);
  }
  Result<Lease> TakeOverLease(const std::string& name, const std::string& holder,
                              const std::string& superseded, int64_t now_ms,
                              int64_t ttl_ms) override {
    return inner_->TakeOverLease(name, holder, superseded, now_ms, ttl_ms);
  }
  Result<std::optional<Lease>> ReadLease(const std::string& name) override {
    return inner_->ReadLease(name);
  }
  GroupOffsetStore* group_offsets() override { return inner_->group_offsets(); }
  std::string Describe() const override { return inner_->Describe(); }

 private:
  std::unique_ptr<LogStore> inner_;
};

// Opens the backend for `url`: `sqlite:<path>` (e.g. sqlite:./data/meta.db) or
// `postgres://user:pass@host:port/db` (also postgresql://). Does not migrate. Without `listen`
// a PostgreSQL store opens no LISTEN connection (one that only heartbeats and takes leases).
Result<std::unique_ptr<LogStore>> OpenLogStore(const std::string& url, bool listen = true);

}  // namespace mink::metadata
