#include "cluster/balancer.h"

#include <gtest/gtest.h>

#include <map>

namespace mink::cluster {
namespace {

using metadata::Command;
using metadata::State;
using metadata::StreamAssignment;

void MustApply(State* s, const Command& c) {
  Status v = s->Validate(c);
  ASSERT_TRUE(v.ok()) << v;
  s->Apply(c, s->applied_seq() + 1, 1000 + s->applied_seq());
}

// Three registered nodes, node 1 elected; tables are created without owners (a cluster's).
class BalancerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int32_t n = 1; n <= 3; ++n) MustApply(&s_, metadata::RegisterNode{n, 1});
    MustApply(&s_, metadata::ElectCoordinator{1, 1, 1});
    MustApply(&s_, metadata::CreateDatabase{"db"});
  }
  std::vector<uint64_t> CreateTable(const std::string& name, int32_t buckets, int32_t owner = 0) {
    metadata::CreateTable c;
    c.database = "db";
    c.name = name;
    c.table_id = s_.next_table_id();
    c.descriptor = "{}";
    c.bucket_count = buckets;
    c.first_stream_id = s_.next_stream_id();
    c.owner_node = owner;
    c.owner_node_epoch = owner == 0 ? 0 : s_.NodeEpoch(owner);
    MustApply(&s_, c);
    return s_.FindTable("db", name)->streams;
  }
  // Applies a plan, and lets each assigned node open what it may (as the nodes would).
  void ApplyAndFollow(const std::vector<StreamAssignment>& plan) {
    if (plan.empty()) return;
    MustApply(&s_, metadata::AssignStreams{1, 1, plan});
    Follow(plan);
  }
  void Follow(const std::vector<StreamAssignment>& plan) {
    for (const auto& a : plan) {
      const auto* st = s_.FindStream(a.stream_id);
      if (st->owner_node != 0 && st->owner_node != a.node_id) {
        if (s_.NodeEpoch(st->owner_node) == st->owner_node_epoch) {
          MustApply(&s_, metadata::ReleaseStreams{st->owner_node, st->owner_node_epoch, {a.stream_id}});
        }
      }
      MustApply(&s_, metadata::OpenStreams{a.node_id, s_.NodeEpoch(a.node_id),
                                           {{a.stream_id, s_.FindStream(a.stream_id)->epoch + 1}}});
    }
  }
  // Rounds until the plan is empty (bounded).
  int Settle(const std::set<int32_t>& live) {
    for (int round = 0; round < 50; ++round) {
      auto plan = PlanAssignments(s_, live);
      if (plan.empty()) return round;
      ApplyAndFollow(plan);
    }
    ADD_FAILURE() << "the plan never settled";
    return 50;
  }
  std::map<int32_t, int> Owners(const std::vector<uint64_t>& streams) {
    std::map<int32_t, int> owners;
    for (uint64_t id : streams) {
      const auto* st = s_.FindStream(id);
      EXPECT_EQ(st->owner_node, st->assigned_node) << "stream " << id;
      ++owners[st->owner_node];
    }
    return owners;
  }
  State s_;
};

TEST_F(BalancerTest, NewBucketsAreSpreadOverTheLiveNodes) {
  auto streams = CreateTable("t", 6);
  auto plan = PlanAssignments(s_, {1, 2, 3});
  ASSERT_EQ(plan.size(), 6u);
  for (const auto& a : plan) EXPECT_FALSE(a.takeover);
  ApplyAndFollow(plan);
  EXPECT_EQ(Owners(streams), (std::map<int32_t, int>{{1, 2}, {2, 2}, {3, 2}}));
  EXPECT_TRUE(PlanAssignments(s_, {1, 2, 3}).empty()) << "balanced: nothing moves";
  // A second table is spread by its own buckets too.
  auto more = CreateTable("u", 3);
  ApplyAndFollow(PlanAssignments(s_, {1, 2, 3}));
  EXPECT_EQ(Owners(more), (std::map<int32_t, int>{{1, 1}, {2, 1}, {3, 1}}));
}

