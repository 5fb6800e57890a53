#include "metadata/state.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace mink::metadata {
namespace {

// Applies a command that must validate.
void MustApply(State* s, const Command& c) {
  Status v = s->Validate(c);
  ASSERT_TRUE(v.ok()) << v;
  s->Apply(c, s->applied_seq() + 1, 1000 + s->applied_seq());
}

ObjectEntry Obj(const std::string& key, uint64_t stream, int64_t epoch, int64_t start, int64_t end) {
  ObjectEntry o;
  o.key = key;
  o.bucket_id = -3;
  o.size = 100;
  o.segments.push_back(SegmentEntry{stream, epoch, start, end, 0, 100, 5});
  return o;
}

class StateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MustApply(&s_, RegisterNode{1, 1});
    MustApply(&s_, RegisterNode{2, 1});
    MustApply(&s_, CreateStream{1, "t/b0"});
    MustApply(&s_, OpenStreams{1, 1, {{1, 1}}});
  }
  State s_;
};

TEST_F(StateTest, NodeEpochsMustIncreaseByOne) {
  EXPECT_TRUE(IsAborted(s_.Validate(RegisterNode{1, 1})));
  EXPECT_TRUE(IsAborted(s_.Validate(RegisterNode{1, 3})));
  EXPECT_TRUE(s_.Validate(RegisterNode{1, 2}).ok());
}

TEST_F(StateTest, StreamIdsAreAllocatedInOrder) {
  EXPECT_EQ(s_.next_stream_id(), 2u);
  EXPECT_TRUE(IsAborted(s_.Validate(CreateStream{5, "x"})));
}

TEST_F(StateTest, CommitMustContinueTheCommittedEnd) {
  MustApply(&s_, CommitObjects{1, 1, {Obj("o1", 1, 1, 0, 10)}});
  EXPECT_EQ(s_.FindStream(1)->end_offset, 10);
  Status gap = s_.Validate(CommitObjects{1, 1, {Obj("o2", 1, 1, 11, 20)}});
  EXPECT_TRUE(IsAborted(gap)) << gap;
  EXPECT_NE(gap.message().find("does not continue"), std::string::npos);
  Status overlap = s_.Validate(CommitObjects{1, 1, {Obj("o2", 1, 1, 5, 20)}});
  EXPECT_TRUE(IsAborted(overlap));
  // Two objects in one command must chain.
  EXPECT_TRUE(s_.Validate(CommitObjects{1, 1, {Obj("o2", 1, 1, 10, 20), Obj("o3", 1, 1, 20, 25)}})
                  .ok());
  EXPECT_FALSE(s_.Validate(CommitObjects{1, 1, {Obj("o2", 1, 1, 10, 20), Obj("o3", 1, 1, 21, 25)}})
                   .ok());
}

TEST_F(StateTest, AHigherEpochFencesTheOldOwner) {
  MustApply(&s_, CommitObjects{1, 1, {Obj("o1", 1, 1, 0, 10)}});
  MustApply(&s_, OpenStreams{2, 1, {{1, 2}}});
  Status old_owner = s_.Validate(CommitObjects{1, 1, {Obj("o2", 1, 1, 10, 20)}});
  EXPECT_TRUE(IsAborted(old_owner));
  EXPECT_NE(old_owner.message().find("fenced"), std::string::npos) << old_owner;
  EXPECT_TRUE(s_.Validate(CommitObjects{2, 1, {Obj("o2", 1, 2, 10, 20)}}).ok());
  // Reopening at an epoch that is not higher is refused.
  EXPECT_TRUE(IsAborted(s_.Validate(OpenStreams{1, 1, {{1, 2}}})));
}

TEST_F(StateTest, ARestartedNodeFencesItsOlderProcess) {
  MustApply(&s_, RegisterNode{1, 2});
  EXPECT_TRUE(IsAborted(s_.Validate(CommitObjects{1, 1, {Obj("o1", 1, 1, 0, 10)}})));
  EXPECT_TRUE(IsAborted(s_.Validate(OpenStreams{1, 1, {{1, 2}}})));
  EXPECT_TRUE(s_.Validate(OpenStreams{1, 2, {{1, 2}}}).ok());
}

TEST_F(StateTest, AnObjectKeyIsNeverCommittedTwice) {
  MustApply(&s_, CommitObjects{1, 1, {Obj("o1", 1, 1, 0, 10)}});
  EXPECT_TRUE(IsAborted(s_.Validate(CommitObjects{1, 1, {Obj("o1", 1, 1, 10, 20)}})));
}

