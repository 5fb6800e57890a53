// The classic rebalance protocol of GroupCoordinator (docs/kafka.md): joins, generations,
// leaders, assignments, leaving, session and rebalance timeouts, MEMBER_ID_REQUIRED, protocol
// checks, and the timer thread. Offsets are in group_offsets_test.cc.

#include <gtest/gtest.h>

#include <regex>
#include <thread>

#include "group_test_util.h"

namespace mink::kafka::testing {
namespace {

TEST_F(GroupTest, OneMemberJoinsSyncsAndHeartbeats) {
  JoinOpts v5;
  v5.version = 5;
  v5.client_id = "rdkafka";
  // JoinGroup v4+ without a member id: MEMBER_ID_REQUIRED and the id to use.
  JoinGroupResponse first = Join("g", "", v5)->get();
  EXPECT_EQ(first.error_code, E(ErrorCode::kMemberIdRequired));
  EXPECT_EQ(first.generation_id, -1);
  EXPECT_TRUE(std::regex_match(
      first.member_id,
      std::regex("rdkafka-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << first.member_id;
  auto join = Join("g", first.member_id, v5);
  EXPECT_FALSE(join->ready());  // the initial rebalance delay of a new group
  Advance(99);
  EXPECT_FALSE(join->ready());
  Advance(1);
  JoinGroupResponse joined = join->get();
  EXPECT_EQ(joined.error_code, 0);
  EXPECT_EQ(joined.generation_id, 1);
  EXPECT_EQ(joined.member_id, first.member_id);
  EXPECT_EQ(joined.leader, first.member_id);
  EXPECT_EQ(joined.protocol_name, "range");
  ASSERT_EQ(joined.members.size(), 1u);
  EXPECT_EQ(joined.members[0].metadata, "range:m");
  EXPECT_EQ(Describe("g").group_state, "CompletingRebalance");

  SyncGroupResponse synced = Sync("g", 1, joined.member_id, {{joined.member_id, "a1"}})->get();
  EXPECT_EQ(synced.error_code, 0);
  EXPECT_EQ(synced.assignment, "a1");
  EXPECT_EQ(Heartbeat("g", 1, joined.member_id), 0);
  // SyncGroup again in Stable returns the stored assignment.
  EXPECT_EQ(Sync("g", 1, joined.member_id)->get().assignment, "a1");
  EXPECT_EQ(Heartbeat("g", 2, joined.member_id), E(ErrorCode::kIllegalGeneration));
  EXPECT_EQ(Heartbeat("g", 1, "someone-else"), E(ErrorCode::kUnknownMemberId));
  EXPECT_EQ(Heartbeat("nope", 1, joined.member_id), E(ErrorCode::kUnknownMemberId));
  // Staying alive: heartbeats within the session timeout keep the member.
  for (int i = 0; i < 5; ++i) {
    Advance(6000);
    EXPECT_EQ(Heartbeat("g", 1, joined.member_id), 0);
  }
  EXPECT_EQ(Describe("g").group_state, "Stable");
}

TEST_F(GroupTest, OldJoinGroupVersionsGetAMemberIdAtOnce) {
  JoinOpts v3;
  v3.client_id = "kafka-python";
  auto join = Join("g", "", v3);
  Advance(100);
  JoinGroupResponse r = join->get();
  EXPECT_EQ(r.error_code, 0);
  EXPECT_EQ(r.member_id.rfind("kafka-python-", 0), 0u) << r.member_id;
  EXPECT_EQ(r.leader, r.member_id);
}

TEST_F(GroupTest, ThreeMembersShareAGenerationAndTheLeaderAssigns) {
  std::vector<ReplyPtr<JoinGroupResponse>> joins;
  for (int i = 1; i <= 3; ++i) {
    JoinOpts opts;
    opts.client_id = "client-" + std::to_string(i);
    opts.protocols = Protocols({"roundrobin", "range"}, std::to_string(i));
    joins.push_back(Join("g", "", opts));
    clock_.Advance(60);  // each new member extends the initial delay
    coord_->Tick();
  }
  for (auto& j : joins) EXPECT_FALSE(j->ready());
  Advance(40);  // 100 ms after the last join
  std::vector<JoinGroupResponse> r;
  for (auto& j : joins) r.push_back(j->get());
  const std::string leader = r[0].member_id;
  for (const auto& x : r) {
    EXPECT_EQ(x.error_code, 0);
    EXPECT_EQ(x.generation_id, 1);
    EXPECT_EQ(x.leader, leader);
    EXPECT_EQ(x.protocol_name, "roundrobin");
  }
  ASSERT_EQ(r[0].members.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r[0].members[i].member_id, r[i].member_id);
    EXPECT_EQ(r[0].members[i].metadata, "roundrobin:" + std::to_string(i + 1));
  }
  EXPECT_TRUE(r[1].members.empty());
  EXPECT_TRUE(r[2].members.empty());

  // Followers wait for the leader's assignments.
  auto s2 = Sync("g", 1, r[1].member_id);
  auto s3 = Sync("g", 1, r[2].member_id);
  EXPECT_FALSE(s2->ready());
  EXPECT_FALSE(s3->ready());
  EXPECT_EQ(Heartbeat("g", 1, r[1].member_id), E(ErrorCode::kRebalanceInProgress));
  auto s1 =
      Sync("g", 1, leader, {{r[0].member_id, "A"}, {r[1].member_id, "B"}, {r[2].member_id, "C"}});
  EXPECT_EQ(s1->get().assignment, "A");
  EXPECT_EQ(s2->get().assignment, "B");
  EXPECT_EQ(s3->get().assignment, "C");
  for (const auto& x : r) EXPECT_EQ(Heartbeat("g", 1, x.member_id), 0);

  DescribeGroupsResponse::Group d = Describe("g");
  EXPECT_EQ(d.error_code, 0);
  EXPECT_EQ(d.group_state, "Stable");
  EXPECT_EQ(d.protocol_type, "consumer");
  EXPECT_EQ(d.protocol_data, "roundrobin");
  ASSERT_EQ(d.members.size(), 3u);
  EXPECT_EQ(d.members[1].member_id, r[1].member_id);
  EXPECT_EQ(d.members[1].client_id, "client-2");
  EXPECT_EQ(d.members[1].client_host, "/host-client-2");
  EXPECT_EQ(d.members[1].member_metadata, "roundrobin:2");
  EXPECT_EQ(d.members[1].member_assignment, "B");
}

TEST_F(GroupTest, TheProtocolMostMembersPreferAmongThoseAllSupportWins) {
  std::vector<ReplyPtr<JoinGroupResponse>> joins;
  const std::vector<std::vector<std::string>> prefs = {
      {"range", "roundrobin", "sticky"}, {"roundrobin", "range"}, {"roundrobin", "range"}};
  for (const auto& p : prefs) {
    JoinOpts opts;
    opts.protocols = Protocols(p);
    joins.push_back(Join("g", "", opts));
  }
  Advance(100);
  for (auto& j : joins) EXPECT_EQ(j->get().protocol_name, "roundrobin");
}

TEST_F(GroupTest, InconsistentProtocolsAreRefused) {
  int32_t generation = 0;
  std::vector<std::string> ids = FormGroup("g", 1, &generation);
  JoinOpts other;
  other.protocols = Protocols({"sticky"});
  EXPECT_EQ(Join("g", "", other)->get().error_code, E(ErrorCode::kInconsistentGroupProtocol));
  JoinOpts connect;
  connect.protocol_type = "connect";
  EXPECT_EQ(Join("g", "", connect)->get().error_code, E(ErrorCode::kInconsistentGroupProtocol));
  JoinOpts none;
  none.protocols = {};
  EXPECT_EQ(Join("new", "", none)->get().error_code, E(ErrorCode::kInconsistentGroupProtocol));
  // The group was not disturbed.
  EXPECT_EQ(Heartbeat("g", generation, ids[0]), 0);
  EXPECT_EQ(Describe("g").members.size(), 1u);
}

TEST_F(GroupTest, InvalidJoinsAreRefused) {
  JoinOpts short_session;
  short_session.session_timeout_ms = 1000;  // below group.min.session.timeout.ms
  EXPECT_EQ(Join("g", "", short_session)->get().error_code, E(ErrorCode::kInvalidSessionTimeout));
  EXPECT_EQ(Join("", "")->get().error_code, E(ErrorCode::kInvalidGroupId));
  EXPECT_EQ(Join("g", "made-up-id")->get().error_code, E(ErrorCode::kUnknownMemberId));
  EXPECT_EQ(Sync("", 1, "m")->get().error_code, E(ErrorCode::kInvalidGroupId));
  EXPECT_EQ(Sync("nope", 1, "m")->get().error_code, E(ErrorCode::kUnknownMemberId));
}

TEST_F(GroupTest, WrongGenerationsAreRefused) {
  int32_t generation = 0;
  std::vector<std::string> ids = FormGroup("g", 2, &generation);
  EXPECT_EQ(Sync("g", generation + 1, ids[1])->get().error_code, E(ErrorCode::kIllegalGeneration));
  EXPECT_EQ(Heartbeat("g", generation - 1, ids[1]), E(ErrorCode::kIllegalGeneration));
  EXPECT_EQ(Commit("g", generation + 1, ids[1], {{"orders", 0, 1}}),
            std::vector<int16_t>{E(ErrorCode::kIllegalGeneration)});
  EXPECT_EQ(Commit("g", generation, ids[1], {{"orders", 0, 1}}), std::vector<int16_t>{0});
}

TEST_F(GroupTest, ALeavingMemberMakesTheOthersRejoinInANewGeneration) {
  int32_t gen = 0;
  std::vector<std::string> ids = FormGroup("g", 3, &gen);
  LeaveGroupResponse left = Leave("g", ids[2]);
  EXPECT_EQ(left.error_code, 0);
  ASSERT_EQ(left.members.size(), 1u);
  EXPECT_EQ(left.members[0].member_id, ids[2]);
  EXPECT_EQ(left.members[0].error_code, 0);
  EXPECT_EQ(Describe("g").group_state, "PreparingRebalance");
  // The others learn it from their heartbeats, and may still commit for their generation.
  EXPECT_EQ(Heartbeat("g", gen, ids[0]), E(ErrorCode::kRebalanceInProgress));
  EXPECT_EQ(Sync("g", gen, ids[1])->get().error_code, E(ErrorCode::kRebalanceInProgress));
  EXPECT_EQ(Commit("g", gen, ids[1], {{"orders", 1, 10}}), std::vector<int16_t>{0});
  auto j0 = Join("g", ids[0]);
  EXPECT_FALSE(j0->ready());  // waits for the other known member (no initial delay now)
  auto j1 = Join("g", ids[1]);
  JoinGroupResponse r0 = j0->get(), r1 = j1->get();
  EXPECT_EQ(r0.generation_id, gen + 1);
  EXPECT_EQ(r1.generation_id, gen + 1);
  EXPECT_EQ(r0.leader, ids[0]);
  EXPECT_EQ(r0.members.size(), 2u);
  EXPECT_EQ(Commit("g", gen, ids[1], {{"orders", 1, 11}}),
            std::vector<int16_t>{E(ErrorCode::kRebalanceInProgress)});
  auto s1 = Sync("g", gen + 1, ids[1]);
  EXPECT_EQ(Sync("g", gen + 1, ids[0], {{ids[1], "x"}})->get().assignment, "");
  EXPECT_EQ(s1->get().assignment, "x");
  EXPECT_EQ(Commit("g", gen, ids[1], {{"orders", 1, 12}}),
            std::vector<int16_t>{E(ErrorCode::kIllegalGeneration)});
  EXPECT_EQ(Heartbeat("g", gen + 1, ids[2]), E(ErrorCode::kUnknownMemberId));
  // LeaveGroup v0-2 reports one member's error at the top.
  EXPECT_EQ(Leave("g", ids[2], 1).error_code, E(ErrorCode::kUnknownMemberId));
  EXPECT_EQ(Leave("g", ids[1], 1).error_code, 0);
}

TEST_F(GroupTest, TheLastMemberLeavingEmptiesTheGroup) {
  int32_t gen = 0;
  std::vector<std::string> ids = FormGroup("g", 1, &gen);
  EXPECT_EQ(Leave("g", ids[0]).members[0].error_code, 0);
  DescribeGroupsResponse::Group d = Describe("g");
  EXPECT_EQ(d.group_state, "Empty");
  EXPECT_EQ(d.protocol_type, "consumer");
  EXPECT_TRUE(d.members.empty());
  EXPECT_EQ(Heartbeat("g", gen, ids[0]), E(ErrorCode::kUnknownMemberId));
  // A new member starts generation gen + 2 (the empty generation counted too).
  auto j = Join("g", "");
  Advance(100);
  EXPECT_EQ(j->get().generation_id, gen + 2);
}

TEST_F(GroupTest, AMemberThatStopsHeartbeatingIsExpired) {
  int32_t gen = 0;
  std::vector<std::string> ids = FormGroup("g", 2, &gen);  // session timeout 10 s
  Advance(6000);
  EXPECT_EQ(Heartbeat("g", gen, ids[0]), 0);
  Advance(3999);
  EXPECT_EQ(Describe("g").members.size(), 2u);
  Advance(1);  // 10 s since ids[1] was last heard from
  EXPECT_EQ(Describe("g").group_state, "PreparingRebalance");
  EXPECT_EQ(Heartbeat("g", gen, ids[1]), E(ErrorCode::kUnknownMemberId));
  EXPECT_EQ(Heartbeat("g", gen, ids[0]), E(ErrorCode::kRebalanceInProgress));
  JoinGroupResponse r = Join("g", ids[0])->get();  // the only member left: done at once
  EXPECT_EQ(r.generation_id, gen + 1);
  ASSERT_EQ(r.members.size(), 1u);
  EXPECT_EQ(r.members[0].member_id, ids[0]);
}

TEST_F(GroupTest, MembersThatDoNotRejoinWithinTheRebalanceTimeoutAreRemoved) {
  int32_t gen = 0;
  std::vector<std::string> ids = FormGroup("g", 2, &gen);  // rebalance timeout 30 s
  JoinOpts changed;
  changed.protocols = Protocols({"range"}, "new-subscription");
  auto j0 = Join("g", ids[0], changed);  // changed metadata: a rebalance
  for (int i = 0; i < 4; ++i) {
    Advance(7000);  // ids[1] keeps heartbeating but never rejoins
    EXPECT_EQ(Heartbeat("g", gen, ids[1]), E(ErrorCode::kRebalanceInProgress));
    EXPECT_FALSE(j0->ready());
  }
  Advance(2000);
  JoinGroupResponse r = j0->get();
  EXPECT_EQ(r.generation_id, gen + 1);
  ASSERT_EQ(r.members.size(), 1u);
  EXPECT_EQ(r.members[0].metadata, "range:new-subscription");
  EXPECT_EQ(Heartbeat("g", gen, ids[1]), E(ErrorCode::kUnknownMemberId));
}

TEST_F(GroupTest, ALeaderThatNeverSyncsIsRemovedAfterTheRebalanceTimeout) {
  std::vector<ReplyPtr<JoinGroupResponse>> joins = {Join("g", ""), Join("g", "")};
  Advance(100);
  const std::string leader = joins[0]->get().member_id;
  const std::string follower = joins[1]->get().member_id;
  auto parked = Sync("g", 1, follower);
  for (int i = 0; i < 5; ++i) {
    Advance(5000);  // the leader heartbeats but never sends its assignments
    EXPECT_EQ(Heartbeat("g", 1, leader), E(ErrorCode::kRebalanceInProgress));
  }
  EXPECT_FALSE(parked->ready());  // a parked follower needs no heartbeats
  Advance(5000);                  // the rebalance timeout (30 s) since the join completed
  EXPECT_EQ(parked->get().error_code, E(ErrorCode::kRebalanceInProgress));
  EXPECT_EQ(Heartbeat("g", 1, leader), E(ErrorCode::kUnknownMemberId));
  EXPECT_EQ(Describe("g").members.size(), 1u);
  JoinGroupResponse again = Join("g", follower)->get();
  EXPECT_EQ(again.generation_id, 2);
  EXPECT_EQ(again.leader, follower);
}

TEST_F(GroupTest, RejoiningInAStableGroup) {
  int32_t gen = 0;
  std::vector<std::string> ids = FormGroup("g", 2, &gen);
  // A follower with the same metadata gets its current generation back, no rebalance.
  JoinOpts same;
  same.protocols = Protocols({"range"}, "2");
  JoinGroupResponse r = Join("g", ids[1], same)->get();
  EXPECT_EQ(r.generation_id, gen);
  EXPECT_TRUE(r.members.empty());
  EXPECT_EQ(Describe("g").group_state, "Stable");
  // The leader rejoining starts a rebalance (it may want to reassign).
  JoinOpts leader_same;
  leader_same.protocols = Protocols({"range"}, "1");
  auto j0 = Join("g", ids[0], leader_same);
  EXPECT_FALSE(j0->ready());
  EXPECT_EQ(Describe("g").group_state, "PreparingRebalance");
  Join("g", ids[1], same);
  EXPECT_EQ(j0->get().generation_id, gen + 1);
}

TEST_F(GroupTest, UnusedMemberIdsExpire) {
  JoinOpts v4;
  v4.version = 4;
  JoinGroupResponse first = Join("g", "", v4)->get();
  ASSERT_EQ(first.error_code, E(ErrorCode::kMemberIdRequired));
  Advance(10000);  // the session timeout passes without the rejoin
  EXPECT_EQ(Join("g", first.member_id, v4)->get().error_code, E(ErrorCode::kUnknownMemberId));
}

TEST_F(GroupTest, APendingMemberIdHoldsTheRebalanceUntilItJoins) {
  int32_t gen = 0;
  std::vector<std::string> ids = FormGroup("g", 1, &gen);
  JoinOpts v5;
  v5.version = 5;
  JoinGroupResponse first = Join("g", "", v5)->get();
  ASSERT_EQ(first.error_code, E(ErrorCode::kMemberIdRequired));
  auto j0 = Join("g", ids[0], v5);  // the leader rejoins: rebalance
  EXPECT_FALSE(j0->ready());        // waiting for the member that was handed an id
  auto j1 = Join("g", first.member_id, v5);
  EXPECT_EQ(j0->get().members.size(), 2u);
  EXPECT_EQ(j1->get().generation_id, gen + 1);
}

TEST_F(GroupTest, StopAnswersParkedRequestsAndLaterOnes) {
  auto parked = Join("g", "");
  coord_->Stop();
  EXPECT_EQ(parked->get().error_code, E(ErrorCode::kCoordinatorNotAvailable));
  EXPECT_EQ(Join("g", "")->get().error_code, E(ErrorCode::kCoordinatorNotAvailable));
  EXPECT_EQ(Heartbeat("g", 1, "m"), E(ErrorCode::kCoordinatorNotAvailable));
  EXPECT_EQ(Commit("g", -1, "", {{"orders", 0, 1}}),
            std::vector<int16_t>{E(ErrorCode::kCoordinatorNotAvailable)});
  coord_->Stop();  // idempotent
}

// With the real clock and the timer thread: the initial delay ends by itself, and callbacks may
// call back into the coordinator (they never run under its lock).
TEST(GroupTimerTest, TheTimerThreadCompletesJoinsAndCallbacksMayReenter) {
  GroupCoordinatorOptions options;
  options.initial_rebalance_delay_ms = 500;  // each join restarts it
  options.tick_interval = std::chrono::milliseconds(10);
  GroupCoordinator coord(options);
  constexpr int kMembers = 8;
  std::vector<ReplyPtr<HeartbeatResponse>> beats;
  std::vector<ReplyPtr<JoinGroupResponse>> joins;
  for (int i = 0; i < kMembers; ++i) {
    beats.push_back(std::make_shared<Reply<HeartbeatResponse>>());
    joins.push_back(std::make_shared<Reply<JoinGroupResponse>>());
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < kMembers; ++i) {
    threads.emplace_back([&, i] {
      JoinGroupRequest r;
      r.group_id = "g";
      r.session_timeout_ms = 10000;
      r.rebalance_timeout_ms = 10000;
      r.protocol_type = "consumer";
      r.protocols = Protocols({"range"});
      auto join_done = joins[i]->Callback();
      coord.JoinGroup(r, {3, "c" + std::to_string(i), "/h"},
                      [&, i, join_done](JoinGroupResponse resp) {
                        HeartbeatRequest hb;
                        hb.group_id = "g";
                        hb.generation_id = resp.generation_id;
                        hb.member_id = resp.member_id;
                        coord.Heartbeat(hb, {3, "c", "/h"}, beats[i]->Callback());
                        join_done(std::move(resp));
                      });
    });
  }
  for (auto& t : threads) t.join();
  int32_t generation = -1;
  for (int i = 0; i < kMembers; ++i) {
    JoinGroupResponse r = joins[i]->Wait();
    EXPECT_EQ(r.error_code, 0);
    if (generation == -1) generation = r.generation_id;
    EXPECT_EQ(r.generation_id, generation);
    // CompletingRebalance: the heartbeat says so.
    EXPECT_EQ(beats[i]->Wait().error_code, E(ErrorCode::kRebalanceInProgress));
  }
  EXPECT_EQ(generation, 1);
  coord.Stop();
}

}  // namespace
}  // namespace mink::kafka::testing
