// Spare inodes for file:// (spare_files.h): taken by new objects, refilled by deletes and by a
// background thread, emptied before reuse, and never reused across a restart.

#include "object_store/spare_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "object_store/file_store.h"
#include "test_env.h"

namespace mink::object_store {
namespace {

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct stat Stat(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Waits up to 10 s for the background thread to have `n` spares ready.
bool WaitForReady(const SpareFiles& spares, size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (spares.ready() < n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

TEST(SpareFiles, NothingIsCreatedBeforeTheFirstTake) {
  const std::string dir = testing_env::MakeTempDir("spares") + "/.spare";
  auto spares = SpareFiles::Open(dir, 4);
  ASSERT_TRUE(spares.ok()) << spares.status();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ((*spares)->ready(), 0u);
}

TEST(SpareFiles, ATakenSpareIsAnEmptyFileWithOneLinkAndThePoolRefills) {
  const std::string root = testing_env::MakeTempDir("spares");
  auto opened = SpareFiles::Open(root + "/.spare", 3);
  ASSERT_TRUE(opened.ok()) << opened.status();
  SpareFiles& spares = **opened;
  EXPECT_FALSE(spares.TakeAs(root + "/first"));  // none ready yet: the caller creates
  EXPECT_FALSE(Exists(root + "/first"));
  ASSERT_TRUE(WaitForReady(spares, 3));
  ASSERT_TRUE(spares.TakeAs(root + "/a"));
  const struct stat st = Stat(root + "/a");
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_size, 0);
  EXPECT_EQ(st.st_nlink, 1u);
  ASSERT_TRUE(WaitForReady(spares, 3));
}

TEST(SpareFiles, ARecycledFileIsEmptiedAndItsInodeServesTheNextTake) {
  const std::string root = testing_env::MakeTempDir("spares");
  auto opened = SpareFiles::Open(root + "/.spare", 1);
  ASSERT_TRUE(opened.ok()) << opened.status();
  SpareFiles& spares = **opened;
  WriteFile(root + "/old", RandomBytes(1 << 20, 1));
  const ino_t inode = Stat(root + "/old").st_ino;
  ASSERT_TRUE(spares.Recycle(root + "/old"));
  EXPECT_FALSE(Exists(root + "/old"));
  EXPECT_EQ(spares.ready(), 1u);
  ASSERT_TRUE(spares.TakeAs(root + "/new"));  // the recycled file is the only spare
  const struct stat st = Stat(root + "/new");
  EXPECT_EQ(st.st_ino, inode);
  EXPECT_EQ(st.st_size, 0) << "the deleted object's bytes must not survive into the next one";
}

TEST(SpareFiles, RecycleRefusesWhenFullAndForWhatIsNotARegularFile) {
  const std::string root = testing_env::MakeTempDir("spares");
  auto opened = SpareFiles::Open(root + "/.spare", 1);  // keeps at most 4 recycled files
  ASSERT_TRUE(opened.ok()) << opened.status();
  SpareFiles& spares = **opened;
  for (int i = 0; i < 4; ++i) {
    WriteFile(root + "/f" + std::to_string(i), "x");
    EXPECT_TRUE(spares.Recycle(root + "/f" + std::to_string(i)));
  }
  WriteFile(root + "/f4", "x");
  EXPECT_FALSE(spares.Recycle(root + "/f4"));
  EXPECT_EQ(ReadFile(root + "/f4"), "x");

  auto other = SpareFiles::Open(testing_env::MakeTempDir("spares") + "/.spare", 1);
  ASSERT_TRUE(other.ok());
  ASSERT_EQ(::mkdir((root + "/d").c_str(), 0755), 0);
  EXPECT_FALSE((*other)->Recycle(root + "/d"));
  EXPECT_TRUE(Exists(root + "/d"));
  EXPECT_FALSE((*other)->Recycle(root + "/missing"));
}

// After a crash on a file system without a journal, a spare's name can survive beside the object
// it was renamed to, both naming one inode. Opening must drop the name and leave the object.
TEST(SpareFiles, LeftoverSparesAreUnlinkedAtOpenAndAnObjectSharingOneKeepsItsBytes) {
  const std::string root = testing_env::MakeTempDir("spares");
  const std::string dir = root + "/.spare";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  const std::string bytes = RandomBytes(300 << 10, 2);
  WriteFile(root + "/object", bytes);
  ASSERT_EQ(::link((root + "/object").c_str(), (dir + "/99-0").c_str()), 0);
  WriteFile(dir + "/99-1", "stale");
  auto spares = SpareFiles::Open(dir, 2);
  ASSERT_TRUE(spares.ok()) << spares.status();
  EXPECT_FALSE(Exists(dir + "/99-0"));
  EXPECT_FALSE(Exists(dir + "/99-1"));
  EXPECT_EQ(Stat(root + "/object").st_nlink, 1u);
  // Takes until every new spare was used: none of them is the object's inode.
  const ino_t object = Stat(root + "/object").st_ino;
  (*spares)->TakeAs(root + "/t0");  // none ready yet; this starts the refill
  ASSERT_TRUE(WaitForReady(**spares, 2));
  for (int i = 1; i <= 4; ++i) {
    ASSERT_TRUE(WaitForReady(**spares, 1));
    ASSERT_TRUE((*spares)->TakeAs(root + "/t" + std::to_string(i)));
    EXPECT_NE(Stat(root + "/t" + std::to_string(i)).st_ino, object);
  }
  EXPECT_EQ(ReadFile(root + "/object"), bytes);
}

// A node opens its data and WAL stores on one root: the second must not unlink the first's spares.
TEST(SpareFiles, StoresOnOneRootShareOnePool) {
  const std::string root = testing_env::MakeTempDir("spares");
  auto first = FileStore::Open(root);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE((*first)->PutUnpublished("a", "x").ok());  // starts the refill
  auto pool = SpareFiles::Shared(root + "/.spare", 32);
  ASSERT_TRUE(pool.ok());
  ASSERT_TRUE(WaitForReady(**pool, 32));
  auto second = FileStore::Open(root);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ((*pool)->ready(), 32u);
  EXPECT_TRUE(Exists(root + "/.spare/" + std::to_string(::getpid()) + "-0"));
  ASSERT_TRUE((*second)->PutUnpublished("b", "y").ok());
  EXPECT_EQ(*(*first)->Get("b"), "y");
}

// Through the file store: objects of every size, written both ways into recycled and fresh
// inodes while older ones are deleted, read back byte for byte; the pool stays out of listings.
TEST(SpareFiles, FileStoreObjectsWrittenIntoRecycledInodesReadBackExactly) {
  const std::string root = testing_env::MakeTempDir("spares");
  auto opened = FileStore::Open(root);
  ASSERT_TRUE(opened.ok()) << opened.status();
  FileStore& store = **opened;
  std::mt19937_64 rng(7);
  std::map<std::string, std::string> live;
  for (int i = 0; i < 60; ++i) {
    // Sizes around the O_DIRECT threshold and the 4 KiB alignment, big and small in turn.
    const size_t size = (i % 2 == 0) ? (256 << 10) + rng() % (700 << 10) : rng() % 5000;
    const std::string key = "o/" + std::to_string(i);
    const std::string data = RandomBytes(size, 100 + i);
    Status put = (i % 3 == 0) ? store.Put(key, data) : store.PutUnpublished(key, data);
    ASSERT_TRUE(put.ok()) << put;
    live[key] = data;
    if (i >= 3) {
      const std::string old = "o/" + std::to_string(i - 3);
      ASSERT_TRUE(store.Delete(old).ok());
      live.erase(old);
      EXPECT_EQ(store.Get(old).status().code(), StatusCode::kNotFound);
    }
    for (const auto& [k, v] : live) {
      auto got = store.Get(k);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->size(), v.size()) << k;
      ASSERT_TRUE(*got == v) << k << " differs after " << i << " puts";
    }
  }
  auto listed = store.List("");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), live.size());
  for (const ObjectInfo& info : *listed) EXPECT_TRUE(live.count(info.key)) << info.key;
  // Deleted objects' space is freed: every spare is empty.
  for (int n = 0; n < 1000; ++n) {
    const std::string spare =
        root + "/.spare/" + std::to_string(::getpid()) + "-" + std::to_string(n);
    if (Exists(spare)) {
      EXPECT_EQ(Stat(spare).st_size, 0) << spare;
    }
  }
}

}  // namespace
}  // namespace mink::object_store
