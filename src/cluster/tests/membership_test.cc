#include "cluster/membership.h"

#include <gtest/gtest.h>

#include <thread>

#include "base/clock.h"
#include "test_env.h"

namespace mink::cluster {
namespace {

class MembershipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    metadata::MetadataOptions options;
    options.clock = &clock_;
    auto meta = metadata::MetadataLog::Open(
        "sqlite:" + testing_env::MakeTempDir("membership") + "/meta.db", options);
    ASSERT_TRUE(meta.ok()) << meta.status();
    meta_ = std::move(*meta);
  }

  void Register(int32_t node, int64_t epoch) {
    ASSERT_TRUE(meta_->Append(metadata::Command(metadata::RegisterNode{node, epoch})).ok());
  }
  void Beat(int32_t node, int64_t epoch, int64_t at_ms, std::string kafka = "") {
    ASSERT_TRUE(meta_->store()
                    ->UpsertHeartbeat({node, epoch, "grpc://n" + std::to_string(node) + ":9123",
                                       at_ms, std::move(kafka)})
                    .ok());
  }

  ManualClock clock_;
  std::unique_ptr<metadata::MetadataLog> meta_;
};

TEST_F(MembershipTest, ANodeIsLiveWhileItsHeartbeatIsYoungerThanTheSessionTimeout) {
  Register(1, 1);
  Register(2, 1);
  const int64_t t0 = clock_.NowMillis();
  Beat(1, 1, t0, "n1:9092");
  Beat(2, 1, t0 - 9500);
  Membership membership(meta_.get(), std::chrono::milliseconds(9000));
  auto members = membership.Members();
  ASSERT_TRUE(members.ok()) << members.status();
  ASSERT_EQ(members->size(), 2u);
  EXPECT_EQ((*members)[0].node_id, 1);
  EXPECT_TRUE((*members)[0].live);
  EXPECT_EQ((*members)[0].flight_address, "grpc://n1:9123");
  EXPECT_EQ((*members)[0].kafka_address, "n1:9092");
  EXPECT_FALSE((*members)[1].live) << "a heartbeat 9.5 s old, past a 9 s session";
  clock_.Advance(9000);
  EXPECT_FALSE((*membership.Members())[0].live) << "9 s after the last heartbeat";
}

TEST_F(MembershipTest, AHeartbeatOfAnOlderProcessOfTheNodeIsNotLive) {
  Register(1, 1);
  Register(1, 2);  // a newer process of node 1 registered, but the old one still beats
  Beat(1, 1, clock_.NowMillis());
  Membership membership(meta_.get(), kDefaultSessionTimeout);
  EXPECT_FALSE((*membership.Members())[0].live);
  Beat(1, 2, clock_.NowMillis());
  EXPECT_TRUE((*membership.Members())[0].live);
}

TEST_F(MembershipTest, TheHeartbeaterWritesAtOnceAndKeepsRenewing) {
  Register(3, 1);
  Heartbeater heartbeater(meta_.get(), {3, 1, "grpc://n3:9123", 0, "n3:9092"});
  Membership membership(meta_.get(), kDefaultSessionTimeout);
  auto first = [&]() -> int64_t {
    auto m = membership.Members();
    return m.ok() && !m->empty() ? (*m)[0].heartbeat_ms : 0;
  };
  for (int i = 0; i < 100 && first() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const int64_t at = first();
  ASSERT_EQ(at, clock_.NowMillis());
  clock_.Advance(5000);
  for (int i = 0; i < 300 && first() == at; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(first(), at + 5000) << "renewed within about a second";
  heartbeater.Stop();
  EXPECT_EQ((*membership.Members())[0].kafka_address, "n3:9092");
}

}  // namespace
}  // namespace mink::cluster
