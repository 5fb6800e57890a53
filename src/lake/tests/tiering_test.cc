// Tiering and union reads on a node in this process: the quick start's lakehouse table (one
// row after an update), a primary-key table through updates and deletes over several
// snapshots (the union read equals the KV snapshot read), a log table whose tiered log was
// trimmed by retention (the union read still has every row), and what an outside reader sees:
// DuckDB reads the Parquet files with their field ids.

#include "lake/compaction.h"
#include "lake/tiering.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "lake/lake_reader.h"
#include "lake/manifest_reader.h"
#include "lake/orphan_sweep.h"
#include "lake/tiered_commit.h"
#include "table/tests/table_test_node.h"

namespace mink::lake {
namespace {

using table::Row;
using table::Value;

Row Bill(int64_t id, const char* region, int64_t cents) {
  return {Value::Int(id), Value::Bytes(region), Value::Decimal(cents)};
}

// A tiered table of bills: a primary-key table when `keyed`, else a log table.
table::TableSpec Bills(int32_t bucket_count, bool keyed) {
  table::TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "region STRING", "amount DECIMAL(10,2)"};
  if (keyed) spec.primary_key = {"id"};
  spec.bucket_count = bucket_count;
  spec.options = {{"table.datalake.enabled", "true"}};
  return spec;
}

class TieringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_env::MakeTempDir("tiering");
    meta_url_ = table::testing::TempMetaUrl("tiering-meta");
    objects_ = std::make_shared<object_store::MemoryStore>();
    node_ = table::testing::TestNode::Start(meta_url_, objects_, options_);
    ASSERT_NE(node_, nullptr);
    auto db = sql::Database::Open();
    ASSERT_TRUE(db.ok()) << db.status();
    db_ = std::move(*db);
    auto warehouse = Warehouse::Open("-9@file://" + dir_ + "/warehouse", "lake", dir_ + "/cache");
    ASSERT_TRUE(warehouse.ok()) << warehouse.status();
    warehouse_ = std::move(*warehouse);
    Wire();
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
  }
  void Wire() {
    committer_ = BuiltinCommitter(node_->meta.get(), warehouse_.get());
    tiering_ = std::make_unique<Tiering>(node_->meta.get(), node_->tables.get(), warehouse_.get(),
                                         db_.get(), committer_.get(), dir_ + "/work");
    reader_ = std::make_unique<LakeReader>(node_->meta.get(), warehouse_.get(), db_.get());
    node_->tables->SetLake(reader_.get());
  }
  void TearDown() override {
    if (node_) node_->tables->SetLake(nullptr);
  }

  void Write(const std::string& table, const std::vector<Row>& rows,
             table::WriteMode mode = table::WriteMode::kUpsert) {
    auto info = node_->tables->DescribeTable(table);
    ASSERT_TRUE(info.ok());
    auto r = node_->tables->Write({table, mode}, {table::testing::TableBatch(info->descriptor, rows)});
    ASSERT_TRUE(r.ok()) << r.status();
  }
  std::vector<std::string> Read(const std::string& table, table::ReadMode mode) {
    table::ReadRequest r{table};
    r.mode = mode;
    return table::testing::ReadLines(*node_->tables, r);
  }
  // Four rounds of upserts and a delete: in each bucket a data and a delete file per round.
  void PileUpFiles(const std::string& name) {
    for (int round = 0; round < 4; ++round) {
      std::vector<Row> rows;
      for (int64_t i = 0; i < 20; ++i) rows.push_back(Bill(i + round * 5, "us", round * 1000 + i));
      Write(name, rows);
      Write(name, {Bill(round * 3, "", 0)}, table::WriteMode::kDelete);
      ASSERT_GT(Tier(name), 0);
    }
  }
  int64_t Tier(const std::string& table) {
    auto id = tiering_->TierTable(table);
    EXPECT_TRUE(id.ok()) << id.status();
    return id.ok() ? *id : -1;
  }

  table::testing::NodeOptions options_;
  std::string dir_, meta_url_;
  std::shared_ptr<object_store::MemoryStore> objects_;
  std::unique_ptr<table::testing::TestNode> node_;
  std::unique_ptr<sql::Database> db_;
  std::unique_ptr<Warehouse> warehouse_;
  std::unique_ptr<LakeCommitter> committer_;
  std::unique_ptr<Tiering> tiering_;
  std::unique_ptr<LakeReader> reader_;
};

