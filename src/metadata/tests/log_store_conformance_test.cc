// One conformance suite for every LogStore backend (SQLite, and PostgreSQL on the server the
// harness starts).

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <thread>

#include "base/clock.h"
#include "metadata/log_store.h"
#include "test_databases.h"

namespace mink::metadata {
namespace {

// Runs `sql` on the database behind `url` with the database's own client library.
void RunRaw(const std::string& url, const std::string& sql) {
  if (url.rfind("sqlite:", 0) == 0) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(url.substr(7).c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
    return;
  }
  PGconn* conn = PQconnectdb(url.c_str());
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
  PGresult* res = PQexec(conn, sql.c_str());
  EXPECT_EQ(PQresultStatus(res), PGRES_COMMAND_OK) << PQerrorMessage(conn);
  PQclear(res);
  PQfinish(conn);
}

class LogStoreConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    url_ = testing::FreshDatabaseUrl(GetParam());
    if (url_.empty()) GTEST_SKIP() << "no " << GetParam() << " server";
    auto opened = OpenLogStore(url_);
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->Migrate().ok());
  }
  CommandRecord Rec(int64_t seq) {
    return CommandRecord{seq, "id" + std::to_string(seq), 1000 + seq, "n1", "k", "{\"x\":" +
                                                                                   std::to_string(seq) + "}"};
  }
  std::string url_;
  std::unique_ptr<LogStore> store_;
};

TEST_P(LogStoreConformance, MigrateIsIdempotentAndVersioned) {
  ASSERT_TRUE(store_->Migrate().ok());
  auto v = store_->SchemaVersion();
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 4);
}

TEST_P(LogStoreConformance, InsertedCommandsReadBackInOrder) {
  for (int i = 1; i <= 5; ++i) ASSERT_TRUE(store_->Insert(Rec(i)).ok());
  auto all = store_->ReadAfter(0, 100);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[2].seq, 3);
  EXPECT_EQ((*all)[2].id, "id3");
  EXPECT_EQ((*all)[2].body, "{\"x\":3}");
  EXPECT_EQ((*all)[2].time_ms, 1003);
  auto tail = store_->ReadAfter(3, 1);
  ASSERT_TRUE(tail.ok());
  ASSERT_EQ(tail->size(), 1u);
  EXPECT_EQ(tail->front().seq, 4);
}

TEST_P(LogStoreConformance, ADuplicateSeqIsAborted) {
  ASSERT_TRUE(store_->Insert(Rec(1)).ok());
  Status dup = store_->Insert(Rec(1));
  EXPECT_TRUE(IsAborted(dup)) << dup;
  EXPECT_EQ(store_->ReadAfter(0, 10)->size(), 1u);
}

TEST_P(LogStoreConformance, AFailedAppendLockCallbackRollsBack) {
  Status s = store_->WithAppendLock([&]() -> Status {
    EXPECT_TRUE(store_->Insert(Rec(1)).ok());
    return InternalError("validation failed");
  });
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(store_->ReadAfter(0, 10)->empty());
  ASSERT_TRUE(store_->WithAppendLock([&] { return store_->Insert(Rec(1)); }).ok());
  EXPECT_EQ(store_->ReadAfter(0, 10)->size(), 1u);
}

TEST_P(LogStoreConformance, AnotherConnectionSeesCommitsAndIsWoken) {
  auto other = OpenLogStore(url_);
  ASSERT_TRUE(other.ok());
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(store_->Insert(Rec(1)).ok());
  });
  auto start = SteadyNow();
  std::vector<CommandRecord> seen;
  while (seen.empty() && SteadyNow() - start < std::chrono::seconds(5)) {
    (*other)->WaitForCommands(0, std::chrono::milliseconds(1000));
    seen = *(*other)->ReadAfter(0, 10);
  }
  writer.join();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_LT(SteadyNow() - start, std::chrono::seconds(2));
}

TEST_P(LogStoreConformance, SnapshotsAndPruning) {
  EXPECT_FALSE(store_->LatestSnapshot()->has_value());
  for (int i = 1; i <= 30; ++i) ASSERT_TRUE(store_->Insert(Rec(i)).ok());
  ASSERT_TRUE(store_->WriteSnapshot({10, "s10"}).ok());
  ASSERT_TRUE(store_->WriteSnapshot({20, "s20"}).ok());
  ASSERT_TRUE(store_->WriteSnapshot({30, "s30"}).ok());
  auto latest = store_->LatestSnapshot();
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->seq, 30);
  EXPECT_EQ((*latest)->body, "s30");
  ASSERT_TRUE(store_->Prune(20, 2).ok());
  auto rest = store_->ReadAfter(0, 100);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 10u);
  EXPECT_EQ(rest->front().seq, 21);
}

