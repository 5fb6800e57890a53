#include "metadata/postgres/postgres_log_store.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <thread>

#include "base/log.h"
#include "base/strings.h"

namespace mink::metadata {
namespace {

// Numbered migrations; schema_version holds the number of the last one applied.
const char* const kMigrations[] = {
    // 1: the command log, snapshots, heartbeats and leases.
    "CREATE TABLE commands (seq BIGINT PRIMARY KEY, id TEXT NOT NULL, time_ms BIGINT NOT NULL,"
    " node TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL);"
    "CREATE TABLE snapshots (seq BIGINT PRIMARY KEY, body TEXT NOT NULL);"
    "CREATE TABLE heartbeats (node_id INTEGER PRIMARY KEY, node_epoch BIGINT NOT NULL,"
    " address TEXT NOT NULL, updated_ms BIGINT NOT NULL);"
    "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, epoch BIGINT NOT NULL,"
    " expires_ms BIGINT NOT NULL);",
    // 2: committed offsets of Kafka consumer groups.
    "CREATE TABLE group_offsets (group_id TEXT NOT NULL, topic TEXT NOT NULL,"
    " partition INTEGER NOT NULL, committed_offset BIGINT NOT NULL,"
    " leader_epoch INTEGER NOT NULL, metadata BYTEA NOT NULL, commit_time_ms BIGINT NOT NULL,"
    " PRIMARY KEY (group_id, topic, partition));",
    // 3: snapshots in parts (LogStore::WriteSnapshot); parts = 0 keeps the body inline.
    "CREATE TABLE snapshot_parts (seq BIGINT NOT NULL, part INTEGER NOT NULL,"
    " body TEXT NOT NULL, PRIMARY KEY (seq, part));"
    "ALTER TABLE snapshots ADD COLUMN parts INTEGER NOT NULL DEFAULT 0;",
    // 4: each node's advertised Kafka address beside its Flight address.
    "ALTER TABLE heartbeats ADD COLUMN kafka_address TEXT NOT NULL DEFAULT '';",
};

// Rows per INSERT of CommitGroupOffsets (7 parameters each; PostgreSQL allows 65535).
constexpr size_t kOffsetRowsPerInsert = 1000;

// Advisory lock keys ("mink" in the high bytes); PostgreSQL scopes them to the database.
constexpr int64_t kAppendLockKey = 0x6d696e6b00000001;
constexpr int64_t kMigrateLockKey = 0x6d696e6b00000002;

// WaitForCommands never waits longer than this, in case a notification was lost.
constexpr std::chrono::milliseconds kMaxWait{1000};

std::string PercentDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const char hex[3] = {s[i + 1], s[i + 2], 0};
      char* end = nullptr;
      long v = std::strtol(hex, &end, 16);
      if (end == hex + 2) {
        out.push_back(static_cast<char>(v));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

struct UrlParts {
  std::string redacted;              // the URL without its password
  std::vector<std::string> secrets;  // every spelling of the password, longest first
};

UrlParts SplitUrl(const std::string& url) {
  UrlParts parts;
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return {"<not a URL>", {url}};
  size_t start = scheme + 3;
  size_t query = std::min(url.find('?', start), url.size());
  // The user info ends at the last '@' before the query, so a stray '@' or '/' in an unencoded
  // password still counts as password instead of leaking as host or path.
  std::string rest = url.substr(start, query - start);
  size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    std::string userinfo = rest.substr(0, at);
    size_t colon = userinfo.find(':');
    if (colon != std::string::npos) {
      parts.secrets.push_back(userinfo.substr(colon + 1));
      size_t first_at = userinfo.find('@', colon);  // where libpq itself stops
      if (first_at != std::string::npos) {
        parts.secrets.push_back(userinfo.substr(colon + 1, first_at - colon - 1));
      }
      rest = userinfo.substr(0, colon) + rest.substr(at);
    }
  }
  std::string kept_query;
  if (query < url.size()) {
    for (const std::string& param : Split(url.substr(query + 1), '&')) {
      if (param.rfind("password=", 0) == 0) {
        parts.secrets.push_back(param.substr(9));
      } else if (!param.empty()) {
        kept_query += (kept_query.empty() ? "?" : "&") + param;
      }
    }
  }
  size_t raw_count = parts.secrets.size();
  for (size_t i = 0; i < raw_count; ++i) parts.secrets.push_back(PercentDecode(parts.secrets[i]));
  std::erase_if(parts.secrets, [](const std::string& s) { return s.empty(); });
  std::sort(parts.secrets.begin(), parts.secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  parts.redacted = url.substr(0, start) + rest + kept_query;
  return parts;
}

void IgnoreNotice(void* /*arg*/, const char* /*message*/) {}

// `offsets` with one entry per (topic, partition), the last one of each, in first-seen order:
// one INSERT ... ON CONFLICT DO UPDATE may not touch a row twice.
std::vector<GroupOffset> LastPerPartition(const std::vector<GroupOffset>& offsets) {
  std::map<std::pair<std::string, int32_t>, size_t> index;
  std::vector<GroupOffset> out;
  for (const GroupOffset& o : offsets) {
    auto [it, inserted] = index.try_emplace({o.topic, o.partition}, out.size());
    if (inserted) {
      out.push_back(o);
    } else {
      out[it->second] = o;
    }
  }
  return out;
}

}  // namespace

std::string RedactPostgresUrl(const std::string& url) { return SplitUrl(url).redacted; }

class PostgresLogStore::Rows {
 public:
  explicit Rows(PGresult* result) : result_(result, &PQclear) {}
  int count() const { return PQntuples(result_.get()); }
  std::string Text(int row, int col) const {
    return std::string(PQgetvalue(result_.get(), row, col),
                       static_cast<size_t>(PQgetlength(result_.get(), row, col)));
  }
  int64_t Int(int row, int col) const {
    return std::strtoll(PQgetvalue(result_.get(), row, col), nullptr, 10);
  }
  PGresult* get() const { return result_.get(); }

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> result_;
};

PostgresLogStore::PostgresLogStore(const std::string& url)
    : url_(url), redacted_url_(SplitUrl(url).redacted), secrets_(SplitUrl(url).secrets) {}

PostgresLogStore::~PostgresLogStore() {
  PQfinish(conn_);
  PQfinish(listen_conn_);
}

Result<std::unique_ptr<PostgresLogStore>> PostgresLogStore::Open(const std::string& url,
                                                                 bool listen) {
  if (url.rfind("postgres://", 0) != 0 && url.rfind("postgresql://", 0) != 0) {
    return InvalidArgumentError("metadata URL '" + RedactPostgresUrl(url) +
                                "' is not postgres://... or postgresql://...");
  }
  auto store = std::unique_ptr<PostgresLogStore>(new PostgresLogStore(url));
  char* parse_error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &parse_error);
  if (options == nullptr) {
    std::string message = parse_error ? parse_error : "out of memory";
    PQfreemem(parse_error);
    return InvalidArgumentError("metadata URL '" + store->redacted_url_ +
                                "' is malformed: " + store->Scrub(message));
  }
  PQconninfoFree(options);
  {
    std::lock_guard<std::recursive_mutex> lock(store->mutex_);
    MINK_RETURN_IF_ERROR(store->Connect(&store->conn_, /*listen=*/false));
  }
  if (!listen) return store;
  // Listen from the start, so that no commit after Open goes unnoticed.
  std::lock_guard<std::mutex> lock(store->listen_mutex_);
  MINK_RETURN_IF_ERROR(store->Connect(&store->listen_conn_, /*listen=*/true));
  return store;
}

std::string PostgresLogStore::Scrub(std::string message) const {
  for (const std::string& secret : secrets_) {
    for (size_t pos = message.find(secret); pos != std::string::npos;
         pos = message.find(secret, pos + 3)) {
      message.replace(pos, secret.size(), "***");
    }
  }
  // One line: libpq ends messages with a newline and puts DETAIL and HINT on lines of their own.
  std::erase(message, '\t');
  std::replace(message.begin(), message.end(), '\n', ' ');
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return message;
}

Status PostgresLogStore::Error(const std::string& what, const std::string& message,
                               const char* sqlstate) const {
  std::string state = sqlstate ? sqlstate : "";
  std::string text = "postgres " + what + " on " + redacted_url_ + ": " + Scrub(message);
  if (!state.empty()) text += " (SQLSTATE " + state + ")";
  if (state == "23505" || state == "40001" || state == "40P01") return AbortedError(text);
  if (state == "XX001" || state == "XX002") return DataLossError(text);
  if (state.rfind("22", 0) == 0) return InvalidArgumentError(text);
  if (state.rfind("42", 0) == 0) return InternalError(text);
  return UnavailableError(text);  // connection trouble, shutdowns, lack of resources
}

Status PostgresLogStore::Connect(pg_conn** conn, bool listen) {
  if (*conn != nullptr && PQstatus(*conn) == CONNECTION_OK) return Status::Ok();
  if (*conn != nullptr) {
    MINK_LOG_WARN("metadata", "postgres connection to {} lost, reconnecting", redacted_url_);
    PQfinish(*conn);
    *conn = nullptr;
  }
  // Entries before dbname (which libpq expands from the URL) are defaults the URL may override.
  // The server ends a session that sits in a transaction for 1.5 s: a node cut off from the
  // database (or paused) inside an append must not hold the append lock, and with it every
  // other node's appends and heartbeats, for longer than a heartbeat interval or so. Its
  // transaction is rolled back, as if it had crashed. Lock waits and statements are bounded
  // too, and keepalives and tcp_user_timeout notice a peer that went away.
  const char* keys[] = {"connect_timeout", "application_name", "keepalives_idle",
                        "keepalives_interval", "keepalives_count", "tcp_user_timeout",
                        "options", "dbname", nullptr};
  const char* values[] = {"10", "mink-metadata", "5", "2", "3", "10000",
                          "-c idle_in_transaction_session_timeout=1500 -c lock_timeout=10000 "
                          "-c statement_timeout=30000",
                          url_.c_str(), nullptr};
  PGconn* c = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (c == nullptr) return UnavailableError("postgres connect to " + redacted_url_ + ": no memory");
  if (PQstatus(c) != CONNECTION_OK) {
    Status s = Error("connect", PQerrorMessage(c), nullptr);
    PQfinish(c);
    return s;
  }
  PQsetNoticeProcessor(c, &IgnoreNotice, nullptr);  // "already exists, skipping" and the like
  if (listen) {
    Rows rows(PQexec(c, "LISTEN mink_commands"));
    if (PQresultStatus(rows.get()) != PGRES_COMMAND_OK) {
      Status s = Error("listen", PQerrorMessage(c), nullptr);
      PQfinish(c);
      return s;
    }
  }
  if (!listen) own_backend_pid_.store(PQbackendPID(c));
  *conn = c;
  return Status::Ok();
}

Result<PostgresLogStore::Rows> PostgresLogStore::Exec(const char* sql,
                                                      const std::vector<std::string>& params,
                                                      const char* what) {
  if (conn_ == nullptr) {
    return UnavailableError("postgres " + std::string(what) + " on " + redacted_url_ +
                            ": not connected");
  }
  PGresult* result;
  if (params.empty()) {
    result = PQexec(conn_, sql);
  } else {
    std::vector<const char*> values;
    for (const std::string& p : params) values.push_back(p.c_str());
    result = PQexecParams(conn_, sql, static_cast<int>(values.size()), /*paramTypes=*/nullptr,
                          values.data(), /*paramLengths=*/nullptr, /*paramFormats=*/nullptr,
                          /*resultFormat=*/0);
  }
  Rows rows(result);
  ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return rows;
  std::string message = result ? PQresultErrorMessage(result) : "";
  if (message.empty()) message = PQerrorMessage(conn_);
  return Error(what, message, result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr);
}

Result<PostgresLogStore::Rows> PostgresLogStore::Query(const char* sql,
                                                       const std::vector<std::string>& params,
                                                       const char* what) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (in_transaction_) return Exec(sql, params, what);
  MINK_RETURN_IF_ERROR(Connect(&conn_, /*listen=*/false));
  if (PQtransactionStatus(conn_) != PQTRANS_IDLE) (void)Exec("ROLLBACK", {}, "rollback");
  Result<Rows> rows = Exec(sql, params, what);
  // A connection the server closed while we were idle fails its next statement: reconnect and
  // run it again. (Also when a reply was lost: every statement run here is idempotent.)
  if (!rows.ok() && PQstatus(conn_) != CONNECTION_OK) {
    MINK_RETURN_IF_ERROR(Connect(&conn_, /*listen=*/false));
    rows = Exec(sql, params, what);
  }
  return rows;
}

