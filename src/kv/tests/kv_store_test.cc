#include "kv/kv_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "kv_test_keys.h"
#include "test_env.h"

namespace mink::kv {
namespace {

class KvStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_env::MakeTempDir("kv_store");
    auto env = KvEnvironment::Open(dir_, 64 << 20);
    ASSERT_TRUE(env.ok()) << env.status().ToString();
    env_ = std::move(*env);
  }
  std::string dir_;
  std::unique_ptr<KvEnvironment> env_;
};

TEST_F(KvStoreTest, ChangesAreReadBackByGetMultiGetAndAScanInKeyOrder) {
  auto store = *env_->Create(7);
  ASSERT_TRUE(store->Apply({{"b", "2"}, {"a", "1"}, {"c", "3"}}).ok());
  ASSERT_TRUE(store->Apply({{"c", std::nullopt}, {"a", "one"}}).ok());
  EXPECT_EQ(**store->Get("a"), "one");
  EXPECT_FALSE(store->Get("c")->has_value());
  auto many = *store->MultiGet({"c", "b", "a", "zz"});
  ASSERT_EQ(many.size(), 4u);
  EXPECT_FALSE(many[0].has_value());
  EXPECT_EQ(*many[1], "2");
  EXPECT_EQ(*many[2], "one");
  EXPECT_FALSE(many[3].has_value());
  // A scan sees the state when it began, not writes after.
  auto cursor = store->Scan();
  ASSERT_TRUE(store->Apply({{"0", "late"}}).ok());
  std::string seen;
  for (; cursor->Valid(); cursor->Next()) seen += std::string(cursor->key()) + "=" + std::string(cursor->value()) + ";";
  EXPECT_TRUE(cursor->status().ok());
  EXPECT_EQ(seen, "a=one;b=2;");
}

TEST_F(KvStoreTest, AStoreDroppedRemovesItsDirectoryAndACursorKeepsItOpenUntilThen) {
  auto store = *env_->Create(1);
  ASSERT_TRUE(store->Apply({{"k", "v"}}).ok());
  const std::string dir = store->dir();
  auto cursor = store->Scan();
  store.reset();
  EXPECT_TRUE(std::filesystem::exists(dir));
  ASSERT_TRUE(cursor->Valid());
  EXPECT_EQ(cursor->value(), "v");
  cursor.reset();
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST_F(KvStoreTest, StateManyTimesTheMemoryBudgetIsKeptWhole) {
  // 4 MB of budget, about 40 MB of state: memtables flush to SSTs, blocks are evicted.
  env_.reset();
  env_ = std::move(*KvEnvironment::Open(dir_ + "/small", 4 << 20));
  auto store = *env_->Create(3);
  const std::string value(200, 'v');
  constexpr int kKeys = 200'000;
  for (int first = 0; first < kKeys; first += 1000) {
    std::vector<KvChange> changes;
    for (int i = first; i < first + 1000; ++i) changes.push_back({TestKey(i), value + std::to_string(i)});
    ASSERT_TRUE(store->Apply(changes).ok());
  }
  // Once the memtables are flushed (a checkpoint flushes them), the cache holds no more than
  // its budget: the blocks read were evicted to make room, not kept beside it.
  ASSERT_TRUE(store->MakeCheckpoint().ok());
  EXPECT_LE(env_->MemoryUsage(), uint64_t{4} << 20);
  for (int i = 0; i < kKeys; i += 997) {
    auto got = store->Get(TestKey(i));
    ASSERT_TRUE(got.ok() && got->has_value()) << i;
    EXPECT_EQ(**got, value + std::to_string(i));
  }
  EXPECT_LE(env_->MemoryUsage(), uint64_t{4} << 20) << "after reading";
  int n = 0;
  for (auto c = store->Scan(); c->Valid(); c->Next()) ++n;
  EXPECT_EQ(n, kKeys);
}

TEST_F(KvStoreTest, WorkingCopiesOfAProcessThatEndedAreRemovedAtOpen) {
  const std::string abandoned = dir_ + "/work/12345-dead";
  std::filesystem::create_directories(abandoned + "/7-abc");
  { std::ofstream(abandoned + ".lock") << "12345"; }
  auto other = KvEnvironment::Open(dir_, 1 << 20);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(std::filesystem::exists(abandoned));
  // This process's own working directory (held by env_) stays.
  auto store = *env_->Create(9);
  EXPECT_TRUE(std::filesystem::exists(store->dir()));
}

}  // namespace
}  // namespace mink::kv