TEST_F(StateTest, ReplaceSegmentsSwapsObjectsAndReleasesTheOldOnes) {
  MustApply(&s_, CommitObjects{1, 1, {Obj("o1", 1, 1, 0, 10), Obj("o2", 1, 1, 10, 20)}});
  ObjectEntry merged = Obj("s1", 1, 1, 0, 20);
  MustApply(&s_, ReplaceSegments{1, 0, 20, {"o1", "o2"}, merged});
  const StreamState* st = s_.FindStream(1);
  ASSERT_EQ(st->segments.size(), 1u);
  EXPECT_EQ(st->Find(15)->object_key, "s1");
  EXPECT_EQ(s_.objects().count("o1"), 0u);
  EXPECT_EQ(s_.unreferenced().count("o1"), 1u);
  EXPECT_EQ(s_.unreferenced().count("o2"), 1u);
  // A stale replacement (segments changed meanwhile) is refused.
  EXPECT_TRUE(IsAborted(s_.Validate(ReplaceSegments{1, 0, 20, {"o1", "o2"}, Obj("s2", 1, 1, 0, 20)})));
  MustApply(&s_, ForgetObjects{{"o1", "o2"}});
  EXPECT_TRUE(s_.unreferenced().empty());
}

TEST_F(StateTest, WalObjectIsReleasedOnlyWhenEveryStreamMovedOut) {
  MustApply(&s_, CreateStream{2, "t/b1"});
  MustApply(&s_, OpenStreams{1, 1, {{2, 1}}});
  ObjectEntry wal = Obj("wal1", 1, 1, 0, 5);
  wal.segments.push_back(SegmentEntry{2, 1, 0, 3, 0, 50, 5});
  MustApply(&s_, CommitObjects{1, 1, {wal}});
  EXPECT_EQ(s_.objects().at("wal1").references, 2);
  MustApply(&s_, ReplaceSegments{1, 0, 5, {"wal1"}, Obj("s1", 1, 1, 0, 5)});
  EXPECT_EQ(s_.objects().at("wal1").references, 1);
  EXPECT_TRUE(s_.unreferenced().empty());
  MustApply(&s_, TrimStream{2, 3});
  EXPECT_EQ(s_.unreferenced().count("wal1"), 1u);
}

TEST_F(StateTest, TrimDropsWholeSegmentsBelowTheNewStart) {
  MustApply(&s_, CommitObjects{1, 1, {Obj("o1", 1, 1, 0, 10), Obj("o2", 1, 1, 10, 20)}});
  MustApply(&s_, TrimStream{1, 15});
  const StreamState* st = s_.FindStream(1);
  EXPECT_EQ(st->start_offset, 15);
  EXPECT_EQ(st->segments.size(), 1u);
  EXPECT_EQ(st->Find(5), nullptr);
  EXPECT_FALSE(s_.Validate(TrimStream{1, 25}).ok());
  EXPECT_FALSE(s_.Validate(TrimStream{1, 10}).ok());
}

TEST_F(StateTest, SerializeRoundTripsExactly) {
  MustApply(&s_, CommitObjects{1, 1, {Obj("o1", 1, 1, 0, 10)}});
  MustApply(&s_, TrimStream{1, 4});
  std::string text = s_.Serialize();
  auto loaded = State::Deserialize(text);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->Serialize(), text);
  EXPECT_EQ(loaded->applied_seq(), s_.applied_seq());
  EXPECT_FALSE(State::Deserialize("{nope").ok());
}

// A segment's record-time bound is an eighth element of its snapshot tuple when it has one;
// snapshots written before it existed have seven, and load with the bound unknown.
TEST_F(StateTest, ASegmentsRecordTimeBoundSurvivesTheSnapshot) {
  ObjectEntry bounded = Obj("o1", 1, 1, 0, 10);
  bounded.segments[0].max_record_time_ms = 4242;
  MustApply(&s_, CommitObjects{1, 1, {bounded}});
  MustApply(&s_, CommitObjects{1, 1, {Obj("o2", 1, 1, 10, 12)}});
  nlohmann::json j = nlohmann::json::parse(s_.Serialize());
  const auto& segments = j["streams"][0]["segments"];
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_EQ(segments[0].size(), 8u);
  EXPECT_EQ(segments[0][7], 4242);
  EXPECT_EQ(segments[1].size(), 7u);
  auto loaded = State::Deserialize(j.dump());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->FindStream(1)->segments.at(0).max_record_time_ms, 4242);
  EXPECT_EQ(loaded->FindStream(1)->segments.at(10).max_record_time_ms, kUnknownRecordTime);
  EXPECT_EQ(loaded->Serialize(), s_.Serialize());
}

