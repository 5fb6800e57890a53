// The metadata log when the database's answer to a COMMIT is lost: the append must learn from
// the log whether its command landed, whichever thread applied it, and never guess.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

#include "metadata/metadata_log.h"
#include "test_databases.h"

namespace mink::metadata {
namespace {

// Forwards to a real store; when armed, the next append transaction commits for real and then
// reports the connection lost (the server got COMMIT, its answer never arrived). Until
// `on_lost` has run to its end, later appends fail as if the database were unreachable, so what
// `on_lost` does (another thread applying the log) happens before the appender retries.
class LosesCommitReply final : public ForwardingLogStore {
 public:
  explicit LosesCommitReply(std::unique_ptr<LogStore> inner)
      : ForwardingLogStore(std::move(inner)) {}

  void Arm(std::function<void()> on_lost) {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = true;
    on_lost_ = std::move(on_lost);
  }
  // After the lost reply, every append fails (the database stays unreachable).
  void StayDown() { stay_down_ = true; }
  // When armed, the transaction is not committed either (the connection dropped before COMMIT).
  void LoseBeforeCommit() { before_commit_ = true; }
  int lost() const { return lost_; }

  Status WithAppendLock(const std::function<Status()>& fn) override {
    bool lose = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (lost_ > 0 && (stay_down_ || !on_lost_done_)) {
        return UnavailableError("connection to the database refused");
      }
      lose = armed_;
      armed_ = false;
    }
    if (!lose) return ForwardingLogStore::WithAppendLock(fn);
    Status s = ForwardingLogStore::WithAppendLock([&]() -> Status {
      Status done = fn();
      // Failing the transaction rolls it back: the connection dropped before COMMIT.
      if (done.ok() && before_commit_) return UnavailableError("connection lost before COMMIT");
      return done;
    });
    if (!s.ok() && !before_commit_) return s;
    ++lost_;
    if (on_lost_) {
      // Runs beside the appender, as the tailer does: it waits for the appender's lock.
      std::thread([this] {
        on_lost_();
        std::lock_guard<std::mutex> lock(mutex_);
        on_lost_done_ = true;
      }).detach();
    } else {
      on_lost_done_ = true;
    }
    return before_commit_ ? s
                          : UnavailableError("server closed the connection unexpectedly (after COMMIT)");
  }

 private:
  std::mutex mutex_;
  bool armed_ = false;
  bool before_commit_ = false;
  std::atomic<bool> stay_down_{false};
  std::function<void()> on_lost_;
  std::atomic<int> lost_{0};
  bool on_lost_done_ = false;
};

class MetadataLogFaultTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    url_ = testing::FreshDatabaseUrl(GetParam());
    if (url_.empty()) GTEST_SKIP() << "no " << GetParam() << " server";
    auto store = OpenLogStore(url_);
    ASSERT_TRUE(store.ok()) << store.status();
    auto faulty = std::make_unique<LosesCommitReply>(std::move(*store));
    faulty_ = faulty.get();
    MetadataOptions options;
    options.snapshot_every = 0;
    options.append_timeout = std::chrono::milliseconds(3000);
    auto log = MetadataLog::Open(std::move(faulty), options);
    ASSERT_TRUE(log.ok()) << log.status();
    log_ = std::move(*log);
  }
  void TearDown() override { log_.reset(); }

  // "Create the next stream": a command whose meaning depends on the state it is built from, so
  // an append that rebuilds it after it landed would create a second stream.
  Result<int64_t> CreateNextStream() {
    return log_->Append([](const State& s) -> Result<Command> {
      return Command(CreateStream{s.next_stream_id(), "s"});
    });
  }
  size_t CommandsInLog() {
    auto records = OpenLogStore(url_).value()->ReadAfter(0, 1000);
    EXPECT_TRUE(records.ok());
    return records.ok() ? records->size() : 0;
  }

  std::string url_;
  LosesCommitReply* faulty_ = nullptr;
  std::unique_ptr<MetadataLog> log_;
};

TEST_P(MetadataLogFaultTest, ACommandAppliedByAnotherThreadAfterALostReplyIsSuccess) {
  ASSERT_TRUE(log_->Append(RegisterNode{1, 1}).ok());
  // The tailer (here: any thread catching up) applies the landed command before the retry.
  faulty_->Arm([this] { ASSERT_TRUE(log_->CatchUp().ok()); });
  auto seq = CreateNextStream();
  ASSERT_TRUE(seq.ok()) << seq.status();
  EXPECT_EQ(faulty_->lost(), 1);
  EXPECT_EQ(*seq, 2);
  EXPECT_EQ(CommandsInLog(), 2u);  // landed once, not built again on top of itself
  EXPECT_EQ(log_->Read([](const State& s) { return s.next_stream_id(); }), 2u);
}

TEST_P(MetadataLogFaultTest, ACommandThatDidNotLandIsAppendedOnce) {
  ASSERT_TRUE(log_->Append(RegisterNode{1, 1}).ok());
  faulty_->LoseBeforeCommit();
  faulty_->Arm([this] { ASSERT_TRUE(log_->CatchUp().ok()); });
  auto seq = CreateNextStream();
  ASSERT_TRUE(seq.ok()) << seq.status();
  EXPECT_EQ(faulty_->lost(), 1);
  EXPECT_EQ(*seq, 2);
  EXPECT_EQ(CommandsInLog(), 2u);
  EXPECT_EQ(log_->Read([](const State& s) { return s.next_stream_id(); }), 2u);
}

TEST_P(MetadataLogFaultTest, AnOutcomeThatCannotBeLearntIsReportedAsUnknown) {
  ASSERT_TRUE(log_->Append(RegisterNode{1, 1}).ok());
  faulty_->StayDown();
  faulty_->Arm(nullptr);
  auto seq = CreateNextStream();
  ASSERT_FALSE(seq.ok());
  EXPECT_TRUE(IsOutcomeUnknown(seq.status())) << seq.status();
  EXPECT_TRUE(IsUnavailable(seq.status())) << seq.status();  // retryable
  EXPECT_EQ(CommandsInLog(), 2u);  // it did land: "unknown" was the truth, not a refusal
}

TEST_P(MetadataLogFaultTest, AFailureBeforeAnythingWasSentIsNotUnknown) {
  ASSERT_TRUE(log_->Append(RegisterNode{1, 1}).ok());
  faulty_->StayDown();
  faulty_->Arm(nullptr);
  ASSERT_FALSE(CreateNextStream().ok());  // lands, reply lost, database gone
  // The next append never reaches the database: a plain failure, nothing in doubt.
  auto seq = CreateNextStream();
  ASSERT_FALSE(seq.ok());
  EXPECT_TRUE(IsUnavailable(seq.status())) << seq.status();
  EXPECT_FALSE(IsOutcomeUnknown(seq.status())) << seq.status();
}

INSTANTIATE_TEST_SUITE_P(Backends, MetadataLogFaultTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mink::metadata
