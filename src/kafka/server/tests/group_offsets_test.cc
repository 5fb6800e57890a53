// Committed offsets through GroupCoordinator: who may commit, per-partition errors, OffsetFetch
// in every shape, DescribeGroups/ListGroups, and durability across a restart on SQLite and
// PostgreSQL (the server scripts/with-test-services starts).

#include <gtest/gtest.h>

#include <climits>
#include <mutex>
#include <optional>

#include "group_test_util.h"
#include "metadata/log_store.h"
#include "metadata/tests/test_databases.h"

namespace mink::kafka::testing {
namespace {

using Offsets = std::vector<std::string>;

OffsetFetchRequest::Topic Topic(const std::string& name, std::vector<int32_t> partitions) {
  return OffsetFetchRequest::Topic{name, std::move(partitions)};
}

TEST_F(GroupTest, SimpleCommitsAreFetchedBack) {
  EXPECT_EQ(Commit("g", -1, "", {{"orders", 0, 5}, {"orders", 1, 7}, {"events", 0, 3}}),
            (std::vector<int16_t>{0, 0, 0}));
  EXPECT_EQ(Fetch("g", std::vector{Topic("orders", {0, 1, 2})}),
            (Offsets{"orders/0=5", "orders/1=7", "orders/2=-1"}));
  EXPECT_EQ(Fetch("g"), (Offsets{"events/0=3", "orders/0=5", "orders/1=7"}));
  EXPECT_EQ(Fetch("never-committed", std::vector{Topic("orders", {0})}), Offsets{"orders/0=-1"});
  EXPECT_TRUE(Fetch("never-committed").empty());
  // A later commit replaces the earlier one.
  EXPECT_EQ(Commit("g", -1, "", {{"orders", 0, 6}}), std::vector<int16_t>{0});
  EXPECT_EQ(Fetch("g", std::vector{Topic("orders", {0})}), Offsets{"orders/0=6"});

  // Leader epochs and metadata come back; missing partitions have -1 and "".
  OffsetFetchRequest v5;
  v5.group_id = "g";
  v5.topics = std::vector{Topic("orders", {0, 2})};
  auto reply = std::make_shared<Reply<OffsetFetchResponse>>();
  coord_->OffsetFetch(v5, Ctx(5), reply->Callback());
  OffsetFetchResponse r = reply->get();
  ASSERT_EQ(r.topics.size(), 1u);
  ASSERT_EQ(r.topics[0].partitions.size(), 2u);
  EXPECT_EQ(r.topics[0].partitions[0].committed_leader_epoch, 5);
  EXPECT_EQ(r.topics[0].partitions[0].metadata, "meta-6");
  EXPECT_EQ(r.topics[0].partitions[1].committed_offset, -1);
  EXPECT_EQ(r.topics[0].partitions[1].committed_leader_epoch, -1);
  EXPECT_EQ(r.topics[0].partitions[1].metadata, "");

  // v8: several groups in one request.
  OffsetFetchRequest v8;
  v8.groups.push_back({"g", std::nullopt});
  v8.groups.push_back({"other", std::vector{Topic("events", {0})}});
  reply = std::make_shared<Reply<OffsetFetchResponse>>();
  coord_->OffsetFetch(v8, Ctx(8), reply->Callback());
  r = reply->get();
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].group_id, "g");
  EXPECT_EQ(r.groups[0].topics.size(), 2u);
  ASSERT_EQ(r.groups[1].topics.size(), 1u);
  EXPECT_EQ(r.groups[1].topics[0].partitions[0].committed_offset, -1);
}