Status PostgresLogStore::InTransaction(const std::function<Status()>& fn, int64_t lock_key) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (in_transaction_) return fn();
  MINK_RETURN_IF_ERROR(Query("BEGIN", {}, "begin").status());
  in_transaction_ = true;
  Status s;
  if (lock_key != 0) {
    s = Exec("SELECT pg_advisory_xact_lock($1)", {std::to_string(lock_key)}, "advisory lock")
            .status();
  }
  if (s.ok()) s = fn();
  in_transaction_ = false;
  if (s.ok() && PQtransactionStatus(conn_) != PQTRANS_INTRANS) {
    // A statement failed although `fn` went on: COMMIT would quietly roll back.
    s = AbortedError("postgres transaction on " + redacted_url_ + " failed and was rolled back");
  }
  if (!s.ok()) {
    if (PQstatus(conn_) == CONNECTION_OK) (void)Exec("ROLLBACK", {}, "rollback");
    return s;
  }
  // If COMMIT fails with the connection gone, the outcome is unknown; the caller retries (the
  // command log recognises its own command by id).
  Status committed = Exec("COMMIT", {}, "commit").status();
  if (!committed.ok() && PQstatus(conn_) == CONNECTION_OK) (void)Exec("ROLLBACK", {}, "rollback");
  return committed;
}