// A text of `bytes` bytes of two-byte characters and a counter, so part cuts fall inside
// characters unless the writer avoids them.
std::string LargeSnapshotText(size_t bytes, int seed) {
  std::string text = "{\"seed\":" + std::to_string(seed) + ",\"s\":\"";
  for (size_t i = 0; text.size() < bytes; ++i) {
    text += (i % 97 == 0) ? std::to_string(i) : "\xC3\xA9";  // é
  }
  return text + "\"}";
}

TEST_P(LogStoreConformance, ALargeSnapshotIsWrittenInPartsAndReadBackWhole) {
  const std::string big = LargeSnapshotText(3 * kSnapshotPartBytes + 1000, 1);
  ASSERT_GT(SplitSnapshot(big).size(), 3u);
  ASSERT_TRUE(store_->WriteSnapshot({40, big}).ok());
  ASSERT_TRUE(store_->WriteSnapshot({40, big}).ok());  // a second node writing the same seq
  auto latest = store_->LatestSnapshot();
  ASSERT_TRUE(latest.ok()) << latest.status();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->seq, 40);
  EXPECT_EQ((*latest)->body, big);
  const std::string newer = LargeSnapshotText(kSnapshotPartBytes + 10, 2);
  ASSERT_TRUE(store_->WriteSnapshot({50, newer}).ok());
  ASSERT_TRUE(store_->Prune(40, 1).ok());
  latest = store_->LatestSnapshot();
  ASSERT_TRUE(latest.ok() && latest->has_value()) << latest.status();
  EXPECT_EQ((*latest)->seq, 50);
  EXPECT_EQ((*latest)->body, newer);
}

TEST_P(LogStoreConformance, AnUnfinishedSnapshotIsInvisibleAndAMissingPartIsDataLoss) {
  ASSERT_TRUE(store_->WriteSnapshot({10, "s10"}).ok());
  // A writer that died after its first part: no snapshots row, so the old snapshot stays.
  RunRaw(url_, "INSERT INTO snapshot_parts (seq, part, body) VALUES (20, 0, 'half')");
  auto latest = store_->LatestSnapshot();
  ASSERT_TRUE(latest.ok() && latest->has_value()) << latest.status();
  EXPECT_EQ((*latest)->seq, 10);
  EXPECT_EQ((*latest)->body, "s10");
  // A published snapshot whose second part is gone is reported, never returned short.
  RunRaw(url_, "INSERT INTO snapshots (seq, body, parts) VALUES (20, '', 2)");
  latest = store_->LatestSnapshot();
  ASSERT_FALSE(latest.ok());
  EXPECT_TRUE(IsDataLoss(latest.status())) << latest.status();
  EXPECT_NE(latest.status().message().find("seq 20"), std::string::npos) << latest.status();
}

TEST_P(LogStoreConformance, HeartbeatsUpsert) {
  ASSERT_TRUE(store_->UpsertHeartbeat({1, 1, "a:1", 100}).ok());
  ASSERT_TRUE(store_->UpsertHeartbeat({2, 1, "b:1", 100}).ok());
  ASSERT_TRUE(store_->UpsertHeartbeat({1, 2, "a:2", 200, "a:9092"}).ok());
  auto beats = store_->ListHeartbeats();
  ASSERT_TRUE(beats.ok()) << beats.status();
  ASSERT_EQ(beats->size(), 2u);
  EXPECT_EQ((*beats)[0].node_epoch, 2);
  EXPECT_EQ((*beats)[0].address, "a:2");
  EXPECT_EQ((*beats)[0].updated_ms, 200);
  EXPECT_EQ((*beats)[0].kafka_address, "a:9092");
  EXPECT_EQ((*beats)[1].kafka_address, "");
}

TEST_P(LogStoreConformance, ALeaseReadsBackAsItIsAlsoInsideTheAppendLock) {
  auto none = store_->ReadLease("coordinator");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());
  ASSERT_TRUE(store_->TryAcquireLease("coordinator", "node-1", 1000, 500).ok());
  std::optional<Lease> seen;
  ASSERT_TRUE(store_
                  ->WithAppendLock([&]() -> Status {
                    auto lease = store_->ReadLease("coordinator");
                    if (!lease.ok()) return lease.status();
                    seen = *lease;
                    return Status::Ok();
                  })
                  .ok());
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->holder, "node-1");
  EXPECT_EQ(seen->expires_ms, 1500);
}

