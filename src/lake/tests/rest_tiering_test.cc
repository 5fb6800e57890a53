// Tiering into an external Iceberg REST catalog (committer.h, lake.catalog = rest): node B tiers
// its table into the catalog node A serves over HTTP (Mink's own REST catalog, another metadata
// database, the same warehouse). The catalog gets the table and every snapshot with its
// mink-offsets; a round whose catalog commit succeeded but whose metadata command was cut off
// is adopted by the next round, so no row is tiered twice or lost; the union read equals the
// KV snapshot read throughout.

#include <gtest/gtest.h>

#include "auth/user_directory.h"
#include "http/http_server.h"
#include "lake/committer.h"
#include "lake/lake_reader.h"
#include "lake/rest_catalog.h"
#include "lake/rest_client.h"
#include "lake/tiering.h"
#include "table/tests/table_test_node.h"

namespace mink::lake {
namespace {

using table::Row;
using table::Value;

class RestTieringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_env::MakeTempDir("rest-tiering");
    catalog_node_ = Node("rest-tiering-a");
    node_ = Node("rest-tiering-b");
    scratch_ = Node("rest-tiering-scratch");
    ASSERT_TRUE(catalog_node_ && node_ && scratch_);
    auto a_warehouse = Warehouse::Open("-9@file://" + dir_ + "/warehouse", "lake", dir_ + "/cache-a");
    auto b_warehouse = Warehouse::Open("-9@file://" + dir_ + "/warehouse", "lake", dir_ + "/cache-b");
    ASSERT_TRUE(a_warehouse.ok() && b_warehouse.ok());
    catalog_warehouse_ = std::move(*a_warehouse);
    warehouse_ = std::move(*b_warehouse);
    users_ = std::make_unique<auth::UserDirectory>(catalog_node_->meta.get());
    ASSERT_TRUE(users_->EnsureBootstrapUser("tierer", "tierer-password").ok());
    authenticator_ = std::make_unique<auth::Authenticator>(users_.get(), auth::TokenSigner(std::string(32, 't')));
    access_ = std::make_unique<auth::AccessControl>(catalog_node_->meta.get(), std::set<std::string>{"tierer"});
    catalog_ = std::make_unique<RestCatalog>(catalog_node_->meta.get(), catalog_node_->tables.get(),
                                             catalog_warehouse_.get(), nullptr,
                                             RestCatalogOptions{authenticator_.get(), access_.get()});
    auto server = http::HttpServer::Start("127.0.0.1:0", [this](const http::ServerRequest& r) {
      return catalog_->Handle(r);
    });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    options_ = {"http://127.0.0.1:" + std::to_string(server_->port()), authenticator_->IssueToken("tierer"), ""};
    auto db = sql::Database::Open();
    ASSERT_TRUE(db.ok());
    db_ = std::move(*db);
    committer_ = RestCommitter(node_->meta.get(), node_->tables.get(), warehouse_.get(), options_);
    tiering_ = std::make_unique<Tiering>(node_->meta.get(), node_->tables.get(), warehouse_.get(), db_.get(),
                                         committer_.get(), dir_ + "/work");
    reader_ = std::make_unique<LakeReader>(node_->meta.get(), warehouse_.get(), db_.get());
    node_->tables->SetLake(reader_.get());
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
  }
  void TearDown() override {
    if (node_) node_->tables->SetLake(nullptr);
    server_.reset();
  }
  std::unique_ptr<table::testing::TestNode> Node(const std::string& name) {
    return table::testing::TestNode::Start(table::testing::TempMetaUrl(name),
                                           std::make_shared<object_store::MemoryStore>(), {});
  }
  void Write(const std::vector<Row>& rows, table::WriteMode mode = table::WriteMode::kUpsert) {
    auto info = node_->tables->DescribeTable("shop.bills");
    ASSERT_TRUE(info.ok());
    auto r = node_->tables->Write({"shop.bills", mode}, {table::testing::TableBatch(info->descriptor, rows)});
    ASSERT_TRUE(r.ok()) << r.status();
  }
  // shop.bills as `node` (default: node B) reads it.
  std::vector<std::string> Read(table::ReadMode mode, table::testing::TestNode* node = nullptr) {
    table::ReadRequest r{"shop.bills"};
    r.mode = mode;
    return table::testing::ReadLines(*(node != nullptr ? node : node_.get())->tables, r);
  }
  metadata::LakeTableState Lake() {
    metadata::LakeTableState lake;
    node_->meta->Read([&](const metadata::State& s) {
      if (!s.lake_tables().empty()) lake = s.lake_tables().begin()->second;
    });
    return lake;
  }
  RestCatalogClient::Table CatalogTable() {
    auto client = RestCatalogClient::Connect(options_);
    EXPECT_TRUE(client.ok()) << client.status();
    auto t = (*client)->LoadTable({"shop"}, "bills");
    EXPECT_TRUE(t.ok() && t->has_value());
    return **t;
  }

