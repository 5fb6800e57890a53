#include "metadata/metadata_log.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "test_databases.h"

namespace mink::metadata {
namespace {

class MetadataLogTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    url_ = testing::FreshDatabaseUrl(GetParam());
    if (url_.empty()) GTEST_SKIP() << "no " << GetParam() << " server";
  }
  std::unique_ptr<MetadataLog> OpenLog(MetadataOptions options = {}) {
    auto log = MetadataLog::Open(url_, options);
    EXPECT_TRUE(log.ok()) << log.status();
    return log.ok() ? std::move(*log) : nullptr;
  }
  std::string url_;
};

// Appends "create the next stream" — a command whose validity depends on the exact state.
Result<int64_t> CreateNextStream(MetadataLog* log, const std::string& name) {
  return log->Append([&](const State& s) -> Result<Command> {
    return Command(CreateStream{s.next_stream_id(), name});
  });
}

TEST_P(MetadataLogTest, StateSurvivesReopen) {
  std::string before;
  {
    auto log = OpenLog();
    ASSERT_TRUE(log->Append(RegisterNode{1, 1}).ok());
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(CreateNextStream(log.get(), "s").ok());
    before = log->Read([](const State& s) { return s.Serialize(); });
  }
  auto again = OpenLog();
  EXPECT_EQ(again->applied_seq(), 6);
  EXPECT_EQ(again->Read([](const State& s) { return s.Serialize(); }), before);
}

TEST_P(MetadataLogTest, AnInvalidCommandIsRefusedAndNotLogged) {
  auto log = OpenLog();
  ASSERT_TRUE(log->Append(RegisterNode{1, 1}).ok());
  auto refused = log->Append(RegisterNode{1, 5});
  EXPECT_TRUE(IsAborted(refused.status())) << refused.status();
  EXPECT_EQ(log->applied_seq(), 1);
  EXPECT_EQ(log->store()->ReadAfter(0, 10)->size(), 1u);
}

TEST_P(MetadataLogTest, SnapshotsLetANewNodeSkipPrunedCommands) {
  MetadataOptions options;
  options.snapshot_every = 10;
  options.keep_snapshots = 2;
  std::string expected;
  {
    auto log = OpenLog(options);
    for (int i = 0; i < 35; ++i) ASSERT_TRUE(CreateNextStream(log.get(), "s").ok());
    expected = log->Read([](const State& s) { return s.Serialize(); });
  }
  // The snapshot at 30 is the newest; commands up to the one kept before it (20, or 10 when the
  // snapshotter found 30 already queued at 20 and passed 20 over) are pruned.
  auto remaining = OpenLogStore(url_);
  ASSERT_TRUE(remaining.ok());
  auto first = (*remaining)->ReadAfter(0, 1);
  ASSERT_TRUE(first.ok());
  ASSERT_FALSE(first->empty());
  EXPECT_TRUE(first->front().seq == 21 || first->front().seq == 11) << first->front().seq;
  auto snapshot = (*remaining)->LatestSnapshot();
  ASSERT_TRUE(snapshot.ok() && snapshot->has_value());
  EXPECT_EQ((*snapshot)->seq, 30);
  auto log = OpenLog(options);
  EXPECT_EQ(log->applied_seq(), 35);
  EXPECT_EQ(log->Read([](const State& s) { return s.Serialize(); }), expected);
}

// The snapshot writes a store was asked for (seq and size), held while `held` is set.
struct SnapshotGate {
  std::mutex mutex;
  std::condition_variable cv;
  bool held = false;
  std::vector<std::pair<int64_t, size_t>> started;

  std::vector<std::pair<int64_t, size_t>> Started() {
    std::lock_guard<std::mutex> lock(mutex);
    return started;
  }
  std::vector<int64_t> StartedSeqs() {
    std::vector<int64_t> seqs;
    for (const auto& [seq, size] : Started()) seqs.push_back(seq);
    return seqs;
  }
};