TEST_F(TieringTest, TheQuickStartsLakehouseTableReadsOneRow) {
  table::TableSpec spec = Bills(1, true);
  spec.options = {{"table.datalake.enabled", "true"}, {"table.datalake.freshness", "5s"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.bills", spec).ok());
  Write("shop.bills", {Bill(1, "us", 1050), Bill(1, "us", 1100)});
  const int64_t snapshot = Tier("shop.bills");
  EXPECT_GT(snapshot, 0);
  EXPECT_EQ(Tier("shop.bills"), 0) << "nothing new to tier";
  EXPECT_EQ(Read("shop.bills", table::ReadMode::kUnion), std::vector<std::string>{"1,us,1100"});
  // The lake alone (the log after the tiered offset is empty) holds the row.
  node_->meta->Read([&](const metadata::State& s) {
    const auto& lake = s.lake_tables().begin()->second;
    EXPECT_EQ(lake.snapshot_id, snapshot);
    EXPECT_EQ(lake.offsets.begin()->second, 3) << "+I, -U, +U";
    EXPECT_EQ(lake.snapshots.back().summary.at("mink-offsets"), "{\"b0\":3}");
  });
}

TEST_F(TieringTest, APrimaryKeyTableThroughUpdatesAndDeletesEqualsItsSnapshot) {
  table::TableSpec spec = Bills(3, true);
  ASSERT_TRUE(node_->tables->CreateTable("shop.orders", spec).ok());
  std::vector<Row> rows;
  for (int64_t i = 0; i < 30; ++i) rows.push_back(Bill(i, i % 2 ? "us" : "eu", i * 100));
  Write("shop.orders", rows);
  EXPECT_GT(Tier("shop.orders"), 0);
  Write("shop.orders", {Bill(3, "us", 3), Bill(4, "eu", 4), Bill(40, "ap", 40)});
  Write("shop.orders", {Bill(5, "", 0), Bill(6, "", 0)}, table::WriteMode::kDelete);
  // Before tiering: the lake is behind, the union read is not.
  EXPECT_EQ(Read("shop.orders", table::ReadMode::kUnion),
            Read("shop.orders", table::ReadMode::kSnapshot));
  EXPECT_GT(Tier("shop.orders"), 0);
  Write("shop.orders", {Bill(3, "us", 33)});
  Write("shop.orders", {Bill(40, "", 0)}, table::WriteMode::kDelete);
  EXPECT_GT(Tier("shop.orders"), 0);
  auto snapshot = Read("shop.orders", table::ReadMode::kSnapshot);
  EXPECT_EQ(snapshot.size(), 28u);
  EXPECT_EQ(Read("shop.orders", table::ReadMode::kUnion), snapshot);
  // After a restart (state from the metadata log, files from the warehouse).
  node_.reset();
  node_ = table::testing::TestNode::Start(meta_url_, objects_, options_);
  ASSERT_NE(node_, nullptr);
  Wire();
  EXPECT_EQ(Read("shop.orders", table::ReadMode::kUnion), snapshot);
}

// A union read decodes only the columns it answers (and the key), and the filters a reader
// pushes down reach the Parquet reads of the lake's share; decoded reads are cached.
TEST_F(TieringTest, AUnionReadReadsItsColumnsAndPushesFiltersIntoTheLake) {
  table::TableSpec spec = Bills(2, true);
  ASSERT_TRUE(node_->tables->CreateTable("shop.orders", spec).ok());
  std::vector<Row> rows;
  for (int64_t i = 0; i < 30; ++i) rows.push_back(Bill(i, i % 2 ? "us" : "eu", i * 100));
  Write("shop.orders", rows);
  EXPECT_GT(Tier("shop.orders"), 0);

  auto table = node_->tables->Resolve("shop.orders");
  ASSERT_TRUE(table.ok());
  const uint64_t stream = node_->tables->AllBuckets(**table).front().stream_id;
  auto amounts = reader_->ReadBucket(**table, stream, table::LakeScan{{0, 2}, {}});
  ASSERT_TRUE(amounts.ok()) << amounts.status();
  ASSERT_FALSE(amounts->rows.empty());
  EXPECT_EQ(amounts->rows.front()->num_columns(), 2);
  EXPECT_EQ(amounts->rows.front()->schema()->field(1).name(), "amount");
  auto again = reader_->ReadBucket(**table, stream, table::LakeScan{{0, 2}, {}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->rows.front().get(), amounts->rows.front().get()) << "served from the cache";

  table::ReadRequest projected{"shop.orders"};
  projected.mode = table::ReadMode::kUnion;
  projected.columns = {"amount", "region"};
  auto lines = table::testing::ReadLines(*node_->tables, projected);
  projected.mode = table::ReadMode::kSnapshot;
  EXPECT_EQ(lines, table::testing::ReadLines(*node_->tables, projected));

  // All in the lake: the filters decide what the union read has.
  table::ReadRequest filtered{"shop.orders"};
  filtered.mode = table::ReadMode::kUnion;
  filtered.lake_filters = {{"id", "<", {"10"}}, {"region", "in", {"us", "ap"}}, {"amount", "is_not_null", {}}};
  EXPECT_EQ(table::testing::ReadLines(*node_->tables, filtered),
            (std::vector<std::string>{"1,us,100", "3,us,300", "5,us,500", "7,us,700", "9,us,900"}));
  // The log's share is not filtered: the reader filters again.
  Write("shop.orders", {Bill(20, "eu", 1)});
  auto with_log = table::testing::ReadLines(*node_->tables, filtered);
  EXPECT_EQ(with_log.size(), 6u);
  EXPECT_NE(std::find(with_log.begin(), with_log.end(), "20,eu,1"), with_log.end());

  for (auto bad : {table::LakeFilter{"nope", "=", {"1"}}, table::LakeFilter{"id", "<", {}},
                   table::LakeFilter{"id", "like", {"1"}}}) {
    auto r = reader_->ReadBucket(**table, stream, table::LakeScan{{}, {bad}});
    ASSERT_FALSE(r.ok()) << bad.column << " " << bad.op;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(bad.column), std::string::npos) << r.status();
  }
}

// Files of rounds that never committed are swept; committed ones, a round that may still be in
// flight (a later sequence number), metadata files and files named by other engines stay.
TEST_F(TieringTest, TheSweepRemovesFilesOfRoundsThatNeverCommitted) {
  table::TableSpec spec = Bills(1, true);
  ASSERT_TRUE(node_->tables->CreateTable("shop.orders", spec).ok());
  Write("shop.orders", {Bill(1, "us", 100), Bill(2, "eu", 200)});
  ASSERT_GT(Tier("shop.orders"), 0);
  Write("shop.orders", {Bill(2, "eu", 250)});
  ASSERT_GT(Tier("shop.orders"), 0);
  const auto union_before = Read("shop.orders", table::ReadMode::kUnion);

  metadata::LakeTableState lake;
  node_->meta->Read([&](const metadata::State& s) { lake = s.lake_tables().begin()->second; });
  ASSERT_EQ(lake.sequence_number, 2);
  auto listed = warehouse_->ListUnder(lake.location);
  ASSERT_TRUE(listed.ok()) << listed.status();
  const std::set<std::string> committed(listed->begin(), listed->end());
  auto key = warehouse_->KeyOf(lake.location);
  ASSERT_TRUE(key.ok());
  // A cut round at each committed sequence number, and one that may be in flight (3).
  const std::vector<std::string> cut = {
      "/data/id_bucket=0/1-0a0b0c0d-aaaa-4bbb-8ccc-000000000001-0.parquet",
      "/metadata/2-0a0b0c0d-aaaa-4bbb-8ccc-000000000002-m0.avro",
      "/metadata/2-0a0b0c0d-aaaa-4bbb-8ccc-000000000002-m1.avro",
      "/metadata/snap-77-1-2-0a0b0c0d-aaaa-4bbb-8ccc-000000000002.avro"};
  // A round that may be in flight (3), and files another engine names its own way.
  const std::vector<std::string> in_flight = {
      "/data/id_bucket=0/3-0a0b0c0d-aaaa-4bbb-8ccc-000000000003-0.parquet",
      "/metadata/3-0a0b0c0d-aaaa-4bbb-8ccc-000000000003-m0.avro",
      "/data/id_bucket=0/00000-0-0a0b0c0d-aaaa-4bbb-8ccc-000000000004-00001.parquet",
      "/metadata/12345678-aaaa-4bbb-8ccc-000000000005-m0.avro",
      "/metadata/snap-99-1-12345678-aaaa-4bbb-8ccc-000000000005.avro",
      "/metadata/00001-12345678-aaaa-4bbb-8ccc-000000000006.metadata.json"};
  for (const auto& f : cut) ASSERT_TRUE(warehouse_->Put(*key + f, "cut").ok());
  for (const auto& f : in_flight) ASSERT_TRUE(warehouse_->Put(*key + f, "in flight").ok());

  OrphanSweep sweep(node_->meta.get(), node_->tables.get(), warehouse_.get(), tiering_.get());
  auto removed = sweep.SweepTable("shop.orders");
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_EQ(*removed, cut.size());
  auto after = warehouse_->ListUnder(lake.location);
  ASSERT_TRUE(after.ok());
  std::set<std::string> want = committed;
  for (const auto& f : in_flight) want.insert(lake.location + f);
  EXPECT_EQ(std::set<std::string>(after->begin(), after->end()), want);
  EXPECT_EQ(Read("shop.orders", table::ReadMode::kUnion), union_before);
  EXPECT_EQ(*sweep.SweepTable("shop.orders"), 0u) << "nothing left to sweep";
}

// The manifest list and manifests a round writes (our own Avro writer) read back with Apache
// Avro's C library (manifest_reader.h) as the catalog state has them.
TEST_F(TieringTest, ManifestsReadBackWithAvrosLibraryAsTheCatalogStateHasThem) {
  table::TableSpec spec = Bills(3, true);
  ASSERT_TRUE(node_->tables->CreateTable("shop.orders", spec).ok());
  std::vector<Row> rows;
  for (int64_t i = 0; i < 30; ++i) rows.push_back(Bill(i, "us", i));
  Write("shop.orders", rows);
  ASSERT_GT(Tier("shop.orders"), 0);
  Write("shop.orders", {Bill(3, "", 0)}, table::WriteMode::kDelete);
  ASSERT_GT(Tier("shop.orders"), 0);
  metadata::LakeTableState lake;
  node_->meta->Read([&](const metadata::State& s) { lake = s.lake_tables().begin()->second; });
  auto list_bytes = warehouse_->Read(lake.snapshots.back().manifest_list);
  ASSERT_TRUE(list_bytes.ok()) << list_bytes.status();
  auto list = ReadManifestList(*list_bytes, "the manifest list");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), lake.manifests.size());
  std::map<std::string, metadata::LakeFile> state_files;
  for (const auto& f : lake.files) state_files[f.path] = f;
  size_t entries = 0;
  for (size_t i = 0; i < list->size(); ++i) {
    const auto& m = (*list)[i];
    EXPECT_EQ(m.manifest_path, lake.manifests[i].path);
    EXPECT_EQ(m.content, lake.manifests[i].content);
    EXPECT_EQ(m.sequence_number, lake.manifests[i].sequence_number);
    EXPECT_EQ(m.added_snapshot_id, lake.manifests[i].snapshot_id);
    auto bytes = warehouse_->Read(m.manifest_path);
    ASSERT_TRUE(bytes.ok());
    auto manifest = ReadManifest(*bytes, m.manifest_path);
    ASSERT_TRUE(manifest.ok()) << manifest.status();
    for (const auto& e : *manifest) {
      ++entries;
      EXPECT_EQ(e.status, 1) << "ADDED";
      EXPECT_EQ(e.file_format, "PARQUET");
      ASSERT_EQ(state_files.count(e.file_path), 1u) << e.file_path;
      const auto& f = state_files[e.file_path];
      EXPECT_EQ(e.content, f.content);
      EXPECT_EQ(e.record_count, f.record_count);
      EXPECT_EQ(e.file_size_in_bytes, f.size);
      ASSERT_EQ(e.partition.size(), 1u);
      ASSERT_TRUE(e.partition[0].has_value());
      EXPECT_GE(e.partition[0]->int_value(), 0);
      EXPECT_LT(e.partition[0]->int_value(), 3);
      EXPECT_EQ(e.equality_ids, e.content == 2 ? std::vector<int32_t>{1} : std::vector<int32_t>{});
    }
  }
  EXPECT_EQ(entries, lake.files.size());
  EXPECT_FALSE(ReadManifest("not avro", "a text file").ok());
}

