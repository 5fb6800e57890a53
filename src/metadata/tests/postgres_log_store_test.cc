// What only the PostgreSQL backend has: reconnection after the server drops a connection,
// passwords kept out of descriptions and errors, and LISTEN/NOTIFY wake-ups.

#include "metadata/postgres/postgres_log_store.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <thread>

#include "base/clock.h"
#include "test_databases.h"
#include "test_env.h"

namespace mink::metadata {
namespace {

constexpr char kPassword[] = "s3cr3t-Pw";

// `url` with `password` put after the user name (postgresql://user@host... -> user:pw@host...).
std::string WithPassword(const std::string& url, const std::string& password) {
  size_t at = url.find('@');
  return url.substr(0, at) + ":" + password + url.substr(at);
}

class PostgresLogStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testing::FreshDatabaseUrl("postgres");
    if (url_.empty()) GTEST_SKIP() << "no postgres server";
    store_ = OpenStore(url_);
    ASSERT_NE(store_, nullptr);
    ASSERT_TRUE(store_->Migrate().ok());
  }
  static std::unique_ptr<PostgresLogStore> OpenStore(const std::string& url) {
    auto opened = PostgresLogStore::Open(url);
    EXPECT_TRUE(opened.ok()) << opened.status();
    return opened.ok() ? std::move(*opened) : nullptr;
  }
  static CommandRecord Rec(int64_t seq) {
    return CommandRecord{seq, "id" + std::to_string(seq), seq, "n1", "k", "{}"};
  }
  // Terminates every backend of the stores on this database (main and LISTEN connections) from
  // another connection, and waits until they are gone.
  void TerminateStoreBackends() {
    PGconn* admin = PQconnectdb(url_.c_str());
    ASSERT_EQ(PQstatus(admin), CONNECTION_OK) << PQerrorMessage(admin);
    const char* kFilter =
        " FROM pg_stat_activity WHERE datname = current_database()"
        " AND application_name = 'mink-metadata' AND pid <> pg_backend_pid()";
    PGresult* killed =
        PQexec(admin, (std::string("SELECT pg_terminate_backend(pid)") + kFilter).c_str());
    ASSERT_EQ(PQresultStatus(killed), PGRES_TUPLES_OK) << PQerrorMessage(admin);
    EXPECT_GE(PQntuples(killed), 1);
    PQclear(killed);
    auto deadline = SteadyNow() + std::chrono::seconds(5);
    std::string left = "?";
    while (left != "0" && SteadyNow() < deadline) {
      PGresult* count = PQexec(admin, (std::string("SELECT count(*)") + kFilter).c_str());
      left = PQgetvalue(count, 0, 0);
      PQclear(count);
      if (left != "0") std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_EQ(left, "0");
    PQfinish(admin);
  }

  std::string url_;
  std::unique_ptr<PostgresLogStore> store_;
};

TEST_F(PostgresLogStoreTest, ReadAndInsertWorkAfterTheServerClosedTheConnection) {
  ASSERT_TRUE(store_->Insert(Rec(1)).ok());
  TerminateStoreBackends();
  auto read = store_->ReadAfter(0, 10);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->size(), 1u);
  TerminateStoreBackends();
  Status inserted = store_->Insert(Rec(2));
  ASSERT_TRUE(inserted.ok()) << inserted;
  TerminateStoreBackends();
  Status locked = store_->WithAppendLock([&] { return store_->Insert(Rec(3)); });
  ASSERT_TRUE(locked.ok()) << locked;
  EXPECT_EQ(store_->ReadAfter(0, 10)->size(), 3u);
}

TEST_F(PostgresLogStoreTest, AConnectionLostInsideTheAppendLockIsUnavailableThenRecovers) {
  Status s = store_->WithAppendLock([&]() -> Status {
    TerminateStoreBackends();
    return store_->Insert(Rec(1));
  });
  EXPECT_TRUE(IsUnavailable(s)) << s;
  EXPECT_TRUE(store_->ReadAfter(0, 10)->empty());
  ASSERT_TRUE(store_->Insert(Rec(1)).ok());
  EXPECT_EQ(store_->ReadAfter(0, 10)->size(), 1u);
}

TEST_F(PostgresLogStoreTest, ListenerReconnectsAndIsWokenAgain) {
  auto writer = OpenStore(url_);
  ASSERT_NE(writer, nullptr);
  TerminateStoreBackends();
  // The first wait notices the lost connection and re-listens (returning early is allowed).
  store_->WaitForCommands(0, std::chrono::milliseconds(500));
  std::thread insert([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(writer->Insert(Rec(1)).ok());
  });
  auto start = SteadyNow();
  store_->WaitForCommands(0, std::chrono::seconds(5));
  auto waited = SteadyNow() - start;
  insert.join();
  EXPECT_GE(waited, std::chrono::milliseconds(90));
  EXPECT_LT(waited, std::chrono::milliseconds(400));
}