class GatedSnapshots final : public ForwardingLogStore {
 public:
  GatedSnapshots(std::unique_ptr<LogStore> inner, SnapshotGate* gate)
      : ForwardingLogStore(std::move(inner)), gate_(gate) {}
  Status WriteSnapshot(const SnapshotRecord& snapshot) override {
    {
      std::unique_lock<std::mutex> lock(gate_->mutex);
      gate_->started.emplace_back(snapshot.seq, snapshot.body.size());
      gate_->cv.notify_all();
      gate_->cv.wait(lock, [&] { return !gate_->held; });
    }
    return ForwardingLogStore::WriteSnapshot(snapshot);
  }

 private:
  SnapshotGate* const gate_;
};

TEST_P(MetadataLogTest, AppendsGoOnWhileASnapshotIsWritten) {
  MetadataOptions options;
  options.snapshot_every = 5;
  options.keep_snapshots = 1;
  SnapshotGate gate;
  gate.held = true;
  std::string expected;
  {
    auto store = OpenLogStore(url_);
    ASSERT_TRUE(store.ok()) << store.status();
    auto log = MetadataLog::Open(std::make_unique<GatedSnapshots>(std::move(*store), &gate),
                                 options);
    ASSERT_TRUE(log.ok()) << log.status();
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(CreateNextStream(log->get(), "s").ok());
    {
      std::unique_lock<std::mutex> lock(gate.mutex);
      ASSERT_TRUE(gate.cv.wait_for(lock, std::chrono::seconds(10),
                                   [&] { return !gate.started.empty(); }));
    }
    // The snapshot at 5 is held; appends must not wait for it.
    for (int i = 0; i < 17; ++i) ASSERT_TRUE(CreateNextStream(log->get(), "s").ok());
    expected = (*log)->Read([](const State& s) { return s.Serialize(); });
    {
      std::lock_guard<std::mutex> lock(gate.mutex);
      gate.held = false;
    }
    gate.cv.notify_all();
  }  // closing writes the snapshot still due: the one at 20, which overtook 10 and 15
  EXPECT_EQ(gate.StartedSeqs(), (std::vector<int64_t>{5, 20}));
  auto remaining = OpenLogStore(url_);
  ASSERT_TRUE(remaining.ok());
  auto first = (*remaining)->ReadAfter(0, 1);
  ASSERT_TRUE(first.ok() && !first->empty());
  EXPECT_EQ(first->front().seq, 21);
  auto log = OpenLog(options);
  EXPECT_EQ(log->applied_seq(), 22);
  EXPECT_EQ(log->Read([](const State& s) { return s.Serialize(); }), expected);
}

