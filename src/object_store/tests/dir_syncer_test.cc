#include "object_store/dir_syncer.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "test_env.h"

namespace mink::object_store {
namespace {

TEST(DirSyncer, EveryWaiterOfAnExistingDirectoryGetsOk) {
  std::string dir = testing_env::MakeTempDir("dirsync");
  DirSyncer syncer;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        uint64_t ticket = syncer.Request(dir);
        EXPECT_TRUE(syncer.Wait(dir, ticket).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
}

TEST(DirSyncer, AFailedFsyncIsReportedToItsWaitersNamingTheDirectory) {
  std::string dir = testing_env::MakeTempDir("dirsync") + "/missing";
  DirSyncer syncer;
  uint64_t ticket = syncer.Request(dir);
  Status s = syncer.Wait(dir, ticket);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir), std::string::npos) << s;
  // Another directory is not affected.
  std::string good = testing_env::MakeTempDir("dirsync");
  EXPECT_TRUE(syncer.Wait(good, syncer.Request(good)).ok());
}

}  // namespace
}  // namespace mink::object_store