TEST_P(LogStoreConformance, LeaseIsExclusiveUntilItExpires) {
  auto a = store_->TryAcquireLease("coordinator", "node-1", 1000, 500);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->holder, "node-1");
  int64_t first_epoch = a->epoch;
  auto b = store_->TryAcquireLease("coordinator", "node-2", 1200, 500);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->holder, "node-1");  // still held
  auto renewed = store_->TryAcquireLease("coordinator", "node-1", 1400, 500);
  EXPECT_EQ(renewed->holder, "node-1");
  EXPECT_EQ(renewed->epoch, first_epoch);
  EXPECT_EQ(renewed->expires_ms, 1900);
  auto taken = store_->TryAcquireLease("coordinator", "node-2", 2000, 500);
  EXPECT_EQ(taken->holder, "node-2");
  EXPECT_EQ(taken->epoch, first_epoch + 1);
}

TEST_P(LogStoreConformance, ALeaseIsTakenOverFromTheHolderItSupersedes) {
  ASSERT_TRUE(store_->TryAcquireLease("coordinator", "node-1-e1", 1000, 500).ok());
  auto other = store_->TakeOverLease("coordinator", "node-2-e1", "node-3-e1", 1100, 500);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->holder, "node-1-e1");  // not the holder it names: still held
  auto taken = store_->TakeOverLease("coordinator", "node-1-e2", "node-1-e1", 1200, 500);
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_EQ(taken->holder, "node-1-e2");
  EXPECT_EQ(taken->expires_ms, 1700);
  EXPECT_EQ(taken->epoch, 2);
}

GroupOffset Off(std::string topic, int32_t partition, int64_t offset, std::string metadata = "",
                int32_t epoch = -1) {
  return GroupOffset{std::move(topic),    partition,    offset, epoch,
                     std::move(metadata), 5000 + offset};
}

TEST_P(LogStoreConformance, GroupOffsetsUpsertAndListByTopicAndPartition) {
  auto none = store_->group_offsets()->ListGroupOffsets("g1");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  ASSERT_TRUE(
      store_->group_offsets()->CommitGroupOffsets("g1", {Off("b", 1, 10), Off("a", 2, 20, "m", 3), Off("a", 0, 5)})
          .ok());
  ASSERT_TRUE(store_->group_offsets()->CommitGroupOffsets("g2", {Off("a", 0, 99)}).ok());
  // Upsert one, add one; the others stay.
  ASSERT_TRUE(store_->group_offsets()->CommitGroupOffsets("g1", {Off("a", 0, 7, "new", 4), Off("c", 0, 1)}).ok());
  auto g1 = store_->group_offsets()->ListGroupOffsets("g1");
  ASSERT_TRUE(g1.ok()) << g1.status();
  std::vector<GroupOffset> want = {Off("a", 0, 7, "new", 4), Off("a", 2, 20, "m", 3),
                                   Off("b", 1, 10), Off("c", 0, 1)};
  EXPECT_EQ(*g1, want);
  auto g2 = store_->group_offsets()->ListGroupOffsets("g2");
  ASSERT_TRUE(g2.ok());
  ASSERT_EQ(g2->size(), 1u);
  EXPECT_EQ((*g2)[0].offset, 99);
  auto groups = store_->group_offsets()->ListOffsetGroups();
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(*groups, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_TRUE(store_->group_offsets()->CommitGroupOffsets("g3", {}).ok());
  EXPECT_EQ(store_->group_offsets()->ListOffsetGroups()->size(), 2u);
}

TEST_P(LogStoreConformance, GroupOffsetMetadataKeepsAnyBytesAndTheLastDuplicateWins) {
  const std::string binary = std::string("a\0b", 3) + "\xff\x80'\\x00\"";
  ASSERT_TRUE(store_->group_offsets()
                  ->CommitGroupOffsets(
                      "g", {Off("t", 0, 1, "first"), Off("t", 1, 2), Off("t", 0, 3, binary, 9)})
                  .ok());
  auto listed = store_->group_offsets()->ListGroupOffsets("g");
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0], Off("t", 0, 3, binary, 9));
  EXPECT_EQ((*listed)[1], Off("t", 1, 2));
}

TEST_P(LogStoreConformance, ALargeOffsetBatchLandsWhole) {
  std::vector<GroupOffset> batch;
  for (int i = 0; i < 2500; ++i) batch.push_back(Off("topic-" + std::to_string(i % 7), i, i));
  ASSERT_TRUE(store_->group_offsets()->CommitGroupOffsets("big", batch).ok());
  auto listed = store_->group_offsets()->ListGroupOffsets("big");
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->size(), 2500u);
}

