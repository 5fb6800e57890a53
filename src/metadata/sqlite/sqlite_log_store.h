#pragma once
// The SQLite backend of the command log: the embedded default (`sqlite:./data/meta.db`).
// WAL journal with synchronous=FULL, so a committed command survives power loss. Appends from
// several processes serialise on SQLite's write lock (BEGIN IMMEDIATE); tailers in the same
// process are woken at once, other processes see new commands within the poll interval.
// Snapshot parts and prune steps let waiting transactions go first, so an append waits for at
// most one step of that background work.

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/clock.h"
#include "metadata/log_store.h"

struct sqlite3;

namespace mink::metadata {

class SqliteCheckpointer;
class SqliteStatements;

class SqliteLogStore final : public LogStore, public GroupOffsetStore {
 public:
  static Result<std::unique_ptr<SqliteLogStore>> Open(const std::string& path);
  ~SqliteLogStore() override;

  Status Migrate() override;
  Result<int> SchemaVersion() override;
  Result<std::vector<CommandRecord>> ReadAfter(int64_t after_seq, int limit) override;
  Result<int64_t> LastSeq() override;
  Status Insert(const CommandRecord& record) override;
  Status WithAppendLock(const std::function<Status()>& fn) override;
  void WaitForCommands(int64_t after_seq, std::chrono::milliseconds timeout) override;
  Result<std::optional<SnapshotRecord>> LatestSnapshot() override;
  Status WriteSnapshot(const SnapshotRecord& snapshot) override;
  Status Prune(int64_t commands_up_to_seq, int keep_snapshots) override;
  Result<int64_t> DatabaseNowMillis() override { return SystemClock::Get()->NowMillis(); }
  Status UpsertHeartbeat(const Heartbeat& heartbeat) override;
  Result<std::vector<Heartbeat>> ListHeartbeats() override;
  Result<Lease> TryAcquireLease(const std::string& name, const std::string& holder, int64_t now_ms,
                                int64_t ttl_ms) override {
    return TakeOverLease(name, holder, "", now_ms, ttl_ms);
  }
  Result<Lease> TakeOverLease(const std::string& name, const std::string& holder,
                              const std::string& superseded, int64_t now_ms,
                              int64_t ttl_ms) override;
  Result<std::optional<Lease>> ReadLease(const std::string& name) override;
  GroupOffsetStore* group_offsets() override { return this; }
  using GroupOffsetStore::CommitGroupOffsets;
  Status CommitGroupOffsets(const std::string& group, const std::vector<GroupOffset>& offsets,
                            const OffsetFence* fence) override;
  Result<std::vector<GroupOffset>> ListGroupOffsets(const std::string& group) override;
  Result<std::vector<std::string>> ListOffsetGroups() override;
  using GroupOffsetStore::DeleteGroupOffsets;
  Status DeleteGroupOffsets(const std::string& group, const OffsetFence* fence) override;
  Status DeleteTopicOffsets(const std::string& topic) override;
  std::string Describe() const override { return "sqlite:" + path_; }

 private:
  // Holds the connection; while waiting, counts as a waiter that background steps let go first.
  class Connection {
   public:
    explicit Connection(SqliteLogStore* store) : store_(store) {
      store_->waiting_.fetch_add(1);
      store_->mutex_.lock();
      store_->waiting_.fetch_sub(1);
    }
    ~Connection() { store_->mutex_.unlock(); }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

   private:
    SqliteLogStore* const store_;
  };

  SqliteLogStore(std::string path, sqlite3* db);
  Status Exec(const std::string& sql);
  // One statement without parameters or rows, prepared once (BEGIN, COMMIT, ...).
  Status Run(const char* sql);
  // Runs `fn` in a transaction unless one is open on this connection already.
  Status InTransaction(const std::function<Status()>& fn, bool immediate);
  // An immediate transaction of background work (a snapshot part, a prune step): it first lets
  // transactions that are waiting for the connection go ahead, for a bounded time.
  Status InBackgroundTransaction(const std::function<Status()>& fn);
  void WakeTailers();
  // In a transaction: Aborted unless the fence's holder holds its lease at its epoch.
  Status CheckFenceLocked(const OffsetFence& fence);
  // Runs a bounded DELETE (`arg`, if any, bound to its parameter), one transaction each time,
  // until it deletes nothing.
  Status DeleteInSteps(const char* sql, std::optional<int64_t> arg, const char* what);

  const std::string path_;
  sqlite3* db_;
  std::unique_ptr<SqliteStatements> statements_;  // before db_ is closed
  std::unique_ptr<SqliteCheckpointer> checkpointer_;  // stopped before db_ is closed
  std::recursive_mutex mutex_;  // one connection; WithAppendLock holds it across its callback
  bool in_transaction_ = false;
  std::atomic<int> waiting_{0};  // callers waiting for mutex_ (see Connection)
  bool wake_after_commit_ = false;  // a command was inserted in the open transaction
};

}  // namespace mink::metadata
