// Crash test: a child process appends and records each acknowledged offset; it is killed with
// SIGKILL at random moments, again and again. After every kill, each acknowledged record must be
// readable at its offset, in order, exactly once, and the next run must continue at the
// committed end.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "object_store/file_store.h"
#include "test_env.h"
#include "test_node.h"

namespace mink::storage {
namespace {

pid_t Spawn(const std::vector<std::string>& args) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

struct AckLog {
  std::map<std::string, int64_t> opens;            // run -> end offset it opened at
  std::vector<std::pair<int64_t, std::string>> acks;  // offset, payload
};

AckLog ReadAckLog(const std::string& path) {
  AckLog log;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind, a, b;
    words >> kind >> a >> b;
    if (kind == "open" && !b.empty()) log.opens[a] = std::stoll(b);
    if (kind == "ack" && !b.empty()) log.acks.emplace_back(std::stoll(a), b);
  }
  return log;
}

TEST(CrashTest, AcknowledgedRecordsSurviveRepeatedSigkill) {
  std::string dir = testing_env::MakeTempDir("crash");
  std::string meta_url = "sqlite:" + dir + "/meta.db";
  std::string objects = dir + "/objects";
  std::string ack_path = dir + "/acks.log";
  std::mt19937 rng(std::random_device{}());
  constexpr int kKills = 22;
  int64_t committed_end = 0;
  int runs_with_acks = 0;
  for (int run = 0; run < kKills; ++run) {
    pid_t child = Spawn({MINK_CRASH_CHILD, meta_url, objects, ack_path, std::to_string(run)});
    ASSERT_GT(child, 0);
    // Some kills land during start-up, most while appends are in flight.
    int delay_ms = run % 5 == 0 ? std::uniform_int_distribution<int>(1, 40)(rng)
                                : std::uniform_int_distribution<int>(150, 600)(rng);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status) || WEXITSTATUS(status) == 0)
        << "child failed on its own with status " << WEXITSTATUS(status);

    AckLog log = ReadAckLog(ack_path);
    auto opened = log.opens.find(std::to_string(run));
    if (opened != log.opens.end()) {
      // The run continued exactly where the committed stream ended.
      EXPECT_EQ(opened->second, committed_end) << "run " << run;
    }
    auto fs = object_store::FileStore::Open(objects);
    ASSERT_TRUE(fs.ok());
    std::shared_ptr<object_store::ObjectStore> store = std::move(*fs);
    auto reader = testing::TestNode::Start(meta_url, StoreSet{store, -2, store, -3}, 2);
    ASSERT_NE(reader, nullptr);
    bool exists = reader->meta->Read([](const metadata::State& s) { return s.FindStream(1) != nullptr; });
    if (!exists) continue;
    std::map<int64_t, std::string> stored;
    std::set<std::string> payloads;
    int64_t expect = 0;
    for (const auto& batch : testing::ReadAll(reader->store.get(), 1)) {
      ASSERT_EQ(batch->base_offset, expect) << "offsets must be dense";
      expect = batch->end_offset();
      stored[batch->base_offset] = batch->payload.view();
      ASSERT_TRUE(payloads.emplace(batch->payload.view()).second)
          << "stored twice: " << batch->payload.view();
    }
    for (const auto& [offset, payload] : log.acks) {
      auto it = stored.find(offset);
      ASSERT_NE(it, stored.end()) << "acknowledged offset " << offset << " (" << payload << ") lost";
      ASSERT_EQ(it->second, payload) << "at offset " << offset;
    }
    if (!log.acks.empty()) ++runs_with_acks;
    committed_end = expect;
  }
  // The test only means something if most runs got records acknowledged before the kill.
  EXPECT_GE(runs_with_acks, kKills / 2);
  std::printf("crash test: %d kills, %lld offsets committed\n", kKills,
              static_cast<long long>(committed_end));
}

}  // namespace
}  // namespace mink::storage