TEST_F(BalancerTest, ADeadNodesBucketsAreTakenOverByTheLiveOnes) {
  auto streams = CreateTable("t", 6);
  ApplyAndFollow(PlanAssignments(s_, {1, 2, 3}));
  auto plan = PlanAssignments(s_, {1, 2});
  ASSERT_EQ(plan.size(), 2u);
  for (const auto& a : plan) {
    EXPECT_TRUE(a.takeover) << "the owner is dead: cleared at once";
    EXPECT_NE(a.node_id, 3);
  }
  MustApply(&s_, metadata::AssignStreams{1, 1, plan});
  for (const auto& a : plan) EXPECT_EQ(s_.FindStream(a.stream_id)->owner_node, 0);
  for (const auto& a : plan) {
    MustApply(&s_, metadata::OpenStreams{a.node_id, 1, {{a.stream_id, s_.FindStream(a.stream_id)->epoch + 1}}});
  }
  EXPECT_EQ(Owners(streams), (std::map<int32_t, int>{{1, 3}, {2, 3}}));
  // Node 3 comes back as a new process: it gets its share back, gradually and without takeover.
  MustApply(&s_, metadata::RegisterNode{3, 2});
  auto back = PlanAssignments(s_, {1, 2, 3});
  ASSERT_FALSE(back.empty());
  for (const auto& a : back) {
    EXPECT_FALSE(a.takeover);
    EXPECT_EQ(a.node_id, 3);
  }
  Settle({1, 2, 3});
  EXPECT_EQ(Owners(streams), (std::map<int32_t, int>{{1, 2}, {2, 2}, {3, 2}}));
}

TEST_F(BalancerTest, AJoiningNodeGetsItsShareAFewStreamsARound) {
  auto streams = CreateTable("t", 12);
  ApplyAndFollow(PlanAssignments(s_, {1}));
  EXPECT_EQ(Owners(streams), (std::map<int32_t, int>{{1, 12}}));
  auto first = PlanAssignments(s_, {1, 2, 3});
  EXPECT_EQ(first.size(), 2u) << "max_moves a round";
  // While a move is in flight (assigned, not yet opened) nothing else moves.
  MustApply(&s_, metadata::AssignStreams{1, 1, first});
  EXPECT_TRUE(PlanAssignments(s_, {1, 2, 3}).empty());
  Follow(first);
  EXPECT_GE(Settle({1, 2, 3}), 3);
  EXPECT_EQ(Owners(streams), (std::map<int32_t, int>{{1, 4}, {2, 4}, {3, 4}}));
}

TEST_F(BalancerTest, ALeavingNodeHandsItsBucketsOnAndGetsNoNewOnes) {
  auto streams = CreateTable("t", 6);
  ApplyAndFollow(PlanAssignments(s_, {1, 2, 3}));
  MustApply(&s_, metadata::LeaveCluster{2, 1});
  auto plan = PlanAssignments(s_, {1, 2, 3});
  ASSERT_EQ(plan.size(), 2u);
  for (const auto& a : plan) {
    EXPECT_FALSE(a.takeover) << "it is live: it releases them itself";
    EXPECT_NE(a.node_id, 2);
  }
  ApplyAndFollow(plan);
  EXPECT_EQ(Owners(streams), (std::map<int32_t, int>{{1, 3}, {3, 3}}));
  auto later = CreateTable("u", 2);
  ApplyAndFollow(PlanAssignments(s_, {1, 2, 3}));
  for (uint64_t id : later) EXPECT_NE(s_.FindStream(id)->owner_node, 2);
}

TEST_F(BalancerTest, AMoveWhoseOwnerDiedBeforeReleasingBecomesATakeover) {
  auto streams = CreateTable("t", 3);
  ApplyAndFollow(PlanAssignments(s_, {1, 2, 3}));
  // Node 3 leaves; its stream is assigned to another node, then node 3 dies unreleased.
  MustApply(&s_, metadata::LeaveCluster{3, 1});
  auto plan = PlanAssignments(s_, {1, 2, 3});
  ASSERT_EQ(plan.size(), 1u);
  MustApply(&s_, metadata::AssignStreams{1, 1, plan});
  auto again = PlanAssignments(s_, {1, 2});
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].stream_id, plan[0].stream_id);
  EXPECT_EQ(again[0].node_id, plan[0].node_id);
  EXPECT_TRUE(again[0].takeover);
}

TEST_F(BalancerTest, BucketsServedBeforeAnyAssignmentStayWithTheirLiveOwner) {
  auto streams = CreateTable("t", 4, /*owner=*/2);
  auto plan = PlanAssignments(s_, {1, 2, 3});
  ASSERT_EQ(plan.size(), 4u);
  for (const auto& a : plan) EXPECT_EQ(a.node_id, 2);
  MustApply(&s_, metadata::AssignStreams{1, 1, plan});
  EXPECT_EQ(Owners(streams), (std::map<int32_t, int>{{2, 4}}));
  Settle({1, 2, 3});
  auto owners = Owners(streams);
  for (const auto& [n, count] : owners) EXPECT_LE(count, 2);
}

TEST_F(BalancerTest, NoLiveNodeNoPlan) {
  CreateTable("t", 2);
  EXPECT_TRUE(PlanAssignments(s_, {}).empty());
  EXPECT_TRUE(PlanAssignments(s_, {7}).empty()) << "never registered";
}

}  // namespace
}  // namespace mink::cluster
