// The WAL of a SQLite metadata database is checkpointed off the commit path and stays bounded.
#include "metadata/sqlite/sqlite_checkpointer.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <string>
#include <thread>

#include "testing/test_env.h"

namespace mink::metadata {
namespace {

int64_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

int64_t CountRows(sqlite3* db) {
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "SELECT count(*), sum(length(body)) FROM t", -1, &stmt, nullptr);
  int64_t n = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : -1;
  sqlite3_finalize(stmt);
  return n;
}

sqlite3* OpenWalDatabase(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db,
                         "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                         " CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  return db;
}

void InsertRows(sqlite3* db, int rows) {
  for (int i = 0; i < rows; ++i) {
    ASSERT_EQ(sqlite3_exec(db, "INSERT INTO t (body) VALUES (zeroblob(4000))", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
  }
}

// The WAL's size after `rows` commits that nothing checkpoints: what the WAL would grow to.
int64_t WalWithoutCheckpoints(const std::string& dir, int rows) {
  const std::string path = dir + "/unchecked.db";
  sqlite3* db = OpenWalDatabase(path);
  sqlite3_wal_hook(db, [](void*, sqlite3*, const char*, int) { return SQLITE_OK; }, nullptr);
  InsertRows(db, rows);
  const int64_t size = FileSize(path + "-wal");
  sqlite3_close(db);
  return size;
}

TEST(SqliteCheckpointer, CheckpointsInTheBackgroundAndTheWalStartsOver) {
  const std::string dir = testing_env::MakeTempDir("checkpointer");
  const std::string path = dir + "/meta.db";
  sqlite3* db = OpenWalDatabase(path);
  // Rows are written until the WAL has started over a few times (bounded in rows and time): how
  // long a background checkpoint takes depends on the machine's load, so the volume adapts to it.
  constexpr int kMinRows = 3000;
  constexpr int kMaxRows = 60000;
  constexpr int kRestarts = 3;
  int rows = 0;
  {
    // 100 pages (400 KiB) in the background; the inline bound is out of reach here.
    SqliteCheckpointer checkpointer(db, path, /*background_pages=*/100, /*inline_pages=*/1 << 30);
    sqlite3_stmt* insert = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO t (body) VALUES (zeroblob(4000))", -1, &insert,
                                 nullptr),
              SQLITE_OK);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (rows < kMaxRows && std::chrono::steady_clock::now() < deadline &&
           (rows < kMinRows || checkpointer.wal_restarts() < kRestarts)) {
      ASSERT_EQ(sqlite3_step(insert), SQLITE_DONE);  // one page and more per commit
      sqlite3_reset(insert);
      if (++rows % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    sqlite3_finalize(insert);
    EXPECT_GE(checkpointer.background_checkpoints(), kRestarts);
    EXPECT_GE(checkpointer.wal_restarts(), kRestarts) << "the WAL never started over";
  }
  // Without checkpoints the WAL would hold every page written (measured on a second database);
  // restarted, its high-water mark is the longest stretch between two restarts.
  const int64_t wal = FileSize(path + "-wal");
  const int64_t unchecked = WalWithoutCheckpoints(dir, rows);
  EXPECT_GT(wal, 0);
  EXPECT_LT(wal, unchecked) << rows << " rows written";
  EXPECT_EQ(CountRows(db), rows);
  sqlite3_close(db);
  // What was checkpointed is in the database file: a new connection reads every row.
  sqlite3* again = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &again), SQLITE_OK);
  EXPECT_EQ(CountRows(again), rows);
  sqlite3_close(again);
}

}  // namespace
}  // namespace mink::metadata