// A coordinator commits offsets only while it holds its lease at the epoch it took it: once
// another node has taken the lease over, a commit of the old holder changes nothing.
TEST_P(LogStoreConformance, AFencedOffsetCommitNeedsItsLeaseAtItsEpoch) {
  ASSERT_TRUE(store_->TryAcquireLease("group-slot-3", "node-1-e1", 1000, 500).ok());
  const OffsetFence first{"group-slot-3", "node-1-e1", 1};
  ASSERT_TRUE(store_->group_offsets()->CommitGroupOffsets("g", {Off("t", 0, 10)}, &first).ok());
  auto taken = store_->TryAcquireLease("group-slot-3", "node-2-e1", 2000, 500);  // expired
  ASSERT_TRUE(taken.ok() && taken->holder == "node-2-e1" && taken->epoch == 2);
  Status stale = store_->group_offsets()->CommitGroupOffsets("g", {Off("t", 0, 4)}, &first);
  EXPECT_EQ(stale.code(), StatusCode::kAborted) << stale;
  EXPECT_NE(stale.message().find("held by node-2-e1 at epoch 2"), std::string::npos) << stale;
  const OffsetFence second{"group-slot-3", "node-2-e1", 2};
  ASSERT_TRUE(store_->group_offsets()->CommitGroupOffsets("g", {Off("t", 0, 12)}, &second).ok());
  const OffsetFence never{"group-slot-9", "node-1-e1", 1};
  EXPECT_EQ(store_->group_offsets()->CommitGroupOffsets("g", {Off("t", 0, 1)}, &never).code(),
            StatusCode::kAborted);
  auto listed = store_->group_offsets()->ListGroupOffsets("g");
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].offset, 12);  // never moved back to 4 or 1
}

// DeleteGroups obeys the same fence: a coordinator that lost its lease deletes nothing the
// new coordinator committed.
TEST_P(LogStoreConformance, AFencedGroupDeleteNeedsItsLeaseAtItsEpoch) {
  ASSERT_TRUE(store_->TryAcquireLease("group-slot-4", "node-1-e1", 1000, 500).ok());
  const OffsetFence first{"group-slot-4", "node-1-e1", 1};
  ASSERT_TRUE(store_->group_offsets()->CommitGroupOffsets("g", {Off("t", 0, 10)}, &first).ok());
  auto taken = store_->TryAcquireLease("group-slot-4", "node-2-e1", 2000, 500);  // expired
  ASSERT_TRUE(taken.ok() && taken->holder == "node-2-e1" && taken->epoch == 2);
  const OffsetFence second{"group-slot-4", "node-2-e1", 2};
  ASSERT_TRUE(store_->group_offsets()->CommitGroupOffsets("g", {Off("t", 0, 12)}, &second).ok());
  Status stale = store_->group_offsets()->DeleteGroupOffsets("g", &first);
  EXPECT_EQ(stale.code(), StatusCode::kAborted) << stale;
  EXPECT_NE(stale.message().find("held by node-2-e1 at epoch 2"), std::string::npos) << stale;
  EXPECT_EQ(*store_->group_offsets()->ListGroupOffsets("g"), (std::vector<GroupOffset>{Off("t", 0, 12)}));
  ASSERT_TRUE(store_->group_offsets()->DeleteGroupOffsets("g", &second).ok());
  EXPECT_TRUE(store_->group_offsets()->ListGroupOffsets("g")->empty());
}

TEST_P(LogStoreConformance, AnOffsetCommitInAFailedTransactionIsRolledBack) {
  Status s = store_->WithAppendLock([&]() -> Status {
    EXPECT_TRUE(store_->group_offsets()->CommitGroupOffsets("g", {Off("t", 0, 1), Off("t", 1, 1)}).ok());
    return InternalError("later step failed");
  });
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(store_->group_offsets()->ListGroupOffsets("g")->empty());
}