Status PostgresLogStore::Migrate() {
  return InTransaction(
      [&]() -> Status {
        MINK_RETURN_IF_ERROR(Exec("CREATE TABLE IF NOT EXISTS schema_version"
                                  " (version INTEGER NOT NULL)",
                                  {}, "create schema_version")
                                 .status());
        MINK_ASSIGN_OR_RETURN(int version, SchemaVersion());
        const int target = static_cast<int>(std::size(kMigrations));
        for (int v = version; v < target; ++v) {
          MINK_RETURN_IF_ERROR(Exec(kMigrations[v], {}, "migrate").status());
        }
        if (version < target) {
          MINK_RETURN_IF_ERROR(Exec("DELETE FROM schema_version", {}, "migrate").status());
          MINK_RETURN_IF_ERROR(Exec("INSERT INTO schema_version (version) VALUES ($1)",
                                    {std::to_string(target)}, "migrate")
                                   .status());
        }
        return Status::Ok();
      },
      kMigrateLockKey);
}

Result<int> PostgresLogStore::SchemaVersion() {
  MINK_ASSIGN_OR_RETURN(Rows rows, Query("SELECT coalesce(max(version), 0) FROM schema_version", {},
                                         "schema version"));
  return static_cast<int>(rows.Int(0, 0));
}

