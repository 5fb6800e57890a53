// Database::LockDown: a database that runs strangers' SQL reads no file or URL, loads no
// extension, keeps its configuration, and stops a statement at its time limit; what Mink's own
// SQL needs (Arrow views, the UTC time zone) still works.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "arrow_format/builder.h"
#include "arrow_format/record_batch_builder.h"
#include "sql/database.h"
#include "test_env.h"

namespace mink::sql {
namespace {

class LockDownTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_env::MakeTempDir("sql-lockdown");
    secret_ = dir_ + "/secret.csv";
    std::ofstream(secret_) << "token\nnode:super\n";
    db_ = *Database::Open();
    SqlLimits limits;
    limits.memory_bytes = 256 << 20;
    limits.threads = 1;
    limits.time_zone = "UTC";
    ASSERT_TRUE(db_->LockDown(limits).ok());
    session_ = *db_->Connect();
  }
  // The statement's status (its rows are read to the end).
  Status Run(const std::string& sql) { return session_->Collect(sql).status(); }

  std::string dir_;
  std::string secret_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Session> session_;
};

TEST_F(LockDownTest, FilesUrlsAndExtensionsAreRefused) {
  const std::string q = "'" + secret_ + "'";
  for (const std::string& sql : std::vector<std::string>{
           "SELECT * FROM read_csv(" + q + ")",
           "SELECT * FROM read_csv_auto(" + q + ")",
           "SELECT * FROM " + q,  // a replacement scan of the file name
           "SELECT content FROM read_blob(" + q + ")",
           "SELECT content FROM read_text(" + q + ")",
           "SELECT * FROM glob('" + dir_ + "/*')",
           "SELECT * FROM read_parquet('http://127.0.0.1:9/x.parquet')",
           "SELECT * FROM read_json('" + dir_ + "/secret.csv')",
       }) {
    Status s = Run(sql);
    EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << sql << ": " << s;
    EXPECT_EQ(s.message().find("node:super"), std::string::npos) << sql << " leaked the file";
  }
  for (const std::string& sql : std::vector<std::string>{
           "COPY (SELECT 42 AS answer) TO '" + dir_ + "/out.csv'",
           "ATTACH '" + dir_ + "/other.db' AS other",
           "EXPORT DATABASE '" + dir_ + "/export'",
       }) {
    Status s = Run(sql);
    EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << sql << ": " << s;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/out.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/other.db"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/export"));
  for (const std::string& sql : std::vector<std::string>{"INSTALL httpfs", "LOAD httpfs", "LOAD '" + dir_ + "/x.duckdb_extension'"}) {
    EXPECT_FALSE(Run(sql).ok()) << sql;
  }
}

TEST_F(LockDownTest, TheConfigurationCannotBeUnlocked) {
  for (const std::string& sql : std::vector<std::string>{"SET enable_external_access = true", "SET lock_configuration = false",
        "SET memory_limit = '100GB'", "SET threads = 64", "RESET enable_external_access",
        "SET GLOBAL allow_community_extensions = true", "SET profiling_output = '/tmp/p.json'"}) {
    EXPECT_FALSE(Run(sql).ok()) << sql;
  }
  auto limit = session_->Collect("SELECT current_setting('memory_limit')");
  ASSERT_TRUE(limit.ok()) << limit.status();
  EXPECT_TRUE(Run("SELECT * FROM read_csv('" + secret_ + "')").code() == StatusCode::kPermissionDenied);
}

TEST_F(LockDownTest, ArrowViewsAndTheTimeZoneStillWork) {
  EXPECT_TRUE(session_->UseTimeZone("UTC").ok());  // LockDown's: no SET needed
  EXPECT_FALSE(session_->UseTimeZone("Europe/Paris").ok());
  auto schema = std::make_shared<arrow::Schema>(
      std::vector<arrow::Field>{arrow::Field("id", arrow::Int64(), false)});
  auto builder = *arrow::RecordBatchBuilder::Make(schema);
  for (int64_t i = 0; i < 5; ++i) builder->GetFieldAs<arrow::Int64Builder>(0)->Append(i);
  ASSERT_TRUE(session_->RegisterBatches("numbers", schema, {*builder->Flush()}).ok());
  auto sum = session_->Collect("SELECT sum(id)::BIGINT AS total FROM numbers");
  ASSERT_TRUE(sum.ok()) << sum.status();
  ASSERT_EQ((*sum)[0]->num_rows(), 1);
  EXPECT_EQ((*sum)[0]->Column(0)->buffers[1]->data_as<int64_t>()[0], 10);
}