// Once snapshots outgrow one part, the next waits until the log has grown by twice the last
// one's size: a large state is not rewritten every `snapshot_every` commands.
TEST_P(MetadataLogTest, LargeSnapshotsWaitForTheLogToGrowByTwiceTheirSize) {
  MetadataOptions options;
  options.snapshot_every = 10;
  SnapshotGate snapshots;  // never held
  std::map<int64_t, size_t> command_bytes;  // by seq, as stored
  auto log_bytes = [&](int64_t after, int64_t upto) {
    size_t sum = 0;
    for (auto it = command_bytes.upper_bound(after); it != command_bytes.end() && it->first <= upto;
         ++it) {
      sum += it->second;
    }
    return sum;
  };
  int64_t large_seq = 0;
  size_t large_size = 0;
  {
    auto store = OpenLogStore(url_);
    ASSERT_TRUE(store.ok()) << store.status();
    auto log = MetadataLog::Open(std::make_unique<GatedSnapshots>(std::move(*store), &snapshots),
                                 options);
    ASSERT_TRUE(log.ok()) << log.status();
    auto append = [&](auto make) {
      auto appended = (*log)->Append([&](const State& s) -> Result<Command> {
        Command command = make(s);
        command_bytes[s.applied_seq() + 1] = EncodeBody(command).size();
        return command;
      });
      ASSERT_TRUE(appended.ok()) << appended.status();
    };
    auto stream_with_long_name = [](const State& s) -> Command {
      return CreateStream{s.next_stream_id(), std::string(3000, 'a' + s.next_stream_id() % 26)};
    };
    // 1. 100 streams with 3,000-byte names: the state passes one part (256 KiB) at about 85,
    // and the first snapshot larger than that is written at 90 or 100.
    for (int i = 0; i < 100; ++i) append(stream_with_long_name);
    for (int i = 0; i < 1000 && large_seq == 0; ++i) {
      for (const auto& [seq, size] : snapshots.Started()) {
        if (size > Snapshotter::kSmallSnapshotBytes && large_seq == 0) {
          large_seq = seq;
          large_size = size;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(large_seq == 90 || large_seq == 100) << "first large snapshot at " << large_seq;
    // 2. 500 small commands (well under twice that size together): no snapshot, though they
    // pass 50 snapshot points.
    for (int i = 1; i <= 500; ++i) append([&](const State&) -> Command { return RegisterNode{7, i}; });
    // 3. 250 more long names, 750 KB of log: a snapshot is due again after about 200 of them.
    for (int i = 0; i < 250; ++i) append(stream_with_long_name);
  }  // closing writes a snapshot still due
  const auto written = snapshots.Started();
  std::vector<int64_t> after_large;
  for (const auto& [seq, size] : written) {
    EXPECT_EQ(seq % 10, 0) << seq;
    if (seq > large_seq) after_large.push_back(seq);
  }
  ASSERT_FALSE(after_large.empty()) << "nothing written after the log grew by 750 KB";
  EXPECT_GT(after_large.front(), 600) << "a snapshot during the small commands";
  EXPECT_GE(log_bytes(large_seq, after_large.front()), 2 * large_size);
  auto reopened = OpenLog(options);
  EXPECT_EQ(reopened->applied_seq(), 850);
}

TEST_P(MetadataLogTest, ATailerSeesAnotherWritersCommands) {
  auto a = OpenLog();
  auto b = OpenLog();
  ASSERT_TRUE(a->Append(RegisterNode{7, 1}).ok());
  EXPECT_EQ(b->WaitApplied(0, std::chrono::seconds(5)), 1);
  EXPECT_EQ(b->Read([](const State& s) { return s.NodeEpoch(7); }), 1);
}

// Two clients append concurrently; the log must have no gap and no duplicate seq, every append
// must land exactly once, and both clients must reach the same state.
void ConcurrentAppends(const std::string& url, bool use_lock) {
  MetadataOptions options;
  options.use_append_lock = use_lock;
  options.snapshot_every = 0;
  auto a = MetadataLog::Open(url, options);
  auto b = MetadataLog::Open(url, options);
  ASSERT_TRUE(a.ok() && b.ok());
  constexpr int kPerClient = 150;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (MetadataLog* log : {a->get(), b->get()}) {
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&, log] {
        for (int i = 0; i < kPerClient / 2; ++i) {
          if (!CreateNextStream(log, "c").ok()) ++failures;
        }
      });
    }
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_TRUE((*a)->CatchUp().ok());
  ASSERT_TRUE((*b)->CatchUp().ok());
  auto records = (*a)->store()->ReadAfter(0, 10000);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), static_cast<size_t>(2 * kPerClient));
  std::set<std::string> ids;
  for (size_t i = 0; i < records->size(); ++i) {
    EXPECT_EQ((*records)[i].seq, static_cast<int64_t>(i + 1));  // no gap, no duplicate
    ids.insert((*records)[i].id);
  }
  EXPECT_EQ(ids.size(), records->size());
  std::string sa = (*a)->Read([](const State& s) { return s.Serialize(); });
  std::string sb = (*b)->Read([](const State& s) { return s.Serialize(); });
  EXPECT_EQ(sa, sb);
  EXPECT_EQ((*a)->Read([](const State& s) { return s.next_stream_id(); }),
            static_cast<uint64_t>(2 * kPerClient + 1));
}

TEST_P(MetadataLogTest, ConcurrentAppendersWithTheLockNeverDivergeOrGap) {
  ConcurrentAppends(url_, true);
}

TEST_P(MetadataLogTest, ConcurrentAppendersRetryingOnConflictNeverDivergeOrGap) {
  ConcurrentAppends(url_, false);
}

INSTANTIATE_TEST_SUITE_P(Backends, MetadataLogTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mink::metadata
