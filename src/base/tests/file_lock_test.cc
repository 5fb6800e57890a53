#include "base/file_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

namespace mink {
namespace {

std::string TempLockPath() {
  return (std::filesystem::temp_directory_path() /
          ("mink-file-lock-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name()))
      .string();
}

TEST(FileLock, ASecondHolderIsRefusedUntilTheFirstLetsGo) {
  const std::string path = TempLockPath();
  auto first = FileLock::TryAcquire(path);
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = FileLock::TryAcquire(path);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(second.status().message().find("pid " + std::to_string(::getpid())),
            std::string::npos)
      << second.status();
  first->reset();
  EXPECT_TRUE(FileLock::TryAcquire(path).ok());
  std::filesystem::remove(path);
}

TEST(FileLock, ALockDiesWithItsProcess) {
  const std::string path = TempLockPath();
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto held = FileLock::TryAcquire(path);
    char c = held.ok() ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    ::pause();
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  EXPECT_FALSE(FileLock::TryAcquire(path).ok());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(FileLock::TryAcquire(path).ok());  // no stale lock after kill -9
  ::close(ready[0]);
  ::close(ready[1]);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace mink