TEST_F(GroupTest, UnknownPartitionsAndOversizedMetadataAreRefusedOneByOne) {
  OffsetCommitRequest r;
  r.group_id = "g";
  r.topics.push_back({"orders", {}});
  r.topics[0].partitions.push_back({0, 10, -1, -1, std::string(5000, 'x')});
  r.topics[0].partitions.push_back({1, 11, -1, -1, std::nullopt});
  r.topics[0].partitions.push_back({3, 12, -1, -1, std::nullopt});
  r.topics.push_back({"missing", {{0, 13, -1, -1, std::nullopt}}});
  auto reply = std::make_shared<Reply<OffsetCommitResponse>>();
  coord_->OffsetCommit(r, Ctx(7), reply->Callback());
  OffsetCommitResponse response = reply->get();
  ASSERT_EQ(response.topics.size(), 2u);
  ASSERT_EQ(response.topics[0].partitions.size(), 3u);
  EXPECT_EQ(response.topics[0].partitions[0].error_code, E(ErrorCode::kOffsetMetadataTooLarge));
  EXPECT_EQ(response.topics[0].partitions[1].error_code, 0);
  EXPECT_EQ(response.topics[0].partitions[2].partition_index, 3);
  EXPECT_EQ(response.topics[0].partitions[2].error_code, E(ErrorCode::kUnknownTopicOrPartition));
  EXPECT_EQ(response.topics[1].name, "missing");
  EXPECT_EQ(response.topics[1].partitions[0].error_code, E(ErrorCode::kUnknownTopicOrPartition));
  EXPECT_EQ(Fetch("g"), Offsets{"orders/1=11"});
}

TEST_F(GroupTest, WhoMayCommit) {
  // A group this node does not know: only simple commits.
  EXPECT_EQ(Commit("g", 3, "member", {{"orders", 0, 1}}),
            std::vector<int16_t>{E(ErrorCode::kIllegalGeneration)});
  EXPECT_EQ(Commit("g", -1, "member", {{"orders", 0, 1}}),
            std::vector<int16_t>{E(ErrorCode::kUnknownMemberId)});
  // CompletingRebalance: REBALANCE_IN_PROGRESS.
  auto j = Join("g", "");
  Advance(100);
  const std::string id = j->get().member_id;
  EXPECT_EQ(Commit("g", 1, id, {{"orders", 0, 1}}),
            std::vector<int16_t>{E(ErrorCode::kRebalanceInProgress)});
  EXPECT_EQ(Commit("g", -1, "", {{"orders", 0, 1}}),
            std::vector<int16_t>{E(ErrorCode::kRebalanceInProgress)});
  EXPECT_EQ(Sync("g", 1, id, {{id, "a"}})->get().error_code, 0);
  // Stable: the member of the generation, not a simple consumer.
  EXPECT_EQ(Commit("g", 1, id, {{"orders", 0, 2}}), std::vector<int16_t>{0});
  EXPECT_EQ(Commit("g", -1, "", {{"orders", 0, 3}}),
            std::vector<int16_t>{E(ErrorCode::kUnknownMemberId)});
  // A commit counts as a sign of life.
  Advance(9000);
  EXPECT_EQ(Commit("g", 1, id, {{"orders", 0, 4}}), std::vector<int16_t>{0});
  Advance(9000);
  EXPECT_EQ(Heartbeat("g", 1, id), 0);
  // Empty again: simple commits are fine.
  EXPECT_EQ(Leave("g", id).members[0].error_code, 0);
  EXPECT_EQ(Commit("g", -1, "", {{"orders", 0, 5}}), std::vector<int16_t>{0});
  EXPECT_EQ(Fetch("g"), Offsets{"orders/0=5"});
}

TEST_F(GroupTest, DescribeAndListGroups) {
  int32_t gen = 0;
  FormGroup("stable", 2, &gen);
  auto parked = Join("preparing", "");  // within its initial delay
  EXPECT_EQ(Commit("offsets-only", -1, "", {{"events", 0, 1}}), std::vector<int16_t>{0});

  DescribeGroupsResponse::Group d = Describe("preparing");
  EXPECT_EQ(d.group_state, "PreparingRebalance");
  EXPECT_EQ(d.protocol_data, "");  // chosen only once Stable
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].member_metadata, "");
  EXPECT_EQ(Describe("offsets-only").group_state, "Empty");
  DescribeGroupsResponse::Group unknown = Describe("unknown");
  EXPECT_EQ(unknown.error_code, 0);
  EXPECT_EQ(unknown.group_state, "Dead");
  EXPECT_EQ(unknown.authorized_operations, INT32_MIN);

  DescribeGroupsRequest with_ops;
  with_ops.groups = {"stable", "unknown"};
  with_ops.include_authorized_operations = true;
  auto described = std::make_shared<Reply<DescribeGroupsResponse>>();
  coord_->DescribeGroups(with_ops, Ctx(3), described->Callback());
  for (const auto& g : described->get().groups) {
    EXPECT_EQ(g.authorized_operations, (1 << 3) | (1 << 6) | (1 << 8));  // READ, DELETE, DESCRIBE
  }

  auto list = [&](int16_t version, std::vector<std::string> states) {
    ListGroupsRequest r;
    r.states_filter = std::move(states);
    auto reply = std::make_shared<Reply<ListGroupsResponse>>();
    coord_->ListGroups(r, Ctx(version), reply->Callback());
    ListGroupsResponse response = reply->get();
    EXPECT_EQ(response.error_code, 0);
    std::vector<std::string> out;
    for (const auto& g : response.groups) {
      out.push_back(g.group_id + ":" + g.protocol_type + ":" + g.group_state);
    }
    return out;
  };
  EXPECT_EQ(list(2, {}), (std::vector<std::string>{"offsets-only::Empty",
                                                   "preparing:consumer:PreparingRebalance",
                                                   "stable:consumer:Stable"}));
  EXPECT_EQ(list(4, {"stable", "EMPTY"}),
            (std::vector<std::string>{"offsets-only::Empty", "stable:consumer:Stable"}));
  EXPECT_TRUE(list(4, {"Dead"}).empty());
}

