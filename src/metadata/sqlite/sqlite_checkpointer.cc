#include "metadata/sqlite/sqlite_checkpointer.h"

#include <sqlite3.h>

#include "base/log.h"
#include "base/thread_priority.h"

namespace mink::metadata {

SqliteCheckpointer::SqliteCheckpointer(sqlite3* db, std::string path, int background_pages,
                                       int inline_pages)
    : db_(db),
      path_(std::move(path)),
      background_pages_(background_pages),
      inline_pages_(inline_pages) {
  sqlite3_wal_hook(db_, &SqliteCheckpointer::OnCommit, this);
}

SqliteCheckpointer::~SqliteCheckpointer() {
  sqlite3_wal_hook(db_, nullptr, nullptr);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int SqliteCheckpointer::background_checkpoints() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

int SqliteCheckpointer::OnCommit(void* arg, sqlite3* db, const char* schema, int wal_pages) {
  auto* self = static_cast<SqliteCheckpointer*>(arg);
  if (wal_pages < self->last_wal_pages_.exchange(wal_pages)) ++self->wal_restarts_;
  // After a background checkpoint only the pages committed while it ran are left to copy; a
  // checkpoint here copies them while no commit of this connection can add more, so the next
  // transaction finds the WAL fully copied and starts it over. (Under a steady stream of
  // commits a background checkpoint alone never catches up with the end of the WAL, and the
  // file would grow until the inline bound.) The bound itself is SQLite's own way, for when
  // the background checkpoints cannot keep up.
  if (self->finish_.exchange(false) || wal_pages >= self->inline_pages_) {
    (void)sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  } else if (wal_pages >= self->background_pages_) {
    std::lock_guard<std::mutex> lock(self->mutex_);
    if (!self->requested_ && !self->stopping_) {
      self->requested_ = true;
      if (!self->thread_.joinable()) self->thread_ = std::thread([self] { self->Loop(); });
      self->cv_.notify_one();
    }
  }
  return SQLITE_OK;
}

void SqliteCheckpointer::Loop() {
  NameThisThread("meta-checkpoint");
  LowerThreadPriority();
  sqlite3* conn = nullptr;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    cv_.wait(lock, [&] { return requested_ || stopping_; });
    if (stopping_) break;
    lock.unlock();
    int rc = SQLITE_OK;
    if (conn == nullptr) {
      rc = sqlite3_open_v2(path_.c_str(), &conn, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
      // The checkpoint syncs the WAL and then the database file, as commits do.
      if (rc == SQLITE_OK) {
        rc = sqlite3_exec(conn, "PRAGMA synchronous=FULL", nullptr, nullptr, nullptr);
      }
    }
    if (rc == SQLITE_OK) {
      rc = sqlite3_wal_checkpoint_v2(conn, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    }
    if (rc != SQLITE_OK) {
      MINK_LOG_WARN("metadata", "checkpoint of sqlite:{} failed: {}", path_,
                    conn != nullptr ? sqlite3_errmsg(conn) : "cannot open a connection");
      sqlite3_close(conn);
      conn = nullptr;
    }
    if (rc == SQLITE_OK) finish_.store(true);
    lock.lock();
    requested_ = false;
    if (rc == SQLITE_OK) ++done_;
  }
  lock.unlock();
  sqlite3_close(conn);
}

}  // namespace mink::metadata
