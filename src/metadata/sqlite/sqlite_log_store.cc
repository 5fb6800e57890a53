#include "metadata/sqlite/sqlite_log_store.h"

#include <sqlite3.h>

#include <condition_variable>
#include <map>
#include <thread>
#include <unordered_map>

#include "base/backoff.h"
#include "metadata/sqlite/sqlite_checkpointer.h"

namespace mink::metadata {

// The connection's prepared statements, by SQL text: an append runs the same few statements
// every time, and preparing them was a visible part of its CPU. Used under the connection lock.
class SqliteStatements {
 public:
  struct Entry {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };

  explicit SqliteStatements(sqlite3* db) : db_(db) {}
  ~SqliteStatements() {
    for (auto& [sql, entry] : cached_) sqlite3_finalize(entry.stmt);
  }
  sqlite3* db() const { return db_; }

  // The cached statement for `sql`, marked in use; nullptr when it is in use already (or cannot
  // be prepared: *rc says why), and the caller prepares one of its own.
  Entry* Borrow(const char* sql, int* rc) {
    Entry& entry = cached_[sql];
    if (entry.in_use) return nullptr;
    if (entry.stmt == nullptr) {
      *rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &entry.stmt, nullptr);
      if (*rc != SQLITE_OK) return nullptr;
    }
    entry.in_use = true;
    return &entry;
  }
  static void Return(Entry* entry) {
    sqlite3_reset(entry->stmt);
    sqlite3_clear_bindings(entry->stmt);
    entry->in_use = false;
  }

 private:
  sqlite3* const db_;
  std::unordered_map<std::string, Entry> cached_;  // node-based: Entry pointers stay valid
};