  std::string dir_;
  std::unique_ptr<table::testing::TestNode> catalog_node_, node_, scratch_;
  std::unique_ptr<Warehouse> catalog_warehouse_, warehouse_;
  std::unique_ptr<auth::UserDirectory> users_;
  std::unique_ptr<auth::Authenticator> authenticator_;
  std::unique_ptr<auth::AccessControl> access_;
  std::unique_ptr<RestCatalog> catalog_;
  std::unique_ptr<http::HttpServer> server_;
  RestClientOptions options_;
  std::unique_ptr<sql::Database> db_;
  std::unique_ptr<LakeCommitter> committer_;
  std::unique_ptr<Tiering> tiering_;
  std::unique_ptr<LakeReader> reader_;
};

Row Bill(int64_t id, const char* region, int64_t cents) {
  return {Value::Int(id), Value::Bytes(region), Value::Decimal(cents)};
}

// shop.bills: a tiered primary-key table of two buckets.
table::TableSpec BillsSpec() {
  table::TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "region STRING", "amount DECIMAL(10,2)"};
  spec.primary_key = {"id"};
  spec.bucket_count = 2;
  spec.options = {{"table.datalake.enabled", "true"}};
  return spec;
}

TEST_F(RestTieringTest, TiersIntoTheCatalogAndAdoptsARoundCutAfterItsCatalogCommit) {
  const table::TableSpec spec = BillsSpec();
  ASSERT_TRUE(node_->tables->CreateTable("shop.bills", spec).ok());
  std::vector<Row> rows;
  for (int64_t i = 0; i < 20; ++i) rows.push_back(Bill(i, "us", i));
  Write(rows);
  auto first = tiering_->TierTable("shop.bills");
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_GT(*first, 0);
  // The catalog has the table (in Mink's warehouse) and the snapshot, with mink-offsets.
  auto table = CatalogTable();
  EXPECT_EQ(table.metadata.value("current-snapshot-id", int64_t{0}), *first);
  EXPECT_EQ(table.metadata_location, Lake().metadata_location);
  EXPECT_EQ(table.metadata.value("table-uuid", ""), Lake().table_uuid);
  EXPECT_EQ(table.metadata["snapshots"].back()["summary"].value("mink-offsets", ""),
            Lake().snapshots.back().summary.at("mink-offsets"));
  EXPECT_EQ(Read(table::ReadMode::kUnion), Read(table::ReadMode::kSnapshot));

  // A round whose catalog commit lands but whose metadata command is cut off (its committer
  // appends to another metadata log, where the table does not exist).
  Write({Bill(3, "eu", 333), Bill(40, "ap", 4)});
  Write({Bill(5, "", 0)}, table::WriteMode::kDelete);
  auto cut_committer = RestCommitter(scratch_->meta.get(), node_->tables.get(), warehouse_.get(), options_);
  Tiering cut(node_->meta.get(), node_->tables.get(), warehouse_.get(), db_.get(), cut_committer.get(),
              dir_ + "/work-cut");
  auto lost = cut.TierTable("shop.bills");
  ASSERT_FALSE(lost.ok());
  const int64_t in_catalog = CatalogTable().metadata.value("current-snapshot-id", int64_t{0});
  EXPECT_NE(in_catalog, Lake().snapshot_id) << "the catalog is a snapshot ahead of the state";
  const auto offsets_before = Lake().offsets;

  // The next round adopts it (its files and offsets) and has nothing left to tier.
  auto next = tiering_->TierTable("shop.bills");
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(*next, 0) << "everything was in the adopted snapshot";
  EXPECT_EQ(Lake().snapshot_id, in_catalog);
  EXPECT_NE(Lake().offsets, offsets_before);
  EXPECT_EQ(Read(table::ReadMode::kUnion), Read(table::ReadMode::kSnapshot));
  EXPECT_EQ(Read(table::ReadMode::kUnion).size(), 20u);

  // And tiers on top of it.
  Write({Bill(41, "ap", 41)});
  auto after = tiering_->TierTable("shop.bills");
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_GT(*after, 0);
  EXPECT_EQ(CatalogTable().metadata.value("current-snapshot-id", int64_t{0}), *after);
  EXPECT_EQ(Lake().snapshots.back().parent_id, in_catalog);
  EXPECT_EQ(Read(table::ReadMode::kUnion), Read(table::ReadMode::kSnapshot));
}