Result<std::vector<CommandRecord>> PostgresLogStore::ReadAfter(int64_t after_seq, int limit) {
  MINK_ASSIGN_OR_RETURN(Rows rows,
                        Query("SELECT seq, id, time_ms, node, kind, body FROM commands"
                              " WHERE seq > $1 ORDER BY seq LIMIT $2",
                              {std::to_string(after_seq), std::to_string(limit)}, "read commands"));
  std::vector<CommandRecord> out;
  out.reserve(static_cast<size_t>(rows.count()));
  for (int i = 0; i < rows.count(); ++i) {
    out.push_back(CommandRecord{rows.Int(i, 0), rows.Text(i, 1), rows.Int(i, 2), rows.Text(i, 3),
                                rows.Text(i, 4), rows.Text(i, 5)});
  }
  return out;
}

Result<int64_t> PostgresLogStore::LastSeq() {
  MINK_ASSIGN_OR_RETURN(Rows rows, Query("SELECT COALESCE(MAX(seq), 0) FROM commands", {}, "read the last seq"));
  if (rows.count() != 1) return InternalError("read the last seq: no row");
  return rows.Int(0, 0);
}

Status PostgresLogStore::Insert(const CommandRecord& r) {
  return InTransaction([&]() -> Status {
    MINK_RETURN_IF_ERROR(
        Exec("INSERT INTO commands (seq, id, time_ms, node, kind, body)"
             " VALUES ($1, $2, $3, $4, $5, $6)",
             {std::to_string(r.seq), r.id, std::to_string(r.time_ms), r.node, r.kind, r.body},
             "insert command")
            .status());
    // Delivered to listeners when the transaction commits (WithAppendLock's, if open).
    return Exec("NOTIFY mink_commands", {}, "notify").status();
  });
}

Status PostgresLogStore::WithAppendLock(const std::function<Status()>& fn) {
  return InTransaction(fn, kAppendLockKey);
}