namespace {

// Numbered migrations; schema_version holds the number of the last one applied.
const char* const kMigrations[] = {
    // 1: the command log, snapshots, heartbeats and leases.
    "CREATE TABLE commands (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, time_ms INTEGER NOT NULL,"
    " node TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL);"
    "CREATE TABLE snapshots (seq INTEGER PRIMARY KEY, body TEXT NOT NULL);"
    "CREATE TABLE heartbeats (node_id INTEGER PRIMARY KEY, node_epoch INTEGER NOT NULL,"
    " address TEXT NOT NULL, updated_ms INTEGER NOT NULL);"
    "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, epoch INTEGER NOT NULL,"
    " expires_ms INTEGER NOT NULL);",
    // 2: committed offsets of Kafka consumer groups.
    "CREATE TABLE group_offsets (group_id TEXT NOT NULL, topic TEXT NOT NULL,"
    " partition INTEGER NOT NULL, committed_offset INTEGER NOT NULL,"
    " leader_epoch INTEGER NOT NULL, metadata BLOB NOT NULL, commit_time_ms INTEGER NOT NULL,"
    " PRIMARY KEY (group_id, topic, partition)) WITHOUT ROWID;",
    // 3: snapshots in parts (LogStore::WriteSnapshot); parts = 0 keeps the body inline.
    "CREATE TABLE snapshot_parts (seq INTEGER NOT NULL, part INTEGER NOT NULL,"
    " body TEXT NOT NULL, PRIMARY KEY (seq, part)) WITHOUT ROWID;"
    "ALTER TABLE snapshots ADD COLUMN parts INTEGER NOT NULL DEFAULT 0;",
    // 4: each node's advertised Kafka address beside its Flight address.
    "ALTER TABLE heartbeats ADD COLUMN kafka_address TEXT NOT NULL DEFAULT '';",
};

constexpr std::chrono::milliseconds kPollInterval{100};

// In-process wake-up of tailers: per database file, one entry per store that tails it.
struct Waker {
  struct Tail {
    std::condition_variable cv;
    uint64_t woken = 0;  // inserts of other stores seen
  };
  std::mutex mutex;
  std::map<const void*, Tail> tails;  // by store
};

Waker& WakerFor(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Waker>> wakers;
  std::lock_guard<std::mutex> lock(mutex);
  auto& w = wakers[path];
  if (!w) w = std::make_unique<Waker>();
  return *w;
}

Status SqliteError(sqlite3* db, const std::string& what) {
  int code = sqlite3_extended_errcode(db);
  std::string msg = "sqlite " + what + ": " + sqlite3_errmsg(db);
  if ((code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED) {
    return UnavailableError(msg);
  }
  if (code == SQLITE_CONSTRAINT_PRIMARYKEY || code == SQLITE_CONSTRAINT_UNIQUE) {
    return AbortedError(msg);
  }
  if ((code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB) return DataLossError(msg);
  return UnavailableError(msg);
}

// A prepared statement borrowed from the connection's cache (prepared once, reset on scope
// exit), or prepared for this use only when the cached one is already borrowed.
class Stmt {
 public:
  Stmt(SqliteStatements& cache, const char* sql) : db_(cache.db()) {
    entry_ = cache.Borrow(sql, &rc_);
    if (entry_ != nullptr) {
      stmt_ = entry_->stmt;
    } else if (rc_ == SQLITE_OK) {
      rc_ = sqlite3_prepare_v2(db_, sql, -1, &stmt_, nullptr);  // the cached one is in use
    }
  }
  ~Stmt() {
    if (entry_ != nullptr) {
      SqliteStatements::Return(entry_);
    } else {
      sqlite3_finalize(stmt_);
    }
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Status prepared() const {
    return rc_ == SQLITE_OK ? Status::Ok() : SqliteError(db_, "prepare");
  }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void Bind(int i, std::string_view v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void BindBlob(int i, const std::string& v) {
    sqlite3_bind_blob64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT);
  }
  // Makes the statement ready to run again with new bindings.
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  int64_t Int(int col) { return sqlite3_column_int64(stmt_, col); }
  std::string Text(int col) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : "";
  }
  std::string Blob(int col) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : "";
  }

 private:
  sqlite3* db_;
  SqliteStatements::Entry* entry_ = nullptr;  // null: stmt_ is this Stmt's own
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

}  // namespace

Result<std::unique_ptr<SqliteLogStore>> SqliteLogStore::Open(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return UnavailableError("cannot open metadata database sqlite:" + path + ": " + msg);
  }
  sqlite3_busy_timeout(db, 30'000);
  auto store = std::unique_ptr<SqliteLogStore>(new SqliteLogStore(path, db));
  MINK_RETURN_IF_ERROR(store->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"));
  // Checkpoints run off the commit path (sqlite_checkpointer.h): a checkpoint copies each
  // changed page once however often the WAL rewrote it, so they are rare (per 16 MiB of WAL).
  store->checkpointer_ = std::make_unique<SqliteCheckpointer>(db, path, /*background_pages=*/4000,
                                                              /*inline_pages=*/16000);
  return store;
}

SqliteLogStore::SqliteLogStore(std::string path, sqlite3* db)
    : path_(std::move(path)), db_(db), statements_(std::make_unique<SqliteStatements>(db)) {}

SqliteLogStore::~SqliteLogStore() {
  checkpointer_.reset();
  {
    Waker& w = WakerFor(path_);
    std::lock_guard<std::mutex> lock(w.mutex);
    w.tails.erase(this);
  }
  statements_.reset();  // sqlite3_close refuses a connection with statements left
  sqlite3_close(db_);
}

Status SqliteLogStore::Exec(const std::string& sql) {
  Connection lock(this);
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    Status s = SqliteError(db_, "exec");
    sqlite3_free(err);
    return s;
  }
  return Status::Ok();
}

Status SqliteLogStore::Run(const char* sql) {
  Connection lock(this);
  Stmt stmt(*statements_, sql);
  MINK_RETURN_IF_ERROR(stmt.prepared());
  if (stmt.Step() != SQLITE_DONE) return SqliteError(db_, sql);
  return Status::Ok();
}

Status SqliteLogStore::InTransaction(const std::function<Status()>& fn, bool immediate) {
  Connection lock(this);
  if (in_transaction_) return fn();
  // BEGIN IMMEDIATE can still report busy after the busy timeout under heavy contention.
  Backoff backoff(std::chrono::milliseconds(5), std::chrono::milliseconds(200));
  for (int attempt = 0;; ++attempt) {
    Status begun = Run(immediate ? "BEGIN IMMEDIATE" : "BEGIN");
    if (begun.ok()) break;
    if (!IsUnavailable(begun) || attempt >= 20) return begun;
    std::this_thread::sleep_for(backoff.Next());
  }
  in_transaction_ = true;
  Status s = fn();
  in_transaction_ = false;
  bool wake = wake_after_commit_;
  wake_after_commit_ = false;
  if (!s.ok()) {
    (void)Run("ROLLBACK");
    return s;
  }
  Status committed = Run("COMMIT");
  if (!committed.ok()) {
    (void)Run("ROLLBACK");
  } else if (wake) {
    WakeTailers();
  }
  return committed;
}

Status SqliteLogStore::InBackgroundTransaction(const std::function<Status()>& fn) {
  // A mutex is not fair: a loop of steps would take it again before a woken waiter runs.
  constexpr auto kPause = std::chrono::microseconds(200);
  constexpr int kMaxPauses = 100;  // 20 ms: a steady stream of appends cannot starve the steps
  for (int i = 0; i < kMaxPauses && waiting_.load() > 0; ++i) std::this_thread::sleep_for(kPause);
  return InTransaction(fn, /*immediate=*/true);
}

void SqliteLogStore::WakeTailers() {
  Waker& w = WakerFor(path_);
  std::lock_guard<std::mutex> lock(w.mutex);
  // A store's own inserts do not wake its tailer: its log applied them when appending, and the
  // catch-up after each of them woke a thread and took the append lock from the next append.
  for (auto& [store, tail] : w.tails) {
    if (store == this) continue;
    ++tail.woken;
    tail.cv.notify_all();
  }
}

Status SqliteLogStore::Migrate() {
  MINK_RETURN_IF_ERROR(Exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"));
  return InTransaction(
      [&]() -> Status {
        MINK_ASSIGN_OR_RETURN(int version, SchemaVersion());
        int target = static_cast<int>(std::size(kMigrations));
        for (int v = version; v < target; ++v) MINK_RETURN_IF_ERROR(Exec(kMigrations[v]));
        if (version < target) {
          MINK_RETURN_IF_ERROR(Exec("DELETE FROM schema_version"));
          MINK_RETURN_IF_ERROR(
              Exec("INSERT INTO schema_version VALUES (" + std::to_string(target) + ")"));
        }
        return Status::Ok();
      },
      /*immediate=*/true);
}

Result<int> SqliteLogStore::SchemaVersion() {
  Connection lock(this);
  Stmt stmt(*statements_, "SELECT max(version) FROM schema_version");
  MINK_RETURN_IF_ERROR(stmt.prepared());
  if (stmt.Step() != SQLITE_ROW) return SqliteError(db_, "read schema version");
  return static_cast<int>(stmt.Int(0));
}

Result<std::vector<CommandRecord>> SqliteLogStore::ReadAfter(int64_t after_seq, int limit) {
  Connection lock(this);
  Stmt stmt(*statements_,
            "SELECT seq, id, time_ms, node, kind, body FROM commands WHERE seq > ?"
            " ORDER BY seq LIMIT ?");
  MINK_RETURN_IF_ERROR(stmt.prepared());
  stmt.Bind(1, after_seq);
  stmt.Bind(2, static_cast<int64_t>(limit));
  std::vector<CommandRecord> out;
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) {
    out.push_back(CommandRecord{stmt.Int(0), stmt.Text(1), stmt.Int(2), stmt.Text(3),
                                stmt.Text(4), stmt.Text(5)});
  }
  if (rc != SQLITE_DONE) return SqliteError(db_, "read commands");
  return out;
}

Result<int64_t> SqliteLogStore::LastSeq() {
  Connection lock(this);
  Stmt stmt(*statements_, "SELECT COALESCE(MAX(seq), 0) FROM commands");
  MINK_RETURN_IF_ERROR(stmt.prepared());
  if (stmt.Step() != SQLITE_ROW) return SqliteError(db_, "read the last seq");
  return stmt.Int(0);
}

Status SqliteLogStore::Insert(const CommandRecord& r) {
  // Tailers are woken once the (possibly enclosing) transaction has committed.
  return InTransaction(
      [&]() -> Status {
        Stmt stmt(*statements_,
                  "INSERT INTO commands (seq, id, time_ms, node, kind, body)"
                  " VALUES (?, ?, ?, ?, ?, ?)");
        MINK_RETURN_IF_ERROR(stmt.prepared());
        stmt.Bind(1, r.seq);
        stmt.Bind(2, r.id);
        stmt.Bind(3, r.time_ms);
        stmt.Bind(4, r.node);
        stmt.Bind(5, r.kind);
        stmt.Bind(6, r.body);
        if (stmt.Step() != SQLITE_DONE) return SqliteError(db_, "insert command");
        wake_after_commit_ = true;
        return Status::Ok();
      },
      /*immediate=*/true);
}

Status SqliteLogStore::WithAppendLock(const std::function<Status()>& fn) {
  Status s = InTransaction(fn, /*immediate=*/true);
  return s;
}

void SqliteLogStore::WaitForCommands(int64_t /*after_seq*/, std::chrono::milliseconds timeout) {
  Waker& w = WakerFor(path_);
  std::unique_lock<std::mutex> lock(w.mutex);
  Waker::Tail& tail = w.tails[this];
  const uint64_t seen = tail.woken;
  tail.cv.wait_for(lock, std::min(timeout, kPollInterval), [&] { return tail.woken != seen; });
}

Result<std::optional<SnapshotRecord>> SqliteLogStore::LatestSnapshot() {
  std::optional<SnapshotRecord> out;
  // One read transaction: a concurrent prune cannot take parts away between the two reads.
  Status s = InTransaction(
      [&]() -> Status {
        Stmt stmt(*statements_, "SELECT seq, body, parts FROM snapshots ORDER BY seq DESC LIMIT 1");
        MINK_RETURN_IF_ERROR(stmt.prepared());
        int rc = stmt.Step();
        if (rc == SQLITE_DONE) return Status::Ok();
        if (rc != SQLITE_ROW) return SqliteError(db_, "read snapshot");
        SnapshotRecord snapshot{stmt.Int(0), stmt.Text(1)};
        const int64_t parts = stmt.Int(2);
        Stmt part(*statements_,
                  "SELECT part, body FROM snapshot_parts WHERE seq = ? ORDER BY part");
        MINK_RETURN_IF_ERROR(part.prepared());
        part.Bind(1, snapshot.seq);
        int64_t read = 0;
        while (read < parts && (rc = part.Step()) == SQLITE_ROW && part.Int(0) == read) {
          snapshot.body += part.Text(1);
          ++read;
        }
        if (read != parts && rc != SQLITE_ROW && rc != SQLITE_DONE) {
          return SqliteError(db_, "read snapshot part");
        }
        if (read != parts) {
          return DataLossError("metadata snapshot at seq " + std::to_string(snapshot.seq) +
                               " has " + std::to_string(read) + " of its " +
                               std::to_string(parts) + " parts in order");
        }
        out = std::move(snapshot);
        return Status::Ok();
      },
      /*immediate=*/false);
  if (!s.ok()) return s;
  return out;
}

Status SqliteLogStore::WriteSnapshot(const SnapshotRecord& snapshot) {
  const std::vector<std::string_view> parts = SplitSnapshot(snapshot.body);
  for (size_t i = 0; i < parts.size(); ++i) {
    MINK_RETURN_IF_ERROR(InBackgroundTransaction([&]() -> Status {
      Stmt stmt(*statements_,
                "INSERT OR REPLACE INTO snapshot_parts (seq, part, body) VALUES (?, ?, ?)");
      MINK_RETURN_IF_ERROR(stmt.prepared());
      stmt.Bind(1, snapshot.seq);
      stmt.Bind(2, static_cast<int64_t>(i));
      stmt.Bind(3, parts[i]);
      if (stmt.Step() != SQLITE_DONE) return SqliteError(db_, "write snapshot part");
      return Status::Ok();
    }));
  }
  return InTransaction(
      [&]() -> Status {
        Stmt stmt(*statements_,
                  "INSERT OR IGNORE INTO snapshots (seq, body, parts) VALUES (?, '', ?)");
        MINK_RETURN_IF_ERROR(stmt.prepared());
        stmt.Bind(1, snapshot.seq);
        stmt.Bind(2, static_cast<int64_t>(parts.size()));
        if (stmt.Step() != SQLITE_DONE) return SqliteError(db_, "write snapshot");
        return Status::Ok();
      },
      /*immediate=*/true);
}

Status SqliteLogStore::Prune(int64_t commands_up_to_seq, int keep_snapshots) {
  // In short transactions, each deleting a bounded number of rows: a prune after a large
  // snapshot frees megabytes, and appends would otherwise wait for all of it at once. Old
  // snapshot rows go first, so a reader never finds a snapshot whose parts or whose following
  // commands are gone.
  MINK_RETURN_IF_ERROR(DeleteInSteps(
      "DELETE FROM snapshots WHERE seq NOT IN"
      " (SELECT seq FROM snapshots ORDER BY seq DESC LIMIT ?)",
      keep_snapshots, "prune snapshots"));
  // Parts below the oldest kept snapshot: pruned ones, and those of an unfinished write.
  MINK_RETURN_IF_ERROR(DeleteInSteps(
      "DELETE FROM snapshot_parts WHERE (seq, part) IN (SELECT seq, part FROM snapshot_parts"
      " WHERE seq < (SELECT min(seq) FROM snapshots) LIMIT 4)",
      std::nullopt, "prune snapshot parts"));
  return DeleteInSteps(
      "DELETE FROM commands WHERE seq IN (SELECT seq FROM commands WHERE seq <= ?"
      " ORDER BY seq LIMIT 256)",
      commands_up_to_seq, "prune commands");
}

Status SqliteLogStore::DeleteInSteps(const char* sql, std::optional<int64_t> arg,
                                     const char* what) {
  while (true) {
    int changed = 0;
    MINK_RETURN_IF_ERROR(InBackgroundTransaction([&]() -> Status {
      Stmt stmt(*statements_, sql);
      MINK_RETURN_IF_ERROR(stmt.prepared());
      if (arg) stmt.Bind(1, *arg);
      if (stmt.Step() != SQLITE_DONE) return SqliteError(db_, what);
      changed = sqlite3_changes(db_);
      return Status::Ok();
    }));
    if (changed == 0) return Status::Ok();
  }
}

Status SqliteLogStore::UpsertHeartbeat(const Heartbeat& h) {
  return InTransaction(
      [&]() -> Status {
        Stmt stmt(*statements_,
                  "INSERT INTO heartbeats (node_id, node_epoch, address, updated_ms,"
                  " kafka_address) VALUES (?, ?, ?, ?, ?) ON CONFLICT(node_id) DO UPDATE SET"
                  " node_epoch = excluded.node_epoch, address = excluded.address,"
                  " updated_ms = excluded.updated_ms, kafka_address = excluded.kafka_address");
        MINK_RETURN_IF_ERROR(stmt.prepared());
        stmt.Bind(1, static_cast<int64_t>(h.node_id));
        stmt.Bind(2, h.node_epoch);
        stmt.Bind(3, h.address);
        stmt.Bind(4, h.updated_ms);
        stmt.Bind(5, h.kafka_address);
        if (stmt.Step() != SQLITE_DONE) return SqliteError(db_, "upsert heartbeat");
        return Status::Ok();
      },
      /*immediate=*/true);
}

Result<std::vector<Heartbeat>> SqliteLogStore::ListHeartbeats() {
  Connection lock(this);
  Stmt stmt(*statements_,
            "SELECT node_id, node_epoch, address, updated_ms, kafka_address FROM heartbeats"
            " ORDER BY node_id");
  MINK_RETURN_IF_ERROR(stmt.prepared());
  std::vector<Heartbeat> out;
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) {
    out.push_back(Heartbeat{static_cast<int32_t>(stmt.Int(0)), stmt.Int(1), stmt.Text(2),
                            stmt.Int(3), stmt.Text(4)});
  }
  if (rc != SQLITE_DONE) return SqliteError(db_, "list heartbeats");
  return out;
}

Result<Lease> SqliteLogStore::TakeOverLease(const std::string& name, const std::string& holder,
                                            const std::string& superseded, int64_t now_ms,
                                            int64_t ttl_ms) {
  Lease lease;
  Status s = InTransaction(
      [&]() -> Status {
        Stmt ins(*statements_,
                 "INSERT OR IGNORE INTO leases (name, holder, epoch, expires_ms)"
                 " VALUES (?, ?, 1, ?)");
        MINK_RETURN_IF_ERROR(ins.prepared());
        ins.Bind(1, name);
        ins.Bind(2, holder);
        ins.Bind(3, now_ms + ttl_ms);
        if (ins.Step() != SQLITE_DONE) return SqliteError(db_, "insert lease");
        // Conditional update: renew our own lease, take one that has expired or one that a
        // superseded holder has (none is spelled '', which no holder is).
        Stmt upd(*statements_,
                 "UPDATE leases SET epoch = CASE WHEN holder = ?2 THEN epoch ELSE epoch + 1 END,"
                 " holder = ?2, expires_ms = ?3 WHERE name = ?1"
                 " AND (holder = ?2 OR expires_ms < ?4 OR holder = ?5)");
        MINK_RETURN_IF_ERROR(upd.prepared());
        upd.Bind(1, name);
        upd.Bind(2, holder);
        upd.Bind(3, now_ms + ttl_ms);
        upd.Bind(4, now_ms);
        upd.Bind(5, superseded);
        if (upd.Step() != SQLITE_DONE) return SqliteError(db_, "update lease");
        Stmt sel(*statements_, "SELECT name, holder, epoch, expires_ms FROM leases WHERE name = ?");
        MINK_RETURN_IF_ERROR(sel.prepared());
        sel.Bind(1, name);
        if (sel.Step() != SQLITE_ROW) return SqliteError(db_, "read lease");
        lease = Lease{sel.Text(0), sel.Text(1), sel.Int(2), sel.Int(3)};
        return Status::Ok();
      },
      /*immediate=*/true);
  if (!s.ok()) return s;
  return lease;
}

Result<std::optional<Lease>> SqliteLogStore::ReadLease(const std::string& name) {
  std::optional<Lease> lease;
  Status s = InTransaction(
      [&]() -> Status {
        Stmt sel(*statements_, "SELECT name, holder, epoch, expires_ms FROM leases WHERE name = ?");
        MINK_RETURN_IF_ERROR(sel.prepared());
        sel.Bind(1, name);
        int rc = sel.Step();
        if (rc == SQLITE_ROW) lease = Lease{sel.Text(0), sel.Text(1), sel.Int(2), sel.Int(3)};
        else if (rc != SQLITE_DONE) return SqliteError(db_, "read lease");
        return Status::Ok();
      },
      /*immediate=*/false);
  if (!s.ok()) return s;
  return lease;
}

Status SqliteLogStore::CommitGroupOffsets(const std::string& group,
                                          const std::vector<GroupOffset>& offsets,
                                          const OffsetFence* fence) {
  if (offsets.empty()) return Status::Ok();
  return InTransaction(
      [&]() -> Status {
        if (fence != nullptr) MINK_RETURN_IF_ERROR(CheckFenceLocked(*fence));
        Stmt stmt(*statements_,
                  "INSERT INTO group_offsets (group_id, topic, partition, committed_offset,"
                  " leader_epoch, metadata, commit_time_ms) VALUES (?, ?, ?, ?, ?, ?, ?)"
                  " ON CONFLICT(group_id, topic, partition) DO UPDATE SET"
                  " committed_offset = excluded.committed_offset,"
                  " leader_epoch = excluded.leader_epoch, metadata = excluded.metadata,"
                  " commit_time_ms = excluded.commit_time_ms");
        MINK_RETURN_IF_ERROR(stmt.prepared());
        for (const GroupOffset& o : offsets) {
          stmt.Reset();
          stmt.Bind(1, group);
          stmt.Bind(2, o.topic);
          stmt.Bind(3, static_cast<int64_t>(o.partition));
          stmt.Bind(4, o.offset);
          stmt.Bind(5, static_cast<int64_t>(o.leader_epoch));
          stmt.BindBlob(6, o.metadata);
          stmt.Bind(7, o.commit_time_ms);
          if (stmt.Step() != SQLITE_DONE) return SqliteError(db_, "commit group offsets");
        }
        return Status::Ok();
      },
      /*immediate=*/true);
}

Result<std::vector<GroupOffset>> SqliteLogStore::ListGroupOffsets(const std::string& group) {
  Connection lock(this);
  Stmt stmt(*statements_,
            "SELECT topic, partition, committed_offset, leader_epoch, metadata, commit_time_ms"
            " FROM group_offsets WHERE group_id = ? ORDER BY topic, partition");
  MINK_RETURN_IF_ERROR(stmt.prepared());
  stmt.Bind(1, group);
  std::vector<GroupOffset> out;
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) {
    out.push_back(GroupOffset{stmt.Text(0), static_cast<int32_t>(stmt.Int(1)), stmt.Int(2),
                              static_cast<int32_t>(stmt.Int(3)), stmt.Blob(4), stmt.Int(5)});
  }
  if (rc != SQLITE_DONE) return SqliteError(db_, "list group offsets");
  return out;
}

