#pragma once
// The SQLite backend of the command log: the embedded default (`sqlite:./data/meta.db`).
// WAL journal with synchronous=FULL, so a committed command survives power loss. Appends from
// several processes serialise on SQLite's write lock (BEGIN IMMEDIATE); tailers in the same
// process are woken at once, other processes see new commands within the poll interval.

#include <memory>
#include <mutex>
#include <string>

#include "metadata/log_store.h"

struct sqlite3;

namespace mink::metadata {

class SqliteLogStore final : public LogStore {
 public:
  static Result<std::unique_ptr<SqliteLogStore>> Open(const std::string& path);
  ~SqliteLogStore() override;

  Status Migrate() override;
  Result<int> SchemaVersion() override;
  Result<std::vector<CommandRecord>> ReadAfter(int64_t after_seq, int limit) override;
  Status Insert(const CommandRecord& record) override;
  Status WithAppendLock(const std::function<Status()>& fn) override;
  void WaitForCommands(int64_t after_seq, std::chrono::milliseconds timeout) override;
  Result<std::optional<SnapshotRecord>> LatestSnapshot() override;
  Status WriteSnapshot(const SnapshotRecord& snapshot) override;
  Status Prune(int64_t commands_up_to_seq, int keep_snapshots) override;
  Status UpsertHeartbeat(const Heartbeat& heartbeat) override;
  Result<std::vector<Heartbeat>> ListHeartbeats() override;
  Result<Lease> TryAcquireLease(const std::string& name, const std::string& holder, int64_t now_ms,
                                int64_t ttl_ms) override;
  Status CommitGroupOffsets(const std::string& group,
                            const std::vector<GroupOffset>& offsets) override;
  Result<std::vector<GroupOffset>> ListGroupOffsets(const std::string& group) override;
  Result<std::vector<std::string>> ListOffsetGroups() override;
  Status DeleteGroupOffsets(const std::string& group) override;
  Status DeleteTopicOffsets(const std::string& topic) override;
  std::string Describe() const override { return "sqlite:" + path_; }

 private:
  SqliteLogStore(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}
  Status Exec(const std::string& sql);
  // Runs `fn` in a transaction unless one is open on this connection already.
  Status InTransaction(const std::function<Status()>& fn, bool immediate);
  void WakeTailers();

  const std::string path_;
  sqlite3* db_;
  std::recursive_mutex mutex_;  // one connection; WithAppendLock holds it across its callback
  bool in_transaction_ = false;
  bool wake_after_commit_ = false;  // a command was inserted in the open transaction
};

}  // namespace mink::metadata