// The elected coordinator survives a snapshot; a snapshot written before elections existed loads
// with none.
TEST_F(StateTest, TheElectedCoordinatorSurvivesTheSnapshot) {
  MustApply(&s_, ElectCoordinator{1, 1, 4});
  EXPECT_FALSE(s_.Validate(ElectCoordinator{1, 1, 4}).ok()) << "not a newer lease epoch";
  nlohmann::json j = nlohmann::json::parse(s_.Serialize());
  EXPECT_EQ(j["coordinator"], nlohmann::json::array({1, 1, 4}));
  auto loaded = State::Deserialize(j.dump());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->coordinator().lease_epoch, 4);
  EXPECT_EQ(loaded->Serialize(), s_.Serialize());
  j.erase("coordinator");
  auto old = State::Deserialize(j.dump());
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->coordinator().node_id, 0);
}

// Only the elected coordinator at its lease epoch assigns streams, to registered nodes; the
// assignment survives a snapshot.
TEST_F(StateTest, StreamsAreAssignedByTheElectedCoordinatorOnly) {
  EXPECT_EQ(s_.Validate(AssignStreams{1, 1, {StreamAssignment{1, 1}}}).code(), StatusCode::kAborted)
      << "nobody is elected yet";
  MustApply(&s_, ElectCoordinator{1, 1, 3});
  EXPECT_EQ(s_.Validate(AssignStreams{1, 2, {StreamAssignment{1, 1}}}).code(), StatusCode::kAborted)
      << "an older lease epoch";
  EXPECT_EQ(s_.Validate(AssignStreams{1, 3, {StreamAssignment{99, 1}}}).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(s_.Validate(AssignStreams{1, 3, {StreamAssignment{1, 42}}}).code(),
            StatusCode::kNotFound) << "node 42 never registered";
  MustApply(&s_, AssignStreams{1, 3, {StreamAssignment{1, 1}}});
  EXPECT_EQ(s_.FindStream(1)->assigned_node, 1);
  auto loaded = State::Deserialize(s_.Serialize());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->FindStream(1)->assigned_node, 1);
  EXPECT_EQ(loaded->Serialize(), s_.Serialize());
}

// A planned move: the owner releases (only its own streams, at its current epoch), the stream
// keeps its epoch and has no owner. A takeover clears the owner at once, so the dead owner's
// commits are refused.
TEST_F(StateTest, ReleasedAndTakenOverStreamsHaveNoOwner) {
  ASSERT_EQ(s_.FindStream(1)->owner_node, 1);
  const int64_t epoch = s_.FindStream(1)->epoch;
  EXPECT_EQ(s_.Validate(ReleaseStreams{2, 1, {1}}).code(), StatusCode::kAborted) << "not node 2's";
  EXPECT_EQ(s_.Validate(ReleaseStreams{1, 1, {99}}).code(), StatusCode::kNotFound);
  MustApply(&s_, ReleaseStreams{1, 1, {1}});
  EXPECT_EQ(s_.FindStream(1)->owner_node, 0);
  EXPECT_EQ(s_.FindStream(1)->epoch, epoch);
  EXPECT_EQ(s_.Validate(ReleaseStreams{1, 1, {1}}).code(), StatusCode::kAborted) << "twice";

  MustApply(&s_, OpenStreams{1, 1, {{1, epoch + 1}}});
  MustApply(&s_, ElectCoordinator{2, 1, 1});
  MustApply(&s_, AssignStreams{2, 1, {StreamAssignment{1, 2, true}}});
  EXPECT_EQ(s_.FindStream(1)->owner_node, 0);
  EXPECT_EQ(s_.FindStream(1)->assigned_node, 2);
  CommitObjects late{1, 1, {Obj("wal/late", 1, epoch + 1, 0, 1)}};
  EXPECT_EQ(s_.Validate(late).code(), StatusCode::kAborted) << "the dead owner is fenced";
}

// A leaving node process is marked until a new process of its node id registers.
TEST_F(StateTest, ALeavingNodeIsMarkedUntilItsNextProcess) {
  EXPECT_EQ(s_.Validate(LeaveCluster{1, 2}).code(), StatusCode::kAborted);
  MustApply(&s_, LeaveCluster{1, 1});
  EXPECT_TRUE(s_.nodes().at(1).leaving);
  auto loaded = State::Deserialize(s_.Serialize());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->nodes().at(1).leaving);
  EXPECT_FALSE(loaded->nodes().at(2).leaving);
  MustApply(&s_, RegisterNode{1, 2});
  EXPECT_FALSE(s_.nodes().at(1).leaving);
}