TEST_F(GroupTest, DeleteGroupsForgetsGroupsWithoutMembersAndTheirOffsets) {
  int32_t gen = 0;
  std::vector<std::string> members = FormGroup("active", 1, &gen);
  EXPECT_EQ(Commit("active", gen, members[0], {{"events", 0, 7}}), std::vector<int16_t>{0});
  EXPECT_EQ(Commit("offsets-only", -1, "", {{"events", 0, 3}}), std::vector<int16_t>{0});
  auto remove = [&](std::vector<std::string> names) {
    DeleteGroupsRequest r;
    r.groups_names = std::move(names);
    auto reply = std::make_shared<Reply<DeleteGroupsResponse>>();
    coord_->DeleteGroups(r, Ctx(2), reply->Callback());
    std::vector<std::string> out;
    for (const auto& g : reply->get().results) {
      out.push_back(g.group_id + ":" + std::to_string(g.error_code));
    }
    return out;
  };
  // A member holds "active": NON_EMPTY_GROUP (68), its offsets stay; no such group: 69; "": 24.
  EXPECT_EQ(remove({"active", "offsets-only", "never-seen", ""}),
            (std::vector<std::string>{"active:68", "offsets-only:0", "never-seen:69", ":24"}));
  EXPECT_EQ(Fetch("active"), std::vector<std::string>{"events/0=7"});
  EXPECT_TRUE(Fetch("offsets-only").empty());
  EXPECT_EQ(Describe("offsets-only").group_state, "Dead");
  EXPECT_EQ(remove({"offsets-only"}), std::vector<std::string>{"offsets-only:69"});

  // Once its member has left, the group goes, with its offsets.
  EXPECT_EQ(Leave("active", members[0]).error_code, 0);
  EXPECT_EQ(remove({"active"}), std::vector<std::string>{"active:0"});
  EXPECT_TRUE(Fetch("active").empty());
  EXPECT_EQ(Describe("active").group_state, "Dead");
}

TEST_F(GroupTest, IdleEmptyGroupsAreForgottenButTheirOffsetsStay) {
  GroupCoordinatorOptions options = Options();
  options.empty_group_retention_ms = 60000;
  Start(options);
  int32_t gen = 0;
  std::vector<std::string> ids = FormGroup("g", 1, &gen);
  EXPECT_EQ(Commit("g", gen, ids[0], {{"orders", 2, 42}}), std::vector<int16_t>{0});
  EXPECT_EQ(Leave("g", ids[0]).members[0].error_code, 0);
  Advance(59999);
  EXPECT_EQ(Describe("g").protocol_type, "consumer");  // still the in-memory Empty group
  Advance(1);
  DescribeGroupsResponse::Group d = Describe("g");
  EXPECT_EQ(d.group_state, "Empty");  // from its offsets
  EXPECT_EQ(d.protocol_type, "");
  EXPECT_EQ(Fetch("g"), Offsets{"orders/2=42"});
}