void PostgresLogStore::WaitForCommands(int64_t /*after_seq*/, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + std::min(timeout, kMaxWait);
  std::unique_lock<std::mutex> lock(listen_mutex_);
  const uint64_t seen = wakeups_;
  // One waiter polls the LISTEN connection; the others wait for it to report.
  while (wakeups_ == seen && std::chrono::steady_clock::now() < deadline) {
    if (polling_) {
      listen_cv_.wait_until(lock, deadline);
      continue;
    }
    polling_ = true;
    lock.unlock();
    bool woke = PollNotifications(deadline);
    lock.lock();
    polling_ = false;
    if (woke) ++wakeups_;
    listen_cv_.notify_all();
  }
}

bool PostgresLogStore::PollNotifications(std::chrono::steady_clock::time_point deadline) {
  if (listen_conn_ == nullptr || PQstatus(listen_conn_) != CONNECTION_OK) {
    Status s = Connect(&listen_conn_, /*listen=*/true);
    if (!s.ok()) {
      MINK_LOG_DEBUG("metadata", "cannot listen for commands: {}", s.ToString());
      std::this_thread::sleep_until(deadline);
      return false;
    }
    return true;  // notifications sent while we were not listening are lost: look at the log
  }
  while (true) {
    bool notified = false;
    while (PGnotify* n = PQnotifies(listen_conn_)) {
      // Our own inserts were applied by our log as it appended them; other writers' are news.
      if (n->be_pid != own_backend_pid_.load()) notified = true;
      PQfreemem(n);
    }
    if (notified) return true;
    auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{PQsocket(listen_conn_), POLLIN, 0};
    int ready = poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready > 0 && PQconsumeInput(listen_conn_) == 0) {
      PQfinish(listen_conn_);  // reconnected by the next call
      listen_conn_ = nullptr;
      return false;
    }
  }
}

Result<std::optional<SnapshotRecord>> PostgresLogStore::LatestSnapshot() {
  // One statement, so one view of the tables: a concurrent prune cannot take parts away.
  MINK_ASSIGN_OR_RETURN(
      Rows rows,
      Query("SELECT s.seq, s.parts, s.body || coalesce((SELECT string_agg(p.body, '' ORDER BY"
            " p.part) FROM snapshot_parts p WHERE p.seq = s.seq), ''), (SELECT count(*) FROM"
            " snapshot_parts p WHERE p.seq = s.seq AND p.part < s.parts)"
            " FROM snapshots s ORDER BY s.seq DESC LIMIT 1",
            {}, "read snapshot"));
  if (rows.count() == 0) return std::optional<SnapshotRecord>();
  const int64_t seq = rows.Int(0, 0), parts = rows.Int(0, 1), found = rows.Int(0, 3);
  if (found != parts) {
    return DataLossError("metadata snapshot at seq " + std::to_string(seq) + " has " +
                         std::to_string(found) + " of its " + std::to_string(parts) + " parts");
  }
  return std::optional<SnapshotRecord>(SnapshotRecord{seq, rows.Text(0, 2)});
}

Status PostgresLogStore::WriteSnapshot(const SnapshotRecord& snapshot) {
  const std::vector<std::string_view> parts = SplitSnapshot(snapshot.body);
  for (size_t i = 0; i < parts.size(); ++i) {
    MINK_RETURN_IF_ERROR(Query("INSERT INTO snapshot_parts (seq, part, body) VALUES ($1, $2, $3)"
                               " ON CONFLICT (seq, part) DO NOTHING",
                               {std::to_string(snapshot.seq), std::to_string(i),
                                std::string(parts[i])},
                               "write snapshot part")
                             .status());
  }
  return Query("INSERT INTO snapshots (seq, body, parts) VALUES ($1, '', $2)"
               " ON CONFLICT (seq) DO NOTHING",
               {std::to_string(snapshot.seq), std::to_string(parts.size())}, "write snapshot")
      .status();
}

Status PostgresLogStore::Prune(int64_t commands_up_to_seq, int keep_snapshots) {
  return InTransaction([&]() -> Status {
    MINK_RETURN_IF_ERROR(Exec("DELETE FROM commands WHERE seq <= $1",
                              {std::to_string(commands_up_to_seq)}, "prune commands")
                             .status());
    MINK_RETURN_IF_ERROR(Exec("DELETE FROM snapshots WHERE seq NOT IN"
                              " (SELECT seq FROM snapshots ORDER BY seq DESC LIMIT $1)",
                              {std::to_string(keep_snapshots)}, "prune snapshots")
                             .status());
    // Parts below the oldest kept snapshot: pruned ones, and those of an unfinished write.
    return Exec("DELETE FROM snapshot_parts WHERE seq < (SELECT min(seq) FROM snapshots)", {},
                "prune snapshot parts")
        .status();
  });
}