// Serialize writes its text by hand; it must be exactly what the json library writes for the
// same document (sorted keys, no spaces, its escapes), so parsing and dumping it changes nothing.
TEST_F(StateTest, SerializeWritesCanonicalJson) {
  MustApply(&s_, CreateStream{2, std::string("odd \"name\" \\ tab\t nl\n ctl\x01\x1f del\x7f \xC3\xA9")});
  MustApply(&s_, OpenStreams{1, 1, {{2, 1}}});
  MustApply(&s_, CommitObjects{1, 1, {Obj("wal/o1", 1, 1, 0, 10), Obj("wal/o\"2", 2, 1, 0, 4)}});
  MustApply(&s_, CommitObjects{1, 1, {Obj("wal/o3", 1, 1, 10, 20)}});
  MustApply(&s_, TrimStream{1, 10});  // wal/o1 loses its last reference: unreferenced
  MustApply(&s_, CommitKvSnapshot{2, "kv/snap-1", -2, 12345, 4});
  MustApply(&s_, CreateDatabase{"shop"});
  MustApply(&s_, CreateTable{"shop", "orders", 1, "{\"d\":\"x\\ty\"}", 2, true, 0, 1, 1});
  MustApply(&s_, CreatePartition{1, "us", 1, s_.next_stream_id(), 1, 1});
  MustApply(&s_, CreateUser{"ana", {ScramCredential{"SCRAM-SHA-512", "c2FsdA==", 4096, "c3Q=", "c2U="}}, false});
  EXPECT_EQ(s_.Validate(SetClusterSecret{std::string(44, 'B')}).code(), StatusCode::kFailedPrecondition);
  MustApply(&s_, GrantAcls{{AclEntry{"ana", "table:shop.\"x\"", "read"}, AclEntry{"*", "group:g", "read"}}});
  ASSERT_FALSE(s_.unreferenced().empty());
  ASSERT_FALSE(s_.kv_snapshots().empty());
  const std::string text = s_.Serialize();
  EXPECT_EQ(nlohmann::json::parse(text).dump(), text);
  auto loaded = State::Deserialize(text);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->Serialize(), text);
  EXPECT_EQ(loaded->FindStream(2)->name, s_.FindStream(2)->name);
  EXPECT_EQ(loaded->users().at("ana").credentials, s_.users().at("ana").credentials);
  EXPECT_EQ(text.find("secret"), std::string::npos);
  EXPECT_EQ(loaded->acls(), s_.acls());
  State empty;
  EXPECT_EQ(nlohmann::json::parse(empty.Serialize()).dump(), empty.Serialize());
}