// Durability: every commit is in the database before it is answered, and a new coordinator
// (a restarted node) reads the offsets back.
class DurableOffsetsTest : public GroupTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    url_ = metadata::testing::FreshDatabaseUrl(GetParam());
    if (url_.empty()) GTEST_SKIP() << "no " << GetParam() << " server";
    Restart();
  }
  // Stops the coordinator and the store, and starts both again on the same database.
  void Restart() {
    if (coord_) coord_->Stop();
    coord_.reset();
    store_.reset();
    auto opened = metadata::OpenLogStore(url_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->Migrate().ok());
    Start(Options(store_->group_offsets()));
  }
  std::string url_;
  std::unique_ptr<metadata::LogStore> store_;
};

TEST_P(DurableOffsetsTest, CommittedOffsetsSurviveARestart) {
  int32_t gen = 0;
  std::vector<std::string> ids = FormGroup("g", 2, &gen);
  EXPECT_EQ(Commit("g", gen, ids[0], {{"orders", 0, 100}, {"orders", 1, 200}}),
            (std::vector<int16_t>{0, 0}));
  EXPECT_EQ(Commit("g", gen, ids[1], {{"orders", 2, 300}}), std::vector<int16_t>{0});
  EXPECT_EQ(Commit("g", gen, ids[1], {{"orders", 2, 301}}), std::vector<int16_t>{0});
  EXPECT_EQ(Commit("simple", -1, "", {{"events", 0, 7}}), std::vector<int16_t>{0});
  // The rows are in the database already.
  auto rows = store_->group_offsets()->ListGroupOffsets("g");
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[2].offset, 301);
  EXPECT_EQ((*rows)[2].metadata, "meta-301");
  EXPECT_EQ((*rows)[2].leader_epoch, 5);
  EXPECT_EQ((*rows)[2].commit_time_ms, clock_.NowMillis());

  Restart();
  EXPECT_EQ(Fetch("g"), (Offsets{"orders/0=100", "orders/1=200", "orders/2=301"}));
  EXPECT_EQ(Fetch("simple", std::vector{Topic("events", {0, 1})}),
            (Offsets{"events/0=7", "events/1=-1"}));
  // Group membership is not durable: the old members must rejoin.
  EXPECT_EQ(Heartbeat("g", gen, ids[0]), E(ErrorCode::kUnknownMemberId));
  EXPECT_EQ(Commit("g", gen, ids[0], {{"orders", 0, 101}}),
            std::vector<int16_t>{E(ErrorCode::kIllegalGeneration)});
  EXPECT_EQ(Describe("g").group_state, "Empty");
  ListGroupsRequest list;
  auto listed = std::make_shared<Reply<ListGroupsResponse>>();
  coord_->ListGroups(list, Ctx(3), listed->Callback());
  ASSERT_EQ(listed->get().groups.size(), 2u);
  EXPECT_EQ(listed->get().groups[0].group_id, "g");
  EXPECT_EQ(listed->get().groups[1].group_id, "simple");

  // The members come back, commit, and a topic is deleted.
  std::vector<std::string> again = FormGroup("g", 1, &gen);
  EXPECT_EQ(gen, 1);  // generations restart with the in-memory group
  EXPECT_EQ(Commit("g", gen, again[0], {{"events", 0, 9}}), std::vector<int16_t>{0});
  ASSERT_TRUE(coord_->OnTopicDeleted("orders").ok());
  EXPECT_EQ(Fetch("g"), Offsets{"events/0=9"});
  Restart();
  EXPECT_EQ(Fetch("g"), Offsets{"events/0=9"});
  EXPECT_EQ(Fetch("simple"), Offsets{"events/0=7"});
}

TEST_P(DurableOffsetsTest, ACommitThatCannotBeStoredIsNotAcknowledged) {
  // A database without the group_offsets table (never migrated) fails every write.
  const std::string bare_url = metadata::testing::FreshDatabaseUrl(GetParam());
  auto bare = metadata::OpenLogStore(bare_url);
  ASSERT_TRUE(bare.ok()) << bare.status();
  coord_->Stop();
  Start(Options((*bare)->group_offsets()));
  std::vector<int16_t> codes = Commit("g", -1, "", {{"orders", 0, 1}});
  ASSERT_EQ(codes.size(), 1u);
  EXPECT_NE(codes[0], 0);
  OffsetFetchRequest fetch;
  fetch.group_id = "g";
  auto reply = std::make_shared<Reply<OffsetFetchResponse>>();
  coord_->OffsetFetch(fetch, Ctx(5), reply->Callback());
  EXPECT_NE(reply->get().error_code, 0);
  coord_->Stop();
  coord_.reset();
}