// A tiered table created under the name of a lake catalog table attaches it: here the catalog
// tables are Mink lakes registered under other names, as another engine's tables would be.
TEST_F(TieringTest, ATieredTableAttachesALakeCatalogTableOfItsName) {
  auto register_as = [&](const std::string& from, const std::string& name) {
    auto table = node_->tables->Resolve(from);
    ASSERT_TRUE(table.ok());
    std::string location;
    node_->meta->Read([&](const metadata::State& s) {
      location = s.lake_tables().at((*table)->id).metadata_location;
    });
    auto registered = node_->meta->Append(
        metadata::Command(metadata::CommitLakeCatalog{{metadata::LakeTableMove{{"shop"}, name, "", location}}, {}}));
    ASSERT_TRUE(registered.ok()) << registered.status();
  };
  table::TableSpec spec = Bills(2, false);
  ASSERT_TRUE(node_->tables->CreateTable("shop.a", spec).ok());
  std::vector<Row> rows;
  for (int64_t i = 0; i < 20; ++i) rows.push_back(Bill(i, "us", i));
  Write("shop.a", rows);
  ASSERT_GT(Tier("shop.a"), 0);
  Write("shop.a", {Bill(20, "eu", 20)});
  ASSERT_GT(Tier("shop.a"), 0);
  const auto lake_rows = Read("shop.a", table::ReadMode::kUnion);
  ASSERT_EQ(lake_rows.size(), 21u);
  register_as("shop.a", "b");

  // Not tiered, or not the same table: refused, nothing created.
  table::TableSpec plain = spec;
  plain.options.clear();
  auto refused = node_->tables->CreateTable("shop.b", plain);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kAlreadyExists) << refused.status();
  table::TableSpec wider = spec;
  wider.columns[2] = "amount DECIMAL(12,2)";
  auto different = node_->tables->CreateTable("shop.b", wider);
  ASSERT_FALSE(different.ok());
  EXPECT_EQ(different.status().code(), StatusCode::kInvalidArgument) << different.status();
  EXPECT_NE(different.status().message().find("column 3: amount is decimal(10, 2) in the lake table, decimal(12, 2)"),
            std::string::npos)
      << different.status();
  table::TableSpec keyed = spec;
  keyed.primary_key = {"id"};
  auto with_key = node_->tables->CreateTable("shop.b", keyed);
  ASSERT_FALSE(with_key.ok());
  EXPECT_NE(with_key.status().message().find("identifier fields [] are not the Mink table's primary key [1]"),
            std::string::npos)
      << with_key.status();
  EXPECT_FALSE(node_->tables->Resolve("shop.b").ok());

  ASSERT_TRUE(node_->tables->CreateTable("shop.b", spec).ok());
  EXPECT_EQ(Read("shop.b", table::ReadMode::kUnion), lake_rows) << "the lake table's rows";
  node_->meta->Read([&](const metadata::State& s) {
    EXPECT_EQ(s.lake_catalog_tables().count({{"shop"}, "b"}), 0u);
  });
  // The log's rows follow; tiering commits on top at the next sequence number.
  Write("shop.b", {Bill(30, "ap", 4)});
  auto with_log = lake_rows;
  with_log.push_back("30,ap,4");
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(Read("shop.b", table::ReadMode::kUnion)), sorted(with_log));
  ASSERT_GT(Tier("shop.b"), 0);
  EXPECT_EQ(sorted(Read("shop.b", table::ReadMode::kUnion)), sorted(with_log));
  auto b = node_->tables->Resolve("shop.b");
  ASSERT_TRUE(b.ok());
  node_->meta->Read([&](const metadata::State& s) {
    const auto& lake = s.lake_tables().at((*b)->id);
    EXPECT_EQ(lake.sequence_number, 3);
    EXPECT_EQ(lake.snapshots.size(), 2u) << "the attached snapshot and Mink's";
  });

  // A primary-key table's lake rows become its KV state: snapshot reads, deletes and updates of
  // keys only the lake had work as for keys written through Mink.
  table::TableSpec pk = Bills(2, true);
  ASSERT_TRUE(node_->tables->CreateTable("shop.c", pk).ok());
  Write("shop.c", {Bill(1, "us", 1), Bill(2, "us", 2), Bill(3, "us", 3)});
  ASSERT_GT(Tier("shop.c"), 0);
  Write("shop.c", {Bill(2, "", 0)}, table::WriteMode::kDelete);
  ASSERT_GT(Tier("shop.c"), 0);
  register_as("shop.c", "d");
  ASSERT_TRUE(node_->tables->CreateTable("shop.d", pk).ok());
  EXPECT_EQ(Read("shop.d", table::ReadMode::kSnapshot), (std::vector<std::string>{"1,us,1", "3,us,3"}));
  EXPECT_EQ(Read("shop.d", table::ReadMode::kUnion), Read("shop.d", table::ReadMode::kSnapshot));
  Write("shop.d", {Bill(1, "", 0)}, table::WriteMode::kDelete);
  Write("shop.d", {Bill(3, "eu", 33)});
  EXPECT_EQ(Read("shop.d", table::ReadMode::kSnapshot), (std::vector<std::string>{"3,eu,33"}));
  EXPECT_EQ(Read("shop.d", table::ReadMode::kUnion), Read("shop.d", table::ReadMode::kSnapshot));
  ASSERT_GT(Tier("shop.d"), 0);
  EXPECT_EQ(Read("shop.d", table::ReadMode::kUnion), (std::vector<std::string>{"3,eu,33"}));
  // After a restart the KV state is rebuilt from the attach's KV snapshots and the log.
  node_->tables->SetLake(nullptr);
  node_.reset();
  node_ = table::testing::TestNode::Start(meta_url_, objects_, options_);
  ASSERT_NE(node_, nullptr);
  Wire();
  EXPECT_EQ(Read("shop.d", table::ReadMode::kSnapshot), (std::vector<std::string>{"3,eu,33"}));
}