// A table the external catalog had before (another engine's) is tiered into only when it is
// the table Mink would make; else the round fails naming the first difference.
TEST_F(RestTieringTest, ATableTheCatalogHadIsCheckedBeforeMinkTiersIntoIt) {
  auto client = RestCatalogClient::Connect(options_);
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->EnsureNamespace({"shop"}).ok());
  const nlohmann::json schema = {
      {"type", "struct"}, {"schema-id", 0},
      {"fields", {{{"id", 1}, {"name", "id"}, {"required", true}, {"type", "long"}},
                  {{"id", 2}, {"name", "region"}, {"required", false}, {"type", "string"}},
                  {{"id", 3}, {"name", "amount"}, {"required", false}, {"type", "decimal(12, 2)"}}}}};
  ASSERT_TRUE((*client)->CreateTable({"shop"}, "bills", schema, {{"spec-id", 0}, {"fields", nlohmann::json::array()}},
                                     "", nlohmann::json::object()).ok());
  table::TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "region STRING", "amount DECIMAL(10,2)"};
  spec.options = {{"table.datalake.enabled", "true"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.bills", spec).ok());
  Write({Bill(1, "us", 1)});
  auto tiered = tiering_->TierTable("shop.bills");
  ASSERT_FALSE(tiered.ok());
  EXPECT_NE(tiered.status().message().find("column 3: amount is decimal(12, 2) in the lake table"), std::string::npos)
      << tiered.status();
  EXPECT_EQ(Lake().snapshot_id, 0) << "nothing committed";
}

// A Mink table created under the name of a table the external catalog has takes it over with the
// create: a primary-key table's KV state gets its rows (here, the rows another node tiered into
// the catalog), and tiering goes on from its snapshot; one that does not match is refused.
TEST_F(RestTieringTest, ACreateTakesOverTheCatalogsTableWithItsRows) {
  const table::TableSpec spec = BillsSpec();
  ASSERT_TRUE(node_->tables->CreateTable("shop.bills", spec).ok());
  std::vector<Row> rows;
  for (int64_t i = 0; i < 12; ++i) rows.push_back(Bill(i, "us", i * 10));
  Write(rows);
  ASSERT_TRUE(tiering_->TierTable("shop.bills").ok());
  Write({Bill(3, "eu", 333)});
  Write({Bill(5, "", 0)}, table::WriteMode::kDelete);
  auto tiered = tiering_->TierTable("shop.bills");
  ASSERT_TRUE(tiered.ok()) << tiered.status();
  const std::vector<std::string> in_lake = Read(table::ReadMode::kSnapshot);
  ASSERT_EQ(in_lake.size(), 11u);

  // The other node: its committer and reader on the same catalog and warehouse.
  auto committer = RestCommitter(scratch_->meta.get(), scratch_->tables.get(), warehouse_.get(), options_);
  LakeReader reader(scratch_->meta.get(), warehouse_.get(), db_.get(), LakeReader::kCacheBytes, committer.get());
  scratch_->tables->SetLake(&reader);
  ASSERT_TRUE(scratch_->tables->CreateDatabase("shop").ok());
  table::TableSpec wider = spec;
  wider.columns[2] = "amount DECIMAL(12,2)";
  auto refused = scratch_->tables->CreateTable("shop.bills", wider);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("column 3: amount is decimal(10, 2) in the lake table"), std::string::npos)
      << refused.status();
  EXPECT_FALSE(scratch_->tables->DescribeTable("shop.bills").ok()) << "nothing created";

  ASSERT_TRUE(scratch_->tables->CreateTable("shop.bills", spec).ok());
  auto read = [&](table::ReadMode mode) { return Read(mode, scratch_.get()); };
  EXPECT_EQ(read(table::ReadMode::kSnapshot), in_lake) << "the KV state has the catalog table's rows";
  EXPECT_EQ(read(table::ReadMode::kUnion), in_lake);
  metadata::LakeTableState lake;
  scratch_->meta->Read([&](const metadata::State& s) { lake = s.lake_tables().begin()->second; });
  EXPECT_EQ(lake.snapshot_id, *tiered);

  // Tiering on the other node commits on top of the taken-over snapshot.
  auto info = scratch_->tables->DescribeTable("shop.bills");
  ASSERT_TRUE(info.ok());
  ASSERT_TRUE(scratch_->tables->Write({"shop.bills", table::WriteMode::kDelete},
                                      {table::testing::TableBatch(info->descriptor, {Bill(7, "", 0)})}).ok());
  Tiering other(scratch_->meta.get(), scratch_->tables.get(), warehouse_.get(), db_.get(), committer.get(),
                dir_ + "/work-other");
  auto next = other.TierTable("shop.bills");
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(CatalogTable().metadata.value("current-snapshot-id", int64_t{0}), *next);
  EXPECT_EQ(read(table::ReadMode::kUnion), read(table::ReadMode::kSnapshot));
  EXPECT_EQ(read(table::ReadMode::kUnion).size(), 10u);
  scratch_->tables->SetLake(nullptr);
}

}  // namespace
}  // namespace mink::lake
