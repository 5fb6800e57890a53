#pragma once
// The PostgreSQL backend of the command log (`postgres://user:pass@host:port/db`, also
// postgresql://; libpq takes the URL as its conninfo, so ?sslmode=... and friends work).
//
// Appenders queue on a transaction-scoped advisory lock (WithAppendLock) instead of retrying in a
// storm; every inserted command sends NOTIFY mink_commands, delivered at commit, and
// WaitForCommands listens for it on a second connection. A connection that went bad is
// re-established on the next call (the LISTEN connection re-subscribes). Error messages and
// Describe() never contain the password.
//
// Threading: the main connection is guarded by a recursive mutex that WithAppendLock holds
// across its callback; the LISTEN connection has its own lock, so waiting never blocks appends.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "metadata/log_store.h"

struct pg_conn;

namespace mink::metadata {

class PostgresLogStore final : public LogStore, public GroupOffsetStore {
 public:
  // Connects (the main connection, and the LISTEN connection unless `listen` is false). Does not
  // migrate.
  static Result<std::unique_ptr<PostgresLogStore>> Open(const std::string& url, bool listen = true);
  ~PostgresLogStore() override;
  PostgresLogStore(const PostgresLogStore&) = delete;
  PostgresLogStore& operator=(const PostgresLogStore&) = delete;

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
  Result<int64_t> DatabaseNowMillis() override;
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
  std::string Describe() const override { return redacted_url_; }

 private:
  class Rows;  // a PGresult with typed accessors

  explicit PostgresLogStore(const std::string& url);
  // Makes *conn a live connection, replacing one that went bad; `listen` subscribes it to
  // mink_commands. Caller holds the connection's lock.
  Status Connect(pg_conn** conn, bool listen);
  // Runs one statement (or, without params, a script) on the main connection; caller holds
  // mutex_. Fails unless the statement returned PGRES_COMMAND_OK or PGRES_TUPLES_OK.
  Result<Rows> Exec(const char* sql, const std::vector<std::string>& params, const char* what);
  // Exec outside a transaction: connects first, and when the connection turns out to have been
  // dropped while idle, reconnects and runs the statement once more (our statements are
  // idempotent). Inside WithAppendLock it is a plain Exec.
  Result<Rows> Query(const char* sql, const std::vector<std::string>& params, const char* what);
  // Runs `fn` in a transaction unless WithAppendLock's is open already (then fn() joins it).
  // `lock_key` != 0 takes that advisory transaction lock first.
  Status InTransaction(const std::function<Status()>& fn, int64_t lock_key = 0);
  // Turns a libpq failure into a Status: Unavailable for connection trouble, Aborted for unique
  // violations and serialization conflicts, the password scrubbed from the message.
  Status Error(const std::string& what, const std::string& message, const char* sqlstate) const;
  std::string Scrub(std::string message) const;
  // In a transaction: Aborted unless the fence's holder holds its lease at its epoch.
  Status CheckFenceLocked(const OffsetFence& fence);
  // The poller of WaitForCommands: waits on the LISTEN socket until a notification or `deadline`.
  // True when the caller should look at the log (a notification, or notifications may have been
  // lost while reconnecting).
  bool PollNotifications(std::chrono::steady_clock::time_point deadline);

  const std::string url_;                   // holds the password: never logged or returned
  const std::string redacted_url_;          // url_ without the password
  const std::vector<std::string> secrets_;  // scrubbed from every message

  std::recursive_mutex mutex_;  // guards conn_ and in_transaction_
  pg_conn* conn_ = nullptr;
  bool in_transaction_ = false;
  std::atomic<int> own_backend_pid_{0};  // conn_'s server process: its notifications are ours

  std::mutex listen_mutex_;  // guards the fields below; listen_conn_ belongs to the poller
  std::condition_variable listen_cv_;
  pg_conn* listen_conn_ = nullptr;
  bool polling_ = false;
  uint64_t wakeups_ = 0;
};

// `url` without its password (user:pass@ -> user@, and any password= query parameter dropped).
std::string RedactPostgresUrl(const std::string& url);

}  // namespace mink::metadata
