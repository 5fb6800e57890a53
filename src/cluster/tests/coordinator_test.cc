#include "cluster/coordinator.h"

#include <gtest/gtest.h>

#include "base/clock.h"
#include "test_env.h"

namespace mink::cluster {
namespace {

using namespace std::chrono_literals;

// Two nodes over one metadata database, with one manual clock.
class CoordinatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = "sqlite:" + testing_env::MakeTempDir("coordinator") + "/meta.db";
    a_ = Open();
    b_ = Open();
    ASSERT_TRUE(a_->Append(metadata::Command(metadata::RegisterNode{1, 1})).ok());
    ASSERT_TRUE(b_->Append(metadata::Command(metadata::RegisterNode{2, 1})).ok());
    ASSERT_TRUE(a_->CatchUp().ok());
  }

  std::unique_ptr<metadata::MetadataLog> Open() {
    metadata::MetadataOptions options;
    options.clock = &clock_;
    auto meta = metadata::MetadataLog::Open(url_, options);
    EXPECT_TRUE(meta.ok()) << meta.status();
    return std::move(*meta);
  }

  metadata::CoordinatorState Elected(metadata::MetadataLog* meta) {
    EXPECT_TRUE(meta->CatchUp().ok());
    return meta->Read([](const metadata::State& s) { return s.coordinator(); });
  }

  // Any command a coordinator might append (a writer id: it needs no setup).
  static metadata::MetadataLog::Builder AnyCommand() {
    return [](const metadata::State& s) -> Result<metadata::Command> {
      return metadata::Command(metadata::AllocateWriterId{s.next_writer_id()});
    };
  }

  ManualClock clock_;
  std::string url_;
  std::unique_ptr<metadata::MetadataLog> a_, b_;
};

TEST_F(CoordinatorTest, OneNodeTakesTheLeaseAndIsElectedInTheLog) {
  Coordinator first(a_.get(), {1, 1}, 9000ms);
  Coordinator second(b_.get(), {2, 1}, 9000ms);
  EXPECT_TRUE(*first.Tick());
  EXPECT_FALSE(*second.Tick());
  EXPECT_TRUE(first.is_coordinator());
  EXPECT_FALSE(second.is_coordinator());
  const auto elected = Elected(b_.get());
  EXPECT_EQ(elected.node_id, 1);
  EXPECT_EQ(elected.lease_epoch, first.lease_epoch());
  // Renewing keeps the lease and elects nothing again.
  const int64_t seq = a_->applied_seq();
  clock_.Advance(1000);
  EXPECT_TRUE(*first.Tick());
  EXPECT_EQ(a_->applied_seq(), seq);
  EXPECT_TRUE(first.Append(AnyCommand()).ok());
  auto refused = second.Append(AnyCommand());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition) << refused.status();
}

TEST_F(CoordinatorTest, ACoordinatorThatStopsRenewingIsReplacedAndCannotAppend) {
  Coordinator first(a_.get(), {1, 1}, 9000ms);
  Coordinator second(b_.get(), {2, 1}, 9000ms);
  ASSERT_TRUE(*first.Tick());
  const int64_t first_epoch = first.lease_epoch();
  clock_.Advance(8000);
  EXPECT_FALSE(*second.Tick()) << "the lease has not expired yet";
  clock_.Advance(2000);  // 10 s without a renewal: past the 9 s lease
  EXPECT_TRUE(*second.Tick());
  EXPECT_GT(second.lease_epoch(), first_epoch);
  EXPECT_EQ(Elected(a_.get()).node_id, 2);
  // The old coordinator still believes it holds the lease until its next round, but anything it
  // appends meanwhile is refused in the insert's transaction.
  ASSERT_TRUE(first.is_coordinator());
  auto stale = first.Append(AnyCommand());
  EXPECT_EQ(stale.status().code(), StatusCode::kFailedPrecondition) << stale.status();
  EXPECT_FALSE(*first.Tick());
  EXPECT_FALSE(first.is_coordinator());
  EXPECT_TRUE(second.Append(AnyCommand()).ok());
}

TEST_F(CoordinatorTest, ARestartedNodeTakesItsEarlierStartsLeaseOverAtOnce) {
  Coordinator killed(a_.get(), {1, 1}, 9000ms);
  ASSERT_TRUE(*killed.Tick());
  // Node 1 starts again (kill -9: no release) while its lease has 8 s left.
  ASSERT_TRUE(a_->Append(metadata::Command(metadata::RegisterNode{1, 2})).ok());
  clock_.Advance(1000);
  Coordinator other(b_.get(), {2, 1}, 9000ms);
  EXPECT_FALSE(*other.Tick()) << "another node waits for the lease to expire";
  Coordinator restarted(a_.get(), {1, 2}, 9000ms);
  EXPECT_TRUE(*restarted.Tick());
  EXPECT_GT(restarted.lease_epoch(), killed.lease_epoch());
  EXPECT_EQ(Elected(b_.get()).node_epoch, 2);
  // The earlier start could not append had it survived, nor win the lease back.
  EXPECT_EQ(killed.Append(AnyCommand()).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_FALSE(*killed.Tick());
  EXPECT_TRUE(restarted.Append(AnyCommand()).ok());
}

TEST_F(CoordinatorTest, ACoordinatorThatStopsHandsTheLeaseOnAtOnce) {
  auto first = std::make_unique<Coordinator>(a_.get(), NodeProcess{1, 1}, 9000ms);
  Coordinator second(b_.get(), {2, 1}, 9000ms);
  ASSERT_TRUE(*first->Tick());
  first->Stop();
  clock_.Advance(1);  // no time to live is left: any later round takes it
  EXPECT_TRUE(*second.Tick());
  EXPECT_EQ(Elected(a_.get()).node_id, 2);
}

TEST_F(CoordinatorTest, AnElectionWithAnOlderLeaseEpochIsRefusedByTheStateMachine) {
  Coordinator first(a_.get(), {1, 1}, 9000ms);
  ASSERT_TRUE(*first.Tick());
  const int64_t epoch = first.lease_epoch();
  auto old = b_->Append(metadata::Command(metadata::ElectCoordinator{2, 1, epoch}));
  EXPECT_EQ(old.status().code(), StatusCode::kAborted) << old.status();
  auto fenced = b_->Append(metadata::Command(metadata::ElectCoordinator{2, 7, epoch + 1}));
  EXPECT_EQ(fenced.status().code(), StatusCode::kAborted) << "node 2 is at epoch 1, not 7";
  EXPECT_EQ(Elected(b_.get()).node_id, 1);
}

}  // namespace
}  // namespace mink::cluster