TEST_P(LogStoreConformance, DeletingOffsetsOfATopicOrAGroup) {
  ASSERT_TRUE(store_->group_offsets()->CommitGroupOffsets("g1", {Off("a", 0, 1), Off("b", 0, 2)}).ok());
  ASSERT_TRUE(store_->group_offsets()->CommitGroupOffsets("g2", {Off("a", 0, 3), Off("b", 0, 4)}).ok());
  ASSERT_TRUE(store_->group_offsets()->DeleteTopicOffsets("a").ok());
  EXPECT_EQ(*store_->group_offsets()->ListGroupOffsets("g1"), (std::vector<GroupOffset>{Off("b", 0, 2)}));
  EXPECT_EQ(*store_->group_offsets()->ListGroupOffsets("g2"), (std::vector<GroupOffset>{Off("b", 0, 4)}));
  ASSERT_TRUE(store_->group_offsets()->DeleteGroupOffsets("g1").ok());
  EXPECT_TRUE(store_->group_offsets()->ListGroupOffsets("g1")->empty());
  EXPECT_EQ(*store_->group_offsets()->ListOffsetGroups(), (std::vector<std::string>{"g2"}));
  EXPECT_TRUE(store_->group_offsets()->DeleteGroupOffsets("unknown").ok());
}

// The schema exactly as migration 1 left it, with one command in it.
constexpr char kVersion1Schema[] =
    "CREATE TABLE schema_version (version INTEGER NOT NULL);"
    "INSERT INTO schema_version VALUES (1);"
    "CREATE TABLE commands (seq BIGINT PRIMARY KEY, id TEXT NOT NULL, time_ms BIGINT NOT NULL,"
    " node TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL);"
    "CREATE TABLE snapshots (seq BIGINT PRIMARY KEY, body TEXT NOT NULL);"
    "CREATE TABLE heartbeats (node_id INTEGER PRIMARY KEY, node_epoch BIGINT NOT NULL,"
    " address TEXT NOT NULL, updated_ms BIGINT NOT NULL);"
    "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, epoch BIGINT NOT NULL,"
    " expires_ms BIGINT NOT NULL);"
    "INSERT INTO commands VALUES (1, 'id1', 1001, 'n1', 'k', '{}');"
    "INSERT INTO snapshots VALUES (1, 'state at 1');";

TEST_P(LogStoreConformance, MigratesAVersion1DatabaseToTheNewestVersion) {
  const std::string url = testing::FreshDatabaseUrl(GetParam());
  ASSERT_FALSE(url.empty());
  RunRaw(url, kVersion1Schema);
  auto opened = OpenLogStore(url);
  ASSERT_TRUE(opened.ok()) << opened.status();
  LogStore& old_db = **opened;
  EXPECT_EQ(*old_db.SchemaVersion(), 1);
  EXPECT_FALSE(old_db.group_offsets()->CommitGroupOffsets("g", {Off("t", 0, 1)}).ok());  // no table yet
  ASSERT_TRUE(old_db.Migrate().ok());
  EXPECT_EQ(*old_db.SchemaVersion(), 4);
  auto snapshot = old_db.LatestSnapshot();  // written before snapshots had parts
  ASSERT_TRUE(snapshot.ok() && snapshot->has_value()) << snapshot.status();
  EXPECT_EQ((*snapshot)->body, "state at 1");
  auto commands = old_db.ReadAfter(0, 10);
  ASSERT_TRUE(commands.ok()) << commands.status();
  ASSERT_EQ(commands->size(), 1u);
  EXPECT_EQ((*commands)[0].id, "id1");
  ASSERT_TRUE(old_db.group_offsets()->CommitGroupOffsets("g", {Off("t", 0, 1)}).ok());
  EXPECT_EQ(*old_db.group_offsets()->ListGroupOffsets("g"), (std::vector<GroupOffset>{Off("t", 0, 1)}));
  // Migrating again (another node starting) changes nothing.
  auto again = OpenLogStore(url);
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE((*again)->Migrate().ok());
  EXPECT_EQ(*(*again)->SchemaVersion(), 4);
  EXPECT_EQ((*again)->group_offsets()->ListGroupOffsets("g")->size(), 1u);
}

TEST(SplitSnapshotTest, PartsAreBoundedWholeCharactersAndJoinToTheText) {
  EXPECT_TRUE(SplitSnapshot("").empty());
  EXPECT_EQ(SplitSnapshot("abc"), (std::vector<std::string_view>{"abc"}));
  const std::string text = LargeSnapshotText(5 * kSnapshotPartBytes / 2, 3);
  auto parts = SplitSnapshot(text);
  ASSERT_EQ(parts.size(), 3u);
  std::string joined;
  for (std::string_view part : parts) {
    EXPECT_LE(part.size(), kSnapshotPartBytes);
    EXPECT_GE(part.size(), kSnapshotPartBytes / 2);
    EXPECT_NE(static_cast<unsigned char>(part.front()) & 0xC0, 0x80) << "part starts mid-character";
    joined += part;
  }
  EXPECT_EQ(joined, text);
}

INSTANTIATE_TEST_SUITE_P(Backends, LogStoreConformance, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mink::metadata