// Another engine's commit to a table Mink tiers (through the REST catalog): accepted only on top
// of the current snapshot, with the same mink-offsets, and only rewriting a primary-key table.
TEST_F(TieringTest, AnotherEnginesCommitToATieredTableKeepsItsOffsets) {
  table::TableSpec spec = Bills(2, false);
  ASSERT_TRUE(node_->tables->CreateTable("shop.t", spec).ok());
  std::vector<Row> rows;
  for (int64_t i = 0; i < 10; ++i) rows.push_back(Bill(i, "us", i));
  Write("shop.t", rows);
  ASSERT_GT(Tier("shop.t"), 0);
  auto table = node_->tables->Resolve("shop.t");
  ASSERT_TRUE(table.ok());
  metadata::LakeTableState lake;
  node_->meta->Read([&](const metadata::State& s) { lake = s.lake_tables().at((*table)->id); });
  const std::string offsets = lake.snapshots.back().summary.at("mink-offsets");

  // A snapshot of the same files, as another engine's rewrite that changed nothing would be.
  const int64_t id = 4242;
  const std::string list = lake.location + "/metadata/snap-4242-1-other-engine.avro";
  ASSERT_TRUE(warehouse_->Write(list, LakeLayout::ManifestList(id, lake.snapshot_id, lake.sequence_number + 1,
                                                               lake.manifests)).ok());
  auto change = [&](nlohmann::json summary, int64_t parent = 0) {
    if (parent == 0) parent = lake.snapshot_id;
    nlohmann::json snapshot = {{"snapshot-id", id}, {"parent-snapshot-id", parent},
                               {"sequence-number", lake.sequence_number + 1}, {"timestamp-ms", 1},
                               {"manifest-list", list}, {"summary", summary}, {"schema-id", 0}};
    return *rest::ReadTableChange(nlohmann::json{
        {"requirements", {{{"type", "assert-ref-snapshot-id"}, {"ref", "main"}, {"snapshot-id", lake.snapshot_id}}}},
        {"updates", {{{"action", "add-snapshot"}, {"snapshot", snapshot}},
                     {{"action", "set-snapshot-ref"}, {"ref-name", "main"}, {"type", "branch"}, {"snapshot-id", id}}}}});
  };
  auto commit = [&](const rest::TableChange& c) {
    return CommitToTieredTable(node_->meta.get(), node_->tables.get(), warehouse_.get(), "shop.t", c);
  };
  const nlohmann::json keeps = {{"operation", "replace"}, {"mink-offsets", offsets}};
  auto no_offsets = commit(change({{"operation", "replace"}}));
  ASSERT_FALSE(no_offsets.ok());
  EXPECT_EQ(no_offsets.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(no_offsets.status().message().find("mink-offsets {} are not the current " + offsets), std::string::npos)
      << no_offsets.status();
  auto unasserted = change(keeps);
  unasserted.requirements = nlohmann::json::array();
  EXPECT_EQ(commit(unasserted).status().code(), StatusCode::kFailedPrecondition);
  auto more = change(keeps);
  more.updates.push_back({{"action", "set-properties"}, {"updates", {{"a", "b"}}}});
  EXPECT_EQ(commit(more).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(commit(change(keeps, 99)).status().code(), StatusCode::kAborted) << "not on top of the current one";

  const auto before = Read("shop.t", table::ReadMode::kUnion);
  auto accepted = commit(change(keeps));
  ASSERT_TRUE(accepted.ok()) << accepted.status();
  EXPECT_EQ(accepted->metadata.value("current-snapshot-id", int64_t{0}), id);
  node_->meta->Read([&](const metadata::State& s) {
    EXPECT_EQ(s.lake_tables().at((*table)->id).snapshot_id, id);
    EXPECT_EQ(s.lake_tables().at((*table)->id).metadata_location, accepted->metadata_location);
  });
  EXPECT_EQ(Read("shop.t", table::ReadMode::kUnion), before);
  // Tiering goes on from it.
  Write("shop.t", {Bill(50, "eu", 5)});
  ASSERT_GT(Tier("shop.t"), 0);
  node_->meta->Read([&](const metadata::State& s) {
    EXPECT_EQ(s.lake_tables().at((*table)->id).snapshots.back().parent_id, id);
  });
  EXPECT_EQ(Read("shop.t", table::ReadMode::kUnion).size(), 11u);

  // A primary-key table's rows are its KV state's: another engine only rewrites files.
  table::TableSpec pk = spec;
  pk.primary_key = {"id"};
  ASSERT_TRUE(node_->tables->CreateTable("shop.k", pk).ok());
  Write("shop.k", rows);
  ASSERT_GT(Tier("shop.k"), 0);
  auto k = node_->tables->Resolve("shop.k");
  ASSERT_TRUE(k.ok());
  node_->meta->Read([&](const metadata::State& s) { lake = s.lake_tables().at((*k)->id); });
  auto appended = CommitToTieredTable(node_->meta.get(), node_->tables.get(), warehouse_.get(), "shop.k",
                                      change({{"operation", "append"},
                                              {"mink-offsets", lake.snapshots.back().summary.at("mink-offsets")}}));
  ASSERT_FALSE(appended.ok());
  EXPECT_NE(appended.status().message().find("may only rewrite its files (operation replace), not append"),
            std::string::npos)
      << appended.status();
}

// Compaction rewrites a bucket's files into one data file of its current rows in a replace
// snapshot: the union read is the same before and after, later tiering rounds apply on top, and
// the tiered offsets stay.
TEST_F(TieringTest, CompactionRewritesABucketsFilesIntoOneWithTheSameRows) {
  table::TableSpec spec = Bills(2, true);
  spec.options = {{"table.datalake.enabled", "true"}, {"table.datalake.auto-compaction", "true"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.orders", spec).ok());
  LakeCompaction compaction(node_->meta.get(), node_->tables.get(), warehouse_.get(), reader_.get(),
                            tiering_.get(), db_.get(), dir_ + "/compaction");
  PileUpFiles("shop.orders");
  const auto snapshot = Read("shop.orders", table::ReadMode::kSnapshot);
  ASSERT_EQ(Read("shop.orders", table::ReadMode::kUnion), snapshot);
  auto files = [&] {
    size_t n = 0;
    node_->meta->Read([&](const metadata::State& s) { n = s.lake_tables().begin()->second.files.size(); });
    return n;
  };
  EXPECT_EQ(files(), 16u) << "a data and a delete file per bucket and round";
  EXPECT_EQ(compaction.DueTables(), std::vector<std::string>{"shop.orders"});
  auto compacted = compaction.CompactTable("shop.orders");
  ASSERT_TRUE(compacted.ok()) << compacted.status();
  EXPECT_GT(*compacted, 0);
  EXPECT_EQ(files(), 2u) << "one data file per bucket";
  EXPECT_TRUE(compaction.DueTables().empty());
  EXPECT_EQ(*compaction.CompactTable("shop.orders"), 0) << "nothing piled up";
  EXPECT_EQ(Read("shop.orders", table::ReadMode::kUnion), snapshot);
  node_->meta->Read([&](const metadata::State& s) {
    const auto& lake = s.lake_tables().begin()->second;
    EXPECT_EQ(lake.snapshots.back().summary.at("operation"), "replace");
    EXPECT_EQ(lake.snapshots.back().summary.at("deleted-data-files"), "8");
    EXPECT_EQ(lake.manifests.size(), 1u) << "the old manifests replaced by one of the new files";
    for (const auto& [stream, offset] : lake.offsets) EXPECT_GT(offset, 0);
  });
  // Tiering goes on on top of the compacted files: a delete and an update apply to them.
  Write("shop.orders", {Bill(7, "", 0)}, table::WriteMode::kDelete);
  Write("shop.orders", {Bill(8, "eu", 8)});
  EXPECT_GT(Tier("shop.orders"), 0);
  const auto later = Read("shop.orders", table::ReadMode::kSnapshot);
  EXPECT_EQ(Read("shop.orders", table::ReadMode::kUnion), later);
  EXPECT_NE(later, snapshot);
  // After a restart, from the metadata log and the warehouse.
  node_.reset();
  node_ = table::testing::TestNode::Start(meta_url_, objects_, options_);
  ASSERT_NE(node_, nullptr);
  Wire();
  EXPECT_EQ(Read("shop.orders", table::ReadMode::kUnion), later);
}

// Compaction beside tiering: a round that deletes and updates keys of the files being
// rewritten commits between the rewrite and the compaction's commit. The compacted file keeps
// the sequence number of the snapshot it read, so the round's deletes still apply to it.
TEST_F(TieringTest, ARoundCommittedDuringACompactionStillDeletesFromTheCompactedFile) {
  table::TableSpec spec = Bills(1, true);
  spec.options = {{"table.datalake.enabled", "true"}, {"table.datalake.auto-compaction", "true"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.orders", spec).ok());
  LakeCompaction compaction(node_->meta.get(), node_->tables.get(), warehouse_.get(), reader_.get(),
                            tiering_.get(), db_.get(), dir_ + "/compaction");
  PileUpFiles("shop.orders");
  int64_t round_snapshot = 0;
  compaction.SetBeforeCommit([&] {
    Write("shop.orders", {Bill(10, "", 0)}, table::WriteMode::kDelete);
    Write("shop.orders", {Bill(11, "eu", 11)});
    round_snapshot = Tier("shop.orders");
  });
  auto compacted = compaction.CompactTable("shop.orders");
  ASSERT_TRUE(compacted.ok()) << compacted.status();
  ASSERT_GT(round_snapshot, 0);
  const auto snapshot = Read("shop.orders", table::ReadMode::kSnapshot);
  EXPECT_EQ(Read("shop.orders", table::ReadMode::kUnion), snapshot);
  EXPECT_EQ(std::count(snapshot.begin(), snapshot.end(), "11,eu,11"), 1);
  EXPECT_EQ(std::count_if(snapshot.begin(), snapshot.end(), [](const std::string& r) { return r.rfind("10,", 0) == 0; }), 0);
  node_->meta->Read([&](const metadata::State& s) {
    const auto& lake = s.lake_tables().begin()->second;
    EXPECT_EQ(lake.snapshots.back().parent_id, round_snapshot) << "committed on top of the round";
    EXPECT_EQ(lake.snapshots.back().summary.at("operation"), "replace");
    EXPECT_EQ(lake.files.size(), 3u) << "the compacted file, and the round's data and delete files";
  });
  // A compaction whose files another compaction replaced meanwhile fails and changes nothing.
  compaction.SetBeforeCommit(nullptr);
  for (int round = 0; round < 4; ++round) {
    Write("shop.orders", {Bill(100 + round, "ap", round)});
    Write("shop.orders", {Bill(round, "", 0)}, table::WriteMode::kDelete);
    ASSERT_GT(Tier("shop.orders"), 0);
  }
  LakeCompaction other(node_->meta.get(), node_->tables.get(), warehouse_.get(), reader_.get(), tiering_.get(),
                       db_.get(), dir_ + "/compaction-other");
  compaction.SetBeforeCommit([&] { ASSERT_TRUE(other.CompactTable("shop.orders").ok()); });
  auto lost = compaction.CompactTable("shop.orders");
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), StatusCode::kFailedPrecondition) << lost.status();
  EXPECT_EQ(Read("shop.orders", table::ReadMode::kUnion), Read("shop.orders", table::ReadMode::kSnapshot));
}

TEST_F(TieringTest, ALogTablesUnionReadKeepsRowsRetentionTrimmedFromTheLog) {
  ManualClock clock;
  options_.clock = &clock;
  node_.reset();
  node_ = table::testing::TestNode::Start(meta_url_, objects_, options_);
  ASSERT_NE(node_, nullptr);
  Wire();
  table::TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "note STRING", "at TIMESTAMP(3)"};
  spec.options = {{"table.datalake.enabled", "true"}, {"table.log.ttl", "1h"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.events", spec).ok());
  auto event = [](int64_t id) {
    return Row{Value::Int(id), Value::Bytes("n" + std::to_string(id)), Value::Int(1700000000123 + id)};
  };
  Write("shop.events", {event(1), event(2), event(3)});
  clock.Advance(2 * 3600 * 1000);
  // Retention may not trim what the lake does not have yet.
  ASSERT_TRUE(node_->storage->RunRetention().ok());
  EXPECT_EQ(Read("shop.events", table::ReadMode::kLog).size(), 3u);
  EXPECT_GT(Tier("shop.events"), 0);
  Write("shop.events", {event(4), event(5)});
  ASSERT_TRUE(node_->storage->RunRetention().ok());
  EXPECT_EQ(Read("shop.events", table::ReadMode::kLog).size(), 2u) << "the tiered rows expired";
  const std::vector<std::string> all = {
      "1,n1,1700000000124", "2,n2,1700000000125", "3,n3,1700000000126", "4,n4,1700000000127",
      "5,n5,1700000000128"};
  EXPECT_EQ(Read("shop.events", table::ReadMode::kUnion), all);

  // An outside reader: DuckDB sees the Iceberg field ids and the rows of the data file.
  std::string data_file;
  node_->meta->Read([&](const metadata::State& s) {
    data_file = s.lake_tables().begin()->second.files.front().path;
  });
  ASSERT_EQ(data_file.rfind("file://", 0), 0u) << data_file;
  auto session = *db_->Connect();
  auto ids = session->Collect("SELECT string_agg(name || '=' || field_id, ',' ORDER BY field_id) "
                              "FROM parquet_schema('" + data_file.substr(7) + "') "
                              "WHERE field_id IS NOT NULL");
  ASSERT_TRUE(ids.ok()) << ids.status();
  const auto& c = (*ids)[0]->Column(0);
  const int32_t* offsets = c->buffers[1]->data_as<int32_t>();
  EXPECT_EQ(std::string(c->buffers[2]->data_as<char>() + offsets[0],
                        static_cast<size_t>(offsets[1] - offsets[0])),
            "id=1,note=2,at=3");
}

}  // namespace
}  // namespace mink::lake