Result<std::vector<std::string>> SqliteLogStore::ListOffsetGroups() {
  Connection lock(this);
  Stmt stmt(*statements_, "SELECT DISTINCT group_id FROM group_offsets ORDER BY group_id");
  MINK_RETURN_IF_ERROR(stmt.prepared());
  std::vector<std::string> out;
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) out.push_back(stmt.Text(0));
  if (rc != SQLITE_DONE) return SqliteError(db_, "list offset groups");
  return out;
}

Status SqliteLogStore::CheckFenceLocked(const OffsetFence& fence) {
  Stmt lease(*statements_, "SELECT holder, epoch FROM leases WHERE name = ?");
  MINK_RETURN_IF_ERROR(lease.prepared());
  lease.Bind(1, fence.lease);
  const int rc = lease.Step();
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return SqliteError(db_, "read lease");
  const bool found = rc == SQLITE_ROW;
  return CheckOffsetFence(fence, found, found ? lease.Text(0) : "", found ? lease.Int(1) : 0);
}

Status SqliteLogStore::DeleteGroupOffsets(const std::string& group, const OffsetFence* fence) {
  return InTransaction(
      [&]() -> Status {
        if (fence != nullptr) MINK_RETURN_IF_ERROR(CheckFenceLocked(*fence));
        Stmt stmt(*statements_, "DELETE FROM group_offsets WHERE group_id = ?");
        MINK_RETURN_IF_ERROR(stmt.prepared());
        stmt.Bind(1, group);
        if (stmt.Step() != SQLITE_DONE) return SqliteError(db_, "delete group offsets");
        return Status::Ok();
      },
      /*immediate=*/true);
}

Status SqliteLogStore::DeleteTopicOffsets(const std::string& topic) {
  return InTransaction(
      [&]() -> Status {
        Stmt stmt(*statements_, "DELETE FROM group_offsets WHERE topic = ?");
        MINK_RETURN_IF_ERROR(stmt.prepared());
        stmt.Bind(1, topic);
        if (stmt.Step() != SQLITE_DONE) return SqliteError(db_, "delete topic offsets");
        return Status::Ok();
      },
      /*immediate=*/true);
}

}  // namespace mink::metadata
