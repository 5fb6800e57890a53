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

// Snapshot writes that wait until the test releases them, with the seqs they were asked for.
struct SnapshotGate {
  std::mutex mutex;
  std::condition_variable cv;
  bool released = false;
  std::vector<int64_t> started;
};

class GatedSnapshots final : public ForwardingLogStore {
 public:
  GatedSnapshots(std::unique_ptr<LogStore> inner, SnapshotGate* gate)
      : ForwardingLogStore(std::move(inner)), gate_(gate) {}
  Status WriteSnapshot(const SnapshotRecord& snapshot) override {
    {
      std::unique_lock<std::mutex> lock(gate_->mutex);
      gate_->started.push_back(snapshot.seq);
      gate_->cv.notify_all();
      gate_->cv.wait(lock, [&] { return gate_->released; });
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
      gate.released = true;
    }
    gate.cv.notify_all();
  }  // closing writes the snapshot still due: the one at 20, which overtook 10 and 15
  EXPECT_EQ(gate.started, (std::vector<int64_t>{5, 20}));
  auto remaining = OpenLogStore(url_);
  ASSERT_TRUE(remaining.ok());
  auto first = (*remaining)->ReadAfter(0, 1);
  ASSERT_TRUE(first.ok() && !first->empty());
  EXPECT_EQ(first->front().seq, 21);
  auto log = OpenLog(options);
  EXPECT_EQ(log->applied_seq(), 22);
  EXPECT_EQ(log->Read([](const State& s) { return s.Serialize(); }), expected);
}

// Snapshot writes as they reach the store: seq and size.
class RecordedSnapshots final : public ForwardingLogStore {
 public:
  RecordedSnapshots(std::unique_ptr<LogStore> inner,
                    std::vector<std::pair<int64_t, size_t>>* written)
      : ForwardingLogStore(std::move(inner)), written_(written) {}
  Status WriteSnapshot(const SnapshotRecord& snapshot) override {
    written_->emplace_back(snapshot.seq, snapshot.body.size());
    return ForwardingLogStore::WriteSnapshot(snapshot);
  }

 private:
  std::vector<std::pair<int64_t, size_t>>* const written_;
};

// Once snapshots outgrow one part, the next waits until the log has grown by twice the last
// one's size: a large state is not rewritten every `snapshot_every` commands.
TEST_P(MetadataLogTest, LargeSnapshotsWaitForTheLogToGrowByTwiceTheirSize) {
  MetadataOptions options;
  options.snapshot_every = 10;
  std::vector<std::pair<int64_t, size_t>> written;  // only the snapshotter's thread adds
  std::map<int64_t, size_t> command_bytes;           // by seq
  constexpr int kCommands = 400;
  {
    auto store = OpenLogStore(url_);
    ASSERT_TRUE(store.ok()) << store.status();
    auto log = MetadataLog::Open(std::make_unique<RecordedSnapshots>(std::move(*store), &written),
                                 options);
    ASSERT_TRUE(log.ok()) << log.status();
    // Each command adds a stream with a 3,000-byte name: the state grows by about as much as
    // the log, and passes one part (256 KiB) after about 90 commands.
    for (int i = 0; i < kCommands; ++i) {
      auto appended = (*log)->Append([&](const State& s) -> Result<Command> {
        Command command = CreateStream{s.next_stream_id(), std::string(3000, 'a' + i % 26)};
        command_bytes[s.applied_seq() + 1] = EncodeBody(command).size();  // as it is stored
        return command;
      });
      ASSERT_TRUE(appended.ok()) << appended.status();
    }
  }  // closing writes a snapshot still due
  auto log_bytes = [&](int64_t after, int64_t upto) {
    size_t sum = 0;
    for (auto it = command_bytes.upper_bound(after); it != command_bytes.end() && it->first <= upto; ++it) {
      sum += it->second;
    }
    return sum;
  };
  ASSERT_GE(written.size(), 2u);
  bool large_seen = false;
  for (size_t i = 0; i < written.size(); ++i) {
    EXPECT_EQ(written[i].first % 10, 0) << written[i].first;
    if (i == 0) continue;
    const auto [before_seq, before_size] = written[i - 1];
    if (before_size > Snapshotter::kSmallSnapshotBytes) {
      large_seen = true;
      EXPECT_GE(log_bytes(before_seq, written[i].first), 2 * before_size)
          << "snapshot at " << written[i].first << " after one of " << before_size << " bytes at "
          << before_seq;
    }
  }
  EXPECT_TRUE(large_seen) << "no snapshot larger than one part was followed by another";
  // Every 10 commands would be 40 snapshots; the state reaches about 1.2 MB.
  EXPECT_LT(written.size(), 20u);
  auto reopened = OpenLog(options);
  EXPECT_EQ(reopened->applied_seq(), kCommands);
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