Result<int64_t> PostgresLogStore::DatabaseNowMillis() {
  MINK_ASSIGN_OR_RETURN(
      Rows rows, Query("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint", {},
                       "read the clock"));
  return rows.Int(0, 0);
}

Status PostgresLogStore::UpsertHeartbeat(const Heartbeat& h) {
  return Query(
             "INSERT INTO heartbeats (node_id, node_epoch, address, updated_ms, kafka_address)"
             " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (node_id) DO UPDATE SET"
             " node_epoch = excluded.node_epoch, address = excluded.address,"
             " updated_ms = excluded.updated_ms, kafka_address = excluded.kafka_address",
             {std::to_string(h.node_id), std::to_string(h.node_epoch), h.address,
              std::to_string(h.updated_ms), h.kafka_address},
             "upsert heartbeat")
      .status();
}

Result<std::vector<Heartbeat>> PostgresLogStore::ListHeartbeats() {
  MINK_ASSIGN_OR_RETURN(Rows rows, Query("SELECT node_id, node_epoch, address, updated_ms,"
                                         " kafka_address FROM heartbeats ORDER BY node_id",
                                         {}, "list heartbeats"));
  std::vector<Heartbeat> out;
  for (int i = 0; i < rows.count(); ++i) {
    out.push_back(Heartbeat{static_cast<int32_t>(rows.Int(i, 0)), rows.Int(i, 1), rows.Text(i, 2),
                            rows.Int(i, 3), rows.Text(i, 4)});
  }
  return out;
}

