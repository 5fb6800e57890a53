// One conformance suite for every LogStore backend (SQLite, and PostgreSQL on the server the
// harness starts).

#include <gtest/gtest.h>

#include <thread>

#include "base/clock.h"
#include "metadata/log_store.h"
#include "test_databases.h"

namespace mink::metadata {
namespace {

class LogStoreConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    url_ = testing::FreshDatabaseUrl(GetParam());
    if (url_.empty()) GTEST_SKIP() << "no " << GetParam() << " server";
    auto opened = OpenLogStore(url_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->Migrate().ok());
  }
  CommandRecord Rec(int64_t seq) {
    return CommandRecord{seq, "id" + std::to_string(seq), 1000 + seq, "n1", "k", "{\"x\":" +
                                                                                   std::to_string(seq) + "}"};
  }
  std::string url_;
  std::unique_ptr<LogStore> store_;
};

TEST_P(LogStoreConformance, MigrateIsIdempotentAndVersioned) {
  ASSERT_TRUE(store_->Migrate().ok());
  auto v = store_->SchemaVersion();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_GE(*v, 1);
}

TEST_P(LogStoreConformance, InsertedCommandsReadBackInOrder) {
  for (int i = 1; i <= 5; ++i) ASSERT_TRUE(store_->Insert(Rec(i)).ok());
  auto all = store_->ReadAfter(0, 100);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[2].seq, 3);
  EXPECT_EQ((*all)[2].id, "id3");
  EXPECT_EQ((*all)[2].body, "{\"x\":3}");
  EXPECT_EQ((*all)[2].time_ms, 1003);
  auto tail = store_->ReadAfter(3, 1);
  ASSERT_TRUE(tail.ok());
  ASSERT_EQ(tail->size(), 1u);
  EXPECT_EQ(tail->front().seq, 4);
}

TEST_P(LogStoreConformance, ADuplicateSeqIsAborted) {
  ASSERT_TRUE(store_->Insert(Rec(1)).ok());
  Status dup = store_->Insert(Rec(1));
  EXPECT_TRUE(IsAborted(dup)) << dup;
  EXPECT_EQ(store_->ReadAfter(0, 10)->size(), 1u);
}

TEST_P(LogStoreConformance, AFailedAppendLockCallbackRollsBack) {
  Status s = store_->WithAppendLock([&]() -> Status {
    EXPECT_TRUE(store_->Insert(Rec(1)).ok());
    return InternalError("validation failed");
  });
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(store_->ReadAfter(0, 10)->empty());
  ASSERT_TRUE(store_->WithAppendLock([&] { return store_->Insert(Rec(1)); }).ok());
  EXPECT_EQ(store_->ReadAfter(0, 10)->size(), 1u);
}

TEST_P(LogStoreConformance, AnotherConnectionSeesCommitsAndIsWoken) {
  auto other = OpenLogStore(url_);
  ASSERT_TRUE(other.ok());
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(store_->Insert(Rec(1)).ok());
  });
  auto start = SteadyNow();
  std::vector<CommandRecord> seen;
  while (seen.empty() && SteadyNow() - start < std::chrono::seconds(5)) {
    (*other)->WaitForCommands(0, std::chrono::milliseconds(1000));
    seen = *(*other)->ReadAfter(0, 10);
  }
  writer.join();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_LT(SteadyNow() - start, std::chrono::seconds(2));
}

TEST_P(LogStoreConformance, SnapshotsAndPruning) {
  EXPECT_FALSE(store_->LatestSnapshot()->has_value());
  for (int i = 1; i <= 30; ++i) ASSERT_TRUE(store_->Insert(Rec(i)).ok());
  ASSERT_TRUE(store_->WriteSnapshot({10, "s10"}).ok());
  ASSERT_TRUE(store_->WriteSnapshot({20, "s20"}).ok());
  ASSERT_TRUE(store_->WriteSnapshot({30, "s30"}).ok());
  auto latest = store_->LatestSnapshot();
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->seq, 30);
  EXPECT_EQ((*latest)->body, "s30");
  ASSERT_TRUE(store_->Prune(20, 2).ok());
  auto rest = store_->ReadAfter(0, 100);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 10u);
  EXPECT_EQ(rest->front().seq, 21);
}

TEST_P(LogStoreConformance, HeartbeatsUpsert) {
  ASSERT_TRUE(store_->UpsertHeartbeat({1, 1, "a:1", 100}).ok());
  ASSERT_TRUE(store_->UpsertHeartbeat({2, 1, "b:1", 100}).ok());
  ASSERT_TRUE(store_->UpsertHeartbeat({1, 2, "a:2", 200}).ok());
  auto beats = store_->ListHeartbeats();
  ASSERT_TRUE(beats.ok()) << beats.status();
  ASSERT_EQ(beats->size(), 2u);
  EXPECT_EQ((*beats)[0].node_epoch, 2);
  EXPECT_EQ((*beats)[0].address, "a:2");
  EXPECT_EQ((*beats)[0].updated_ms, 200);
}

TEST_P(LogStoreConformance, LeaseIsExclusiveUntilItExpires) {
  auto a = store_->TryAcquireLease("coordinator", "node-1", 1000, 500);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->holder, "node-1");
  int64_t first_epoch = a->epoch;
  auto b = store_->TryAcquireLease("coordinator", "node-2", 1200, 500);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->holder, "node-1");  // still held
  auto renewed = store_->TryAcquireLease("coordinator", "node-1", 1400, 500);
  EXPECT_EQ(renewed->holder, "node-1");
  EXPECT_EQ(renewed->epoch, first_epoch);
  EXPECT_EQ(renewed->expires_ms, 1900);
  auto taken = store_->TryAcquireLease("coordinator", "node-2", 2000, 500);
  EXPECT_EQ(taken->holder, "node-2");
  EXPECT_EQ(taken->epoch, first_epoch + 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, LogStoreConformance, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mink::metadata