TEST_F(LockDownTest, OnlyQueriesPassTheQueriesOnlyCheck) {
  EXPECT_TRUE(session_->CheckQueriesOnly("SELECT 1; EXPLAIN SELECT 2; WITH t AS (SELECT 3) SELECT * FROM t").ok());
  for (const std::string& sql : std::vector<std::string>{
           "PRAGMA enable_profiling", "SET threads = 2", "CREATE TABLE t (a INT)",
           "INSERT INTO t VALUES (1)", "COPY (SELECT 1) TO 'x.csv'", "ATTACH ':memory:' AS m",
           "CALL pragma_version()", "SELECT 1; DROP TABLE t", "EXPLAIN COPY (SELECT 1) TO 'x.csv'"}) {
    Status s = session_->CheckQueriesOnly(sql);
    EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << sql << ": " << s;
  }
}

// A local user's own files (mink-query exec --allow-local-files): the allowed directories only.
TEST(LockDown, AllowedDirectoriesAreTheOnlyFilesAndExtensionsStayRefused) {
  const std::string mine = testing_env::MakeTempDir("sql-allowed");
  const std::string other = testing_env::MakeTempDir("sql-other");
  auto db = *Database::Open();
  SqlLimits limits;
  limits.allowed_directories = {mine};
  ASSERT_TRUE(db->LockDown(limits).ok());
  auto session = *db->Connect();
  EXPECT_TRUE(session->Run("COPY (SELECT 42 AS answer) TO '" + mine + "/out.csv'").ok());
  auto back = session->Collect("SELECT answer FROM read_csv('" + mine + "/out.csv')");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)[0]->Column(0)->buffers[1]->data_as<int64_t>()[0], 42);
  Status outside = session->Run("COPY (SELECT 1) TO '" + other + "/out.csv'");
  EXPECT_EQ(outside.code(), StatusCode::kPermissionDenied) << outside;
  EXPECT_FALSE(std::filesystem::exists(other + "/out.csv"));
  EXPECT_FALSE(session->Run("INSTALL httpfs").ok());
  EXPECT_FALSE(session->Run("SET allowed_directories = ['/']").ok());
}

TEST_F(LockDownTest, LocalFilesAreALocalUsersOwnButTheConfigurationStaysLocked) {
  const std::string dir = testing_env::MakeTempDir("sql-local");
  auto db = *Database::Open();
  SqlLimits limits;
  limits.local_files = true;
  ASSERT_TRUE(db->LockDown(limits).ok());
  auto session = *db->Connect();
  Status copied = session->Run("COPY (SELECT 7 AS answer) TO '" + dir + "/out.parquet' (FORMAT parquet)");
  ASSERT_TRUE(copied.ok()) << copied;
  auto back = session->Collect("SELECT answer FROM read_parquet('" + dir + "/out.parquet')");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)[0]->Column(0)->buffers[1]->data_as<int32_t>()[0], 7);
  EXPECT_FALSE(session->Run("INSTALL httpfs").ok());
  EXPECT_FALSE(session->Run("SET enable_external_access = false").ok());
  EXPECT_FALSE(session->Collect("SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')").ok());
}

TEST_F(LockDownTest, AStatementPastItsTimeLimitIsStoppedAndTheSessionGoesOn) {
  session_->SetTimeout(StatementTimeout{std::chrono::milliseconds(300), "sql.timeout"});
  const auto started = std::chrono::steady_clock::now();
  Status s = Run("SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b");
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded) << s;
  EXPECT_NE(s.message().find("sql.timeout"), std::string::npos) << s;
  // A trillion-row join runs for hours: it stopped at the limit, give or take the scheduler.
  EXPECT_LT(took, std::chrono::seconds(30));
  auto next = session_->Collect("SELECT 1");
  EXPECT_TRUE(next.ok()) << next.status();
}

}  // namespace
}  // namespace mink::sql