Result<Lease> PostgresLogStore::TakeOverLease(const std::string& name, const std::string& holder,
                                              const std::string& superseded, int64_t now_ms,
                                              int64_t ttl_ms) {
  Lease lease;
  Status s = InTransaction([&]() -> Status {
    // Conditional upsert: create the lease, renew our own, take one that has expired or one
    // that a superseded holder has ('' for none: no holder is spelled so). The conflicting row
    // stays locked to the end of the transaction even when it is not updated.
    MINK_RETURN_IF_ERROR(
        Exec("INSERT INTO leases AS l (name, holder, epoch, expires_ms) VALUES ($1, $2, 1, $3)"
             " ON CONFLICT (name) DO UPDATE SET"
             " epoch = CASE WHEN l.holder = excluded.holder THEN l.epoch ELSE l.epoch + 1 END,"
             " holder = excluded.holder, expires_ms = excluded.expires_ms"
             " WHERE l.holder = excluded.holder OR l.expires_ms < $4 OR l.holder = $5",
             {name, holder, std::to_string(now_ms + ttl_ms), std::to_string(now_ms), superseded},
             "acquire lease")
            .status());
    MINK_ASSIGN_OR_RETURN(Rows rows,
                          Exec("SELECT name, holder, epoch, expires_ms FROM leases WHERE name = $1",
                               {name}, "read lease"));
    if (rows.count() != 1) return InternalError("lease '" + name + "' vanished");
    lease = Lease{rows.Text(0, 0), rows.Text(0, 1), rows.Int(0, 2), rows.Int(0, 3)};
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return lease;
}

Result<std::optional<Lease>> PostgresLogStore::ReadLease(const std::string& name) {
  std::optional<Lease> lease;
  Status s = InTransaction([&]() -> Status {
    MINK_ASSIGN_OR_RETURN(Rows rows,
                          Exec("SELECT name, holder, epoch, expires_ms FROM leases WHERE name = $1",
                               {name}, "read lease"));
    if (rows.count() == 1) {
      lease = Lease{rows.Text(0, 0), rows.Text(0, 1), rows.Int(0, 2), rows.Int(0, 3)};
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return lease;
}

Status PostgresLogStore::CommitGroupOffsets(const std::string& group,
                                            const std::vector<GroupOffset>& offsets,
                                            const OffsetFence* fence) {
  const std::vector<GroupOffset> rows = LastPerPartition(offsets);
  if (rows.empty()) return Status::Ok();
  return InTransaction([&]() -> Status {
    if (fence != nullptr) MINK_RETURN_IF_ERROR(CheckFenceLocked(*fence));
    for (size_t begin = 0; begin < rows.size(); begin += kOffsetRowsPerInsert) {
      const size_t end = std::min(rows.size(), begin + kOffsetRowsPerInsert);
      std::string sql =
          "INSERT INTO group_offsets (group_id, topic, partition, committed_offset,"
          " leader_epoch, metadata, commit_time_ms) VALUES ";
      std::vector<std::string> params;
      params.reserve((end - begin) * 7);
      for (size_t i = begin; i < end; ++i) {
        const GroupOffset& o = rows[i];
        const size_t p = params.size();
        sql += (i == begin ? "(" : ", (");
        // Metadata travels as hex: bytea's text forms depend on server settings.
        for (size_t k = 1; k <= 7; ++k) {
          std::string param = "$" + std::to_string(p + k);
          if (k == 6) param = "decode(" + param + ", 'hex')";
          sql += (k == 1 ? "" : ", ") + param;
        }
        sql += ")";
        params.push_back(group);
        params.push_back(o.topic);
        params.push_back(std::to_string(o.partition));
        params.push_back(std::to_string(o.offset));
        params.push_back(std::to_string(o.leader_epoch));
        params.push_back(HexEncode(o.metadata));
        params.push_back(std::to_string(o.commit_time_ms));
      }
      sql +=
          " ON CONFLICT (group_id, topic, partition) DO UPDATE SET"
          " committed_offset = excluded.committed_offset, leader_epoch = excluded.leader_epoch,"
          " metadata = excluded.metadata, commit_time_ms = excluded.commit_time_ms";
      MINK_RETURN_IF_ERROR(Exec(sql.c_str(), params, "commit group offsets").status());
    }
    return Status::Ok();
  });
}

Result<std::vector<GroupOffset>> PostgresLogStore::ListGroupOffsets(const std::string& group) {
  MINK_ASSIGN_OR_RETURN(
      Rows rows,
      Query("SELECT topic, partition, committed_offset, leader_epoch, encode(metadata, 'hex'),"
            " commit_time_ms FROM group_offsets WHERE group_id = $1 ORDER BY topic, partition",
            {group}, "list group offsets"));
  std::vector<GroupOffset> out;
  out.reserve(static_cast<size_t>(rows.count()));
  for (int i = 0; i < rows.count(); ++i) {
    Result<std::string> metadata = HexDecode(rows.Text(i, 4));
    if (!metadata.ok()) {
      return DataLossError("postgres group offset metadata: " + metadata.status().message());
    }
    out.push_back(GroupOffset{rows.Text(i, 0), static_cast<int32_t>(rows.Int(i, 1)), rows.Int(i, 2),
                              static_cast<int32_t>(rows.Int(i, 3)), std::move(*metadata),
                              rows.Int(i, 5)});
  }
  return out;
}

Result<std::vector<std::string>> PostgresLogStore::ListOffsetGroups() {
  MINK_ASSIGN_OR_RETURN(Rows rows,
                        Query("SELECT DISTINCT group_id FROM group_offsets ORDER BY group_id", {},
                              "list offset groups"));
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(rows.count()));
  for (int i = 0; i < rows.count(); ++i) out.push_back(rows.Text(i, 0));
  return out;
}

Status PostgresLogStore::CheckFenceLocked(const OffsetFence& fence) {
  // FOR SHARE: a node taking the lease over waits for this transaction, and it sees the change.
  MINK_ASSIGN_OR_RETURN(Rows lease, Exec("SELECT holder, epoch FROM leases WHERE name = $1"
                                         " FOR SHARE",
                                         {fence.lease}, "read lease"));
  const bool found = lease.count() == 1;
  return CheckOffsetFence(fence, found, found ? lease.Text(0, 0) : "", found ? lease.Int(0, 1) : 0);
}

Status PostgresLogStore::DeleteGroupOffsets(const std::string& group, const OffsetFence* fence) {
  if (fence == nullptr) {
    return Query("DELETE FROM group_offsets WHERE group_id = $1", {group}, "delete group offsets")
        .status();
  }
  return InTransaction([&]() -> Status {
    MINK_RETURN_IF_ERROR(CheckFenceLocked(*fence));
    return Exec("DELETE FROM group_offsets WHERE group_id = $1", {group}, "delete group offsets")
        .status();
  });
}

Status PostgresLogStore::DeleteTopicOffsets(const std::string& topic) {
  return Query("DELETE FROM group_offsets WHERE topic = $1", {topic}, "delete topic offsets")
      .status();
}

}  // namespace mink::metadata