// In a cluster the coordinator holds the group's slot lease at an epoch: a commit is taken only
// from the lease's holder at that epoch (checked in the commit's transaction), a node that lost
// the group answers NOT_COORDINATOR, and one that coordinates it again at a newer epoch reads the
// offsets afresh and forgets the members of its old epoch.
TEST_P(DurableOffsetsTest, AFencedCoordinatorCommitsOnlyAtItsEpochAndStartsAfreshAtANewOne) {
  const std::string lease = "group-slot-5";
  std::optional<metadata::OffsetFence> fence;
  std::mutex fence_mutex;
  coord_->Stop();
  GroupCoordinatorOptions options = Options(store_->group_offsets());
  options.fence_of = [&](const std::string&) {
    std::lock_guard<std::mutex> lock(fence_mutex);
    return fence;
  };
  Start(options);
  auto set_fence = [&](std::optional<metadata::OffsetFence> f) {
    std::lock_guard<std::mutex> lock(fence_mutex);
    fence = std::move(f);
  };
  ASSERT_TRUE(store_->TryAcquireLease(lease, "node-1-e1", 1000, 1000).ok());
  set_fence(metadata::OffsetFence{lease, "node-1-e1", 1});
  EXPECT_EQ(Commit("g", -1, "", {{"orders", 0, 10}}), std::vector<int16_t>{0});
  EXPECT_EQ(Fetch("g"), Offsets{"orders/0=10"});
  int32_t gen = 0;
  std::vector<std::string> members = FormGroup("m", 1, &gen);

  // Node 2 takes the lease over (this node was paused past its time to live) and commits 20.
  auto taken = store_->TryAcquireLease(lease, "node-2-e1", 5000, 1000);
  ASSERT_TRUE(taken.ok() && taken->epoch == 2);
  const metadata::OffsetFence theirs{lease, "node-2-e1", 2};
  ASSERT_TRUE(store_->group_offsets()->CommitGroupOffsets(
      "g", {metadata::GroupOffset{"orders", 0, 20, -1, "", 0}}, &theirs).ok());
  // This node does not know yet: its commit is refused in the database, nothing moves back.
  EXPECT_EQ(Commit("g", -1, "", {{"orders", 0, 15}}),
            std::vector<int16_t>{E(ErrorCode::kNotCoordinator)});
  EXPECT_EQ((*store_->group_offsets()->ListGroupOffsets("g"))[0].offset, 20);
  // Once it knows, it answers NOT_COORDINATOR to everything of the group.
  set_fence(std::nullopt);
  EXPECT_EQ(Commit("g", -1, "", {{"orders", 0, 16}}),
            std::vector<int16_t>{E(ErrorCode::kNotCoordinator)});
  OffsetFetchRequest fetch;
  fetch.group_id = "g";
  auto reply = std::make_shared<Reply<OffsetFetchResponse>>();
  coord_->OffsetFetch(fetch, Ctx(5), reply->Callback());
  EXPECT_EQ(reply->get().error_code, E(ErrorCode::kNotCoordinator));

  // It takes the lease back at epoch 3: the offsets are read afresh (20, not the 10 it had),
  // and the members of its old epoch are gone (they rejoin).
  taken = store_->TryAcquireLease(lease, "node-1-e1", 9000, 1000);
  ASSERT_TRUE(taken.ok() && taken->epoch == 3);
  set_fence(metadata::OffsetFence{lease, "node-1-e1", 3});
  EXPECT_EQ(Fetch("g"), Offsets{"orders/0=20"});
  coord_->Tick();
  EXPECT_EQ(Heartbeat("m", gen, members[0]), E(ErrorCode::kUnknownMemberId));
  EXPECT_EQ(Commit("g", -1, "", {{"orders", 0, 30}}), std::vector<int16_t>{0});
  EXPECT_EQ((*store_->group_offsets()->ListGroupOffsets("g"))[0].offset, 30);
  coord_->Stop();
  coord_.reset();  // before `fence` goes out of scope
}

INSTANTIATE_TEST_SUITE_P(Backends, DurableOffsetsTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mink::kafka::testing
