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

TEST(SqliteCheckpointer, CheckpointsInTheBackgroundAndTheWalStartsOver) {
  const std::string path = testing_env::MakeTempDir("checkpointer") + "/meta.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                         " CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  constexpr int kRows = 3000;
  {
    // 100 pages (400 KiB) in the background; the inline bound is out of reach here.
    SqliteCheckpointer checkpointer(db, path, /*background_pages=*/100, /*inline_pages=*/1 << 30);
    sqlite3_stmt* insert = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "INSERT INTO t (body) VALUES (zeroblob(4000))", -1, &insert,
                                 nullptr),
              SQLITE_OK);
    for (int i = 0; i < kRows; ++i) {  // ~12 MB through the WAL, one page and more per commit
      ASSERT_EQ(sqlite3_step(insert), SQLITE_DONE);
      sqlite3_reset(insert);
      if (i % 100 == 99) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    sqlite3_finalize(insert);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (checkpointer.background_checkpoints() < 2 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_GE(checkpointer.background_checkpoints(), 2);
  }
  // Without checkpoints the WAL would hold every page written (~12 MB); restarted after each
  // background checkpoint, it stays a fraction of that.
  const int64_t wal = FileSize(path + "-wal");
  EXPECT_GT(wal, 0);
  EXPECT_LT(wal, 6'000'000) << "the WAL never started over";
  EXPECT_EQ(CountRows(db), kRows);
  sqlite3_close(db);
  // What was checkpointed is in the database file: a new connection reads every row.
  sqlite3* again = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &again), SQLITE_OK);
  EXPECT_EQ(CountRows(again), kRows);
  sqlite3_close(again);
}

}  // namespace
}  // namespace mink::metadata