TEST_F(PostgresLogStoreTest, AnotherConnectionsInsertWakesTheWaiterWellBeforeThePollCap) {
  auto writer = OpenStore(url_);
  ASSERT_NE(writer, nullptr);
  SteadyTime inserted_at;
  std::thread insert([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    inserted_at = SteadyNow();
    EXPECT_TRUE(writer->Insert(Rec(1)).ok());
  });
  auto start = SteadyNow();
  store_->WaitForCommands(0, std::chrono::seconds(5));
  auto woke_at = SteadyNow();
  insert.join();
  EXPECT_GE(woke_at - start, std::chrono::milliseconds(140));  // not a spurious return
  EXPECT_LT(woke_at - inserted_at, std::chrono::milliseconds(200));
}

TEST_F(PostgresLogStoreTest, TheWaitIsCappedWhenNothingHappens) {
  auto start = SteadyNow();
  store_->WaitForCommands(0, std::chrono::seconds(30));
  EXPECT_LT(SteadyNow() - start, std::chrono::seconds(3));
}

TEST_F(PostgresLogStoreTest, NodesMigratingConcurrentlyAllSucceed) {
  std::string fresh = testing::FreshDatabaseUrl("postgres");
  ASSERT_FALSE(fresh.empty());
  std::vector<std::unique_ptr<PostgresLogStore>> nodes;
  for (int i = 0; i < 4; ++i) nodes.push_back(OpenStore(fresh));
  std::vector<std::thread> threads;
  std::vector<Status> results(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    ASSERT_NE(nodes[i], nullptr);
    threads.emplace_back([&, i] { results[i] = nodes[i]->Migrate(); });
  }
  for (auto& t : threads) t.join();
  for (const Status& s : results) EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(*nodes[0]->SchemaVersion(), 4);
}

TEST_F(PostgresLogStoreTest, ThePasswordIsNeitherDescribedNorInErrors) {
  auto store = OpenStore(WithPassword(url_, kPassword));  // the test server trusts everyone
  ASSERT_NE(store, nullptr);
  std::string described = store->Describe();
  EXPECT_EQ(described.find(kPassword), std::string::npos) << described;
  EXPECT_EQ(described, url_);
  ASSERT_TRUE(store->Migrate().ok());
  ASSERT_TRUE(store->Insert(Rec(1)).ok());
  Status dup = store->Insert(Rec(1));
  EXPECT_TRUE(IsAborted(dup)) << dup;
  EXPECT_EQ(dup.message().find(kPassword), std::string::npos) << dup;

  // Nothing listens on this port; the database does not exist (password in the user info, then
  // as a query parameter); the URL is malformed, and libpq quotes all of it back.
  std::string base = url_.substr(0, url_.rfind('/'));
  const std::string unreachable[] = {
      "postgresql://postgres:" + std::string(kPassword) +
          "@127.0.0.1:" + std::to_string(testing_env::FreePort()) + "/db",
      WithPassword(base, kPassword) + "/no_such_database",
      base + "/no_such_database?password=" + kPassword,
  };
  for (const std::string& bad : unreachable) {
    auto opened = PostgresLogStore::Open(bad);
    ASSERT_FALSE(opened.ok()) << bad;
    EXPECT_TRUE(IsUnavailable(opened.status())) << opened.status();
    EXPECT_EQ(opened.status().message().find(kPassword), std::string::npos) << opened.status();
    EXPECT_NE(opened.status().message().find("127.0.0.1"), std::string::npos) << opened.status();
  }
  auto malformed =
      PostgresLogStore::Open("postgresql://postgres:" + std::string(kPassword) + "@[::1/db");
  ASSERT_FALSE(malformed.ok());
  EXPECT_TRUE(malformed.status().code() == StatusCode::kInvalidArgument) << malformed.status();
  EXPECT_EQ(malformed.status().message().find(kPassword), std::string::npos) << malformed.status();
}

TEST(RedactPostgresUrl, DropsThePasswordInEverySpelling) {
  EXPECT_EQ(RedactPostgresUrl("postgres://u:pw@h:5432/db"), "postgres://u@h:5432/db");
  EXPECT_EQ(RedactPostgresUrl("postgresql://u@h/db"), "postgresql://u@h/db");
  EXPECT_EQ(RedactPostgresUrl("postgresql://h/db?sslmode=disable&password=pw&user=u"),
            "postgresql://h/db?sslmode=disable&user=u");
  EXPECT_EQ(RedactPostgresUrl("postgresql://h/db?password=pw"), "postgresql://h/db");
  EXPECT_EQ(RedactPostgresUrl("postgresql://u:p%40ss@h/db"), "postgresql://u@h/db");
  // Unencoded '@' or '/' in a password must not leak it as host or path.
  EXPECT_EQ(RedactPostgresUrl("postgresql://u:p@s/s@h/db"), "postgresql://u@h/db");
}

}  // namespace
}  // namespace mink::metadata
