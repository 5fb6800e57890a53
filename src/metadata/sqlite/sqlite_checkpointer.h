#pragma once
// SqliteCheckpointer: keeps a SQLite database's WAL file short without stalling commits.
// SQLite's own auto-checkpoint runs inside the COMMIT that takes the WAL past its limit: it
// copies the changed pages into the database file and syncs it while that commit, and every
// append queued behind it on the connection, waits (40-65 ms in the storage benchmark's
// slowest commits). This class takes over the connection's WAL hook: past `background_pages`
// a PASSIVE checkpoint runs on a connection and thread of its own, which writers do not wait
// for (they keep appending to the WAL). The next commit then copies the few pages committed
// meanwhile, so the transaction after it finds the WAL fully copied and starts the file over
// from its beginning. Only if the WAL still reaches `inline_pages` does the committing
// connection checkpoint all of it itself, as SQLite would, so the file stays bounded.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

struct sqlite3;

namespace mink::metadata {

class SqliteCheckpointer {
 public:
  // Installs the WAL hook on `db`, a connection to the database file at `path`.
  SqliteCheckpointer(sqlite3* db, std::string path, int background_pages, int inline_pages);
  // Stops the thread; call before `db` is closed.
  ~SqliteCheckpointer();
  SqliteCheckpointer(const SqliteCheckpointer&) = delete;
  SqliteCheckpointer& operator=(const SqliteCheckpointer&) = delete;

  // Background checkpoints that succeeded so far (for tests and benchmarks).
  int background_checkpoints() const;
  // Times a commit found the WAL started over from its beginning (for tests and benchmarks).
  int wal_restarts() const { return wal_restarts_.load(); }

 private:
  static int OnCommit(void* self, sqlite3* db, const char* schema, int wal_pages);
  void Loop();

  sqlite3* const db_;
  const std::string path_;
  const int background_pages_;
  const int inline_pages_;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::atomic<int> last_wal_pages_{0};  // only the committing connection's hook writes these
  std::atomic<int> wal_restarts_{0};
  std::atomic<bool> finish_{false};  // a background checkpoint is done: the next commit finishes
  bool requested_ = false;
  bool stopping_ = false;
  int done_ = 0;
  std::thread thread_;  // started by the first request
};

}  // namespace mink::metadata