TEST_F(StateTest, UsersKeepCredentialsAndRefuseWhatIsWrong) {
  const ScramCredential good{"SCRAM-SHA-256", "c2FsdA==", 4096, "c3Q=", "c2U="};
  MustApply(&s_, CreateUser{"ana", {good}, false});
  EXPECT_EQ(s_.Validate(CreateUser{"ana", {good}, false}).code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(s_.Validate(CreateUser{"ana", {good}, true}).ok()) << "a new password";
  EXPECT_EQ(s_.Validate(CreateUser{"a b", {good}, false}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s_.Validate(CreateUser{"bo", {}, false}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s_.Validate(CreateUser{"bo", {ScramCredential{"MD5", "s", 4096, "k", "k"}}, false}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(s_.Validate(CreateUser{"bo", {ScramCredential{"SCRAM-SHA-256", "s", 100, "k", "k"}}, false}).code(),
            StatusCode::kInvalidArgument);
  MustApply(&s_, DeleteUser{"ana"});
  EXPECT_TRUE(s_.users().empty());
  EXPECT_EQ(s_.Validate(DeleteUser{"ana"}).code(), StatusCode::kNotFound);
}

TEST_F(StateTest, AclsAreGrantedOnceRevokedAndCheckedForShape) {
  const AclEntry write{"bo", "table:kafka.orders", "write"};
  MustApply(&s_, GrantAcls{{write, AclEntry{"*", "database:kafka", "describe"}}});
  MustApply(&s_, GrantAcls{{write}});
  EXPECT_EQ(s_.acls().size(), 2u) << "granting twice keeps one entry";
  MustApply(&s_, RevokeAcls{{write, AclEntry{"bo", "cluster", "admin"}}});
  EXPECT_EQ(s_.acls(), (std::set<AclEntry>{AclEntry{"*", "database:kafka", "describe"}}));
  for (const AclEntry& bad : {AclEntry{"b o", "cluster", "read"}, AclEntry{"bo", "cluster:x", "read"},
                              AclEntry{"bo", "table:orders", "read"}, AclEntry{"bo", "table:.b", "read"},
                              AclEntry{"bo", "database:", "read"}, AclEntry{"bo", "topic:t", "read"},
                              AclEntry{"bo", "cluster", "delete"}}) {
    EXPECT_EQ(s_.Validate(GrantAcls{{bad}}).code(), StatusCode::kInvalidArgument) << bad.resource << " " << bad.operation;
  }
  EXPECT_TRUE(s_.Validate(GrantAcls{{AclEntry{"bo", "table:kafka.*", "read"}, AclEntry{"bo", "table:*", "read"},
                                     AclEntry{"bo", "group:my.group", "read"},
                                     AclEntry{"bo", "table:kafka.my.topic", "read"}}})
                  .ok());
}

TEST_F(StateTest, CatalogDatabasesTablesAndPartitions) {
  EXPECT_EQ(s_.Validate(CreateTable{"shop", "orders", 1, "{}", 2, true, 0, 1, 1}).code(),
            StatusCode::kNotFound);
  MustApply(&s_, CreateDatabase{"shop"});
  EXPECT_EQ(s_.Validate(CreateDatabase{"shop"}).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s_.Validate(CreateDatabase{"bad name"}).code(), StatusCode::kInvalidArgument);
  // Unpartitioned: the bucket streams come with the table, open and owned by the creator.
  uint64_t first = s_.next_stream_id();
  MustApply(&s_, CreateTable{"shop", "events", 1, "{\"d\":1}", 3, false, first, 1, 1});
  const TableState* events = s_.FindTable("shop", "events");
  ASSERT_NE(events, nullptr);
  ASSERT_EQ(events->streams.size(), 3u);
  EXPECT_EQ(s_.FindStream(events->streams[2])->name, "shop.events/b2");
  EXPECT_EQ(s_.FindStream(events->streams[0])->owner_node, 1);
  EXPECT_EQ(s_.FindStream(events->streams[0])->epoch, 1);
  EXPECT_EQ(s_.Validate(CreateTable{"shop", "events", 2, "{}", 1, false, s_.next_stream_id(), 1, 1}).code(),
            StatusCode::kAlreadyExists);
  // Partitioned: partitions get ids from 1 in order of creation.
  MustApply(&s_, CreateTable{"shop", "orders", 2, "{}", 2, true, 0, 1, 1});
  MustApply(&s_, CreatePartition{2, "us", 1, s_.next_stream_id(), 1, 1});
  MustApply(&s_, CreatePartition{2, "eu", 2, s_.next_stream_id(), 1, 1});
  const TableState* orders = s_.FindTable(2);
  ASSERT_EQ(orders->partitions.size(), 2u);
  EXPECT_EQ(s_.FindStream(orders->partitions.at("us").streams[0])->name, "shop.orders/p1/b0");
  EXPECT_EQ(s_.FindStream(orders->partitions.at("eu").streams[1])->name, "shop.orders/p2/b1");
  EXPECT_EQ(s_.Validate(CreatePartition{2, "us", 3, s_.next_stream_id(), 1, 1}).code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(s_.Validate(DropDatabase{"shop", false}).code(), StatusCode::kFailedPrecondition);
  // Serialization keeps the catalog.
  auto loaded = State::Deserialize(s_.Serialize());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->Serialize(), s_.Serialize());
  uint64_t us_stream = orders->partitions.at("us").streams[0];
  MustApply(&s_, DropTable{"shop", "orders"});
  EXPECT_EQ(s_.FindTable("shop", "orders"), nullptr);
  EXPECT_EQ(s_.FindStream(us_stream), nullptr);
  MustApply(&s_, DropDatabase{"shop", true});
  EXPECT_TRUE(s_.databases().empty());
  EXPECT_TRUE(s_.tables().empty());
}

TEST_F(StateTest, KvSnapshotsReplaceEachOther) {
  MustApply(&s_, CommitObjects{1, 1, {Obj("o1", 1, 1, 0, 10)}});
  MustApply(&s_, CommitKvSnapshot{1, "kv1", -2, 50, 5});
  MustApply(&s_, CommitKvSnapshot{1, "kv2", -2, 60, 10});
  EXPECT_EQ(s_.kv_snapshots().at(1).key, "kv2");
  EXPECT_EQ(s_.unreferenced().count("kv1"), 1u);
  EXPECT_TRUE(IsAborted(s_.Validate(CommitKvSnapshot{1, "kv3", -2, 60, 7})));
  EXPECT_FALSE(s_.Validate(CommitKvSnapshot{1, "kv3", -2, 60, 11}).ok());
  MustApply(&s_, AllocateWriterId{1});
  EXPECT_EQ(s_.next_writer_id(), 2);
}

}  // namespace
}  // namespace mink::metadata

namespace mink::metadata {
namespace {

// A lake commit follows the current snapshot at the next sequence number; its offsets move
// forward within the table's streams; files and manifests come and go; all survive a snapshot.
TEST_F(StateTest, LakeCommitsFollowTheCurrentSnapshotAndSurviveTheSnapshot) {
  MustApply(&s_, CreateDatabase{"shop"});
  const uint64_t first_stream = s_.next_stream_id();
  MustApply(&s_, CreateTable{"shop", "bills", 1, "{}", 1, false, first_stream, 1, 1});
  MustApply(&s_, CommitObjects{1, 1, {Obj("wal/b1", first_stream, 1, 0, 5)}});
  auto commit = [&](int64_t parent, int64_t id, int64_t seq, int64_t offset,
                    std::vector<std::string> removed = {}) {
    CommitLakeSnapshot c;
    c.table_id = 1;
    c.parent_snapshot_id = parent;
    c.table_uuid = "u-1";
    c.location = "file:///w/shop/bills";
    c.snapshot = LakeSnapshot{id, parent, seq, 1000, "ml-" + std::to_string(id), {}, 0};
    c.metadata_location = "v" + std::to_string(seq) + ".metadata.json";
    c.added_files = {LakeFile{"f" + std::to_string(id), 0, seq, id, first_stream, 2, 100}};
    c.removed_files = std::move(removed);
    c.added_manifests = {LakeManifest{"m" + std::to_string(id), 50, 0, seq, seq, id, 1, 2}};
    c.offsets = {{first_stream, offset}};
    return c;
  };
  MustApply(&s_, commit(0, 11, 1, 3));
  EXPECT_EQ(s_.Validate(commit(0, 12, 1, 4)).code(), StatusCode::kAborted) << "not on the current";
  EXPECT_EQ(s_.Validate(commit(11, 12, 3, 4)).code(), StatusCode::kInvalidArgument) << "seq";
  EXPECT_EQ(s_.Validate(commit(11, 12, 2, 2)).code(), StatusCode::kInvalidArgument) << "backwards";
  EXPECT_EQ(s_.Validate(commit(11, 12, 2, 6)).code(), StatusCode::kInvalidArgument) << "beyond";
  MustApply(&s_, commit(11, 12, 2, 5, {"f11"}));
  const LakeTableState& lake = s_.lake_tables().at(1);
  EXPECT_EQ(lake.snapshot_id, 12);
  EXPECT_EQ(lake.offsets.at(first_stream), 5);
  ASSERT_EQ(lake.files.size(), 1u);
  EXPECT_EQ(lake.files[0].path, "f12");
  EXPECT_EQ(lake.manifests.size(), 2u);
  EXPECT_EQ(lake.metadata_log.size(), 1u);
  const std::string text = s_.Serialize();
  EXPECT_EQ(nlohmann::json::parse(text).dump(), text);
  auto loaded = State::Deserialize(text);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->Serialize(), text);
  MustApply(&s_, DropTable{"shop", "bills"});
  EXPECT_TRUE(s_.lake_tables().empty());
}

}  // namespace
}  // namespace mink::metadata

namespace mink::metadata {
namespace {

// The lake catalog's own namespaces and tables: Mink databases are namespaces; names are taken
// once; a commit moves a table's pointer only from where it expects it; outcomes with a key are
// kept for their retries, then forgotten; all of it survives a snapshot.
TEST_F(StateTest, TheLakeCatalogsNamespacesAndTablesMoveByCompareAndSet) {
  MustApply(&s_, CreateDatabase{"shop"});
  MustApply(&s_, CreateTable{"shop", "bills", 1, "{}", 1, false, s_.next_stream_id(), 1, 1});
  EXPECT_TRUE(s_.LakeNamespaceExists({"shop"}));
  EXPECT_EQ(s_.Validate(CreateLakeNamespace{{"shop"}, {}, {}}).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s_.Validate(DropLakeNamespace{{"shop"}, {}}).code(), StatusCode::kFailedPrecondition);
  MustApply(&s_, CreateLakeNamespace{{"ext", "raw"}, {{"owner", "ana"}}, {"k1", 200, "{}"}});
  EXPECT_EQ(s_.Validate(CreateLakeNamespace{{"other"}, {}, {"k1", 200, "{}"}}).code(),
            StatusCode::kAborted) << "a key is used once";
  MustApply(&s_, UpdateLakeNamespace{{"ext", "raw"}, {"owner"}, {{"team", "lake"}}, {}});
  EXPECT_EQ(s_.lake_namespaces().at({"ext", "raw"}).properties,
            (std::map<std::string, std::string>{{"team", "lake"}}));

  const NamespaceName ext{"ext", "raw"};
  EXPECT_EQ(s_.Validate(CommitLakeCatalog{{LakeTableMove{{"shop"}, "bills", "", "m0"}}, {}}).code(),
            StatusCode::kFailedPrecondition) << "a Mink table's name";
  EXPECT_EQ(s_.Validate(CommitLakeCatalog{{LakeTableMove{{"nope"}, "t", "", "m0"}}, {}}).code(),
            StatusCode::kNotFound);
  MustApply(&s_, CommitLakeCatalog{{LakeTableMove{ext, "t", "", "m1"}}, {}});
  EXPECT_EQ(s_.Validate(CommitLakeCatalog{{LakeTableMove{ext, "t", "", "m2"}}, {}}).code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(s_.Validate(CommitLakeCatalog{{LakeTableMove{ext, "t", "m0", "m2"}}, {}}).code(),
            StatusCode::kAborted) << "not from where it is";
  // Two tables in one commit: both move or neither.
  EXPECT_EQ(s_.Validate(CommitLakeCatalog{{LakeTableMove{ext, "u", "", "n1"},
                                           LakeTableMove{ext, "t", "m0", "m2"}}, {}}).code(),
            StatusCode::kAborted);
  MustApply(&s_, CommitLakeCatalog{{LakeTableMove{ext, "u", "", "n1"}, LakeTableMove{ext, "t", "m1", "m2"}},
                                   {"k2", 200, "{\"metadata-location\":\"m2\"}"}});
  EXPECT_EQ(s_.lake_catalog_tables().at({ext, "t"}).metadata_location, "m2");
  EXPECT_EQ(s_.lake_catalog_tables().at({ext, "t"}).previous_location, "m1");
  EXPECT_EQ(s_.Validate(DropLakeNamespace{ext, {}}).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s_.Validate(RenameLakeTable{ext, "t", ext, "u", {}}).code(), StatusCode::kAlreadyExists);
  MustApply(&s_, RenameLakeTable{ext, "t", {"shop"}, "t", {}});
  EXPECT_EQ(s_.lake_catalog_tables().count({{"shop"}, "t"}), 1u);

  const std::string text = s_.Serialize();
  auto loaded = State::Deserialize(text);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->Serialize(), text);
  EXPECT_EQ(loaded->idempotent_outcomes().at("k2").body, "{\"metadata-location\":\"m2\"}");

  MustApply(&s_, CommitLakeCatalog{{LakeTableMove{ext, "u", "n1", ""}}, {}});  // a drop
  MustApply(&s_, DropLakeNamespace{ext, {}});
  EXPECT_FALSE(s_.LakeNamespaceExists(ext));
  // Outcomes are forgotten after their lifetime.
  s_.Apply(CreateLakeNamespace{{"later"}, {}, {}}, s_.applied_seq() + 1,
           1000 + kIdempotencyLifetimeMs + 100);
  EXPECT_TRUE(s_.idempotent_outcomes().empty());
}

// Continuous SQL's objects: created by name, replaced only by their kind, dropped only when
// nothing reads them, kept in snapshots.
TEST_F(StateTest, ContinuousObjectsAndWhatReadsThem) {
  MustApply(&s_, CreateContinuousObject{"ticks", "source", "CREATE SOURCE ticks FROM GENERATOR ()", "{}", {}});
  EXPECT_EQ(s_.Validate(CreateContinuousObject{"ticks", "source", "again", "{}", {}}).code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(s_.Validate(CreateContinuousObject{"ticks", "view", "x", "{}", {}, true}).code(),
            StatusCode::kInvalidArgument) << "OR REPLACE keeps the kind";
  EXPECT_EQ(s_.Validate(CreateContinuousObject{"totals", "view", "x", "{}", {"nope"}}).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(s_.Validate(CreateContinuousObject{"t", "table", "x", "{}", {}}).code(), StatusCode::kInvalidArgument);
  MustApply(&s_, CreateContinuousObject{"totals", "view", "CREATE MATERIALIZED VIEW totals AS ...", "{\"k\":1}",
                                        {"ticks"}});
  EXPECT_EQ(s_.Validate(DropContinuousObject{"ticks", "source"}).code(), StatusCode::kFailedPrecondition)
      << "totals reads it";
  EXPECT_EQ(s_.Validate(DropContinuousObject{"totals", "stream"}).code(), StatusCode::kInvalidArgument);

  // Progress: epochs follow one another by one; a source has none.
  EXPECT_EQ(s_.Validate(CommitContinuousProgress{"totals", 2, "{}"}).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s_.Validate(CommitContinuousProgress{"ticks", 1, "{}"}).code(), StatusCode::kInvalidArgument);
  MustApply(&s_, CommitContinuousProgress{"totals", 1, "{\"p\":1}"});
  EXPECT_EQ(s_.Validate(CommitContinuousProgress{"totals", 1, "{}"}).code(), StatusCode::kFailedPrecondition)
      << "a second run of epoch 1 is refused";

  const std::string text = s_.Serialize();
  auto loaded = State::Deserialize(text);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->Serialize(), text);
  EXPECT_EQ(loaded->continuous().at("totals").definition, "{\"k\":1}");
  EXPECT_EQ(loaded->continuous().at("totals").inputs, std::vector<std::string>{"ticks"});
  EXPECT_EQ(loaded->continuous().at("totals").epoch, 1);
  EXPECT_EQ(loaded->continuous().at("totals").progress, "{\"p\":1}");
  MustApply(&s_, CreateContinuousObject{"totals", "view", "again", "{}", {"ticks"}, true});
  EXPECT_EQ(s_.continuous().at("totals").epoch, 0) << "a replaced object starts again";

  MustApply(&s_, DropContinuousObject{"totals", "view"});
  MustApply(&s_, DropContinuousObject{"ticks", "source"});
  EXPECT_TRUE(s_.continuous().empty());
  EXPECT_EQ(s_.Validate(DropContinuousObject{"ticks", "source"}).code(), StatusCode::kNotFound);
}

// A partitioned table attaching a lake table is created with the partitions its files are in; a
// file's bucket index becomes the stream of that partition's bucket.
TEST_F(StateTest, APartitionedAttachCreatesThePartitionsItsFilesAreIn) {
  MustApply(&s_, CreateDatabase{"shop"});
  MustApply(&s_, CommitLakeCatalog{{LakeTableMove{{"shop"}, "regional", "", "m1"}}, {}});
  const uint64_t first = s_.next_stream_id();
  LakeAttach attach;
  attach.space = {"shop"};
  attach.name = "regional";
  attach.metadata_location = "m1";
  attach.partitions = {"eu", "us"};
  attach.commit.table_uuid = "u";
  attach.commit.location = "file:///w/shop/regional";
  attach.commit.metadata_location = "m1";
  attach.commit.snapshot.snapshot_id = 7;
  attach.commit.snapshot.sequence_number = 1;
  attach.commit.added_files = {LakeFile{"f-eu-1", 0, 1, 7, /*bucket index*/ 1, 3, 100},
                               LakeFile{"f-us-0", 0, 1, 7, /*bucket index*/ 2, 2, 100}};
  CreateTable create{"shop", "regional", s_.next_table_id(), "{}", 2, true, first, 1, 1, attach};

  CreateTable unpartitioned = create;
  unpartitioned.partitioned = false;
  EXPECT_EQ(s_.Validate(unpartitioned).code(), StatusCode::kInvalidArgument);
  CreateTable twice = create;
  twice.lake_attach->partitions = {"eu", "eu"};
  EXPECT_EQ(s_.Validate(twice).code(), StatusCode::kInvalidArgument);
  CreateTable beyond = create;
  beyond.lake_attach->commit.added_files[1].stream_id = 4;  // 2 partitions x 2 buckets
  EXPECT_EQ(s_.Validate(beyond).code(), StatusCode::kInvalidArgument);
  CreateTable later_streams = create;
  later_streams.first_stream_id = first + 1;
  EXPECT_EQ(s_.Validate(later_streams).code(), StatusCode::kAborted);

  MustApply(&s_, create);
  const TableState* t = s_.FindTable("shop", "regional");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->partitions.size(), 2u);
  EXPECT_EQ(t->partitions.at("eu").partition_id, 1);
  EXPECT_EQ(t->partitions.at("eu").streams, (std::vector<uint64_t>{first, first + 1}));
  EXPECT_EQ(t->partitions.at("us").streams, (std::vector<uint64_t>{first + 2, first + 3}));
  EXPECT_EQ(s_.next_stream_id(), first + 4);
  const LakeTableState& lake = s_.lake_tables().at(t->table_id);
  std::map<std::string, uint64_t> streams;
  for (const auto& f : lake.files) streams[f.path] = f.stream_id;
  EXPECT_EQ(streams, (std::map<std::string, uint64_t>{{"f-eu-1", first + 1}, {"f-us-0", first + 2}}));
  EXPECT_EQ(s_.lake_catalog_tables().count({{"shop"}, "regional"}), 0u);
}

}  // namespace
}  // namespace mink::metadata
