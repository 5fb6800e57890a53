// RestCatalogClient against an Iceberg REST catalog: Mink's own (rest_catalog.h) over HTTP on
// loopback, with a Mink user's bearer token: configuration, namespaces, a table created, loaded and
// committed to, a commit that lost its race, and a request without the token.

#include "lake/rest_client.h"

#include <gtest/gtest.h>

#include "http/http_server.h"
#include "auth/user_directory.h"
#include "lake/rest_catalog.h"
#include "table/tests/table_test_node.h"

namespace mink::lake {
namespace {

using Json = nlohmann::json;

class RestClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_env::MakeTempDir("rest-client");
    node_ = table::testing::TestNode::Start(table::testing::TempMetaUrl("rest-client-meta"),
                                            std::make_shared<object_store::MemoryStore>(), {});
    ASSERT_NE(node_, nullptr);
    auto warehouse = Warehouse::Open("-9@file://" + dir_ + "/warehouse", "lake", dir_ + "/cache");
    ASSERT_TRUE(warehouse.ok()) << warehouse.status();
    warehouse_ = std::move(*warehouse);
    users_ = std::make_unique<auth::UserDirectory>(node_->meta.get());
    ASSERT_TRUE(users_->EnsureBootstrapUser("engine", "engine-password").ok());
    authenticator_ = std::make_unique<auth::Authenticator>(users_.get(), auth::TokenSigner(std::string(32, 'k')));
    access_ = std::make_unique<auth::AccessControl>(node_->meta.get(), std::set<std::string>{"engine"});
    token_ = authenticator_->IssueToken("engine");
    catalog_ = std::make_unique<RestCatalog>(node_->meta.get(), node_->tables.get(), warehouse_.get(), nullptr,
                                             RestCatalogOptions{authenticator_.get(), access_.get()});
    auto server = http::HttpServer::Start("127.0.0.1:0", [this](const http::ServerRequest& r) {
      return catalog_->Handle(r);
    });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    uri_ = "http://127.0.0.1:" + std::to_string(server_->port());
  }
  void TearDown() override { server_.reset(); }

  std::string dir_, uri_, token_;
  std::unique_ptr<table::testing::TestNode> node_;
  std::unique_ptr<auth::UserDirectory> users_;
  std::unique_ptr<auth::Authenticator> authenticator_;
  std::unique_ptr<auth::AccessControl> access_;
  std::unique_ptr<Warehouse> warehouse_;
  std::unique_ptr<RestCatalog> catalog_;
  std::unique_ptr<http::HttpServer> server_;
};

TEST_F(RestClientTest, CreatesLoadsAndCommitsToATable) {
  auto client = RestCatalogClient::Connect({uri_, token_, ""});
  ASSERT_TRUE(client.ok()) << client.status();
  RestCatalogClient& c = **client;
  ASSERT_TRUE(c.EnsureNamespace({"ext", "raw"}).ok());
  ASSERT_TRUE(c.EnsureNamespace({"ext", "raw"}).ok()) << "an existing namespace is fine";
  auto missing = c.LoadTable({"ext", "raw"}, "events");
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_FALSE(missing->has_value());

  const Json schema = {{"type", "struct"}, {"schema-id", 0},
                       {"fields", {{{"id", 1}, {"name", "id"}, {"required", true}, {"type", "long"}},
                                   {{"id", 2}, {"name", "kind"}, {"required", false}, {"type", "string"}}}},
                       {"identifier-field-ids", {1}}};
  const Json spec = {{"spec-id", 0},
                     {"fields", {{{"source-id", 1}, {"field-id", 1000}, {"name", "id_bucket"}, {"transform", "bucket[2]"}}}}};
  auto created = c.CreateTable({"ext", "raw"}, "events", schema, spec, "", {{"owner", "mink"}});
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_FALSE(created->metadata_location.empty());
  EXPECT_EQ(created->metadata["properties"].value("owner", ""), "mink");
  auto again = c.CreateTable({"ext", "raw"}, "events", schema, spec, "", Json::object());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists) << again.status();

  auto loaded = c.LoadTable({"ext", "raw"}, "events");
  ASSERT_TRUE(loaded.ok() && loaded->has_value());
  EXPECT_EQ((*loaded)->metadata_location, created->metadata_location);
  const std::string uuid = (*loaded)->metadata.value("table-uuid", "");

  const Json snapshot = {{"snapshot-id", 7}, {"sequence-number", 1}, {"timestamp-ms", 1},
                         {"manifest-list", (*loaded)->metadata.value("location", "") + "/metadata/snap-7.avro"},
                         {"summary", {{"operation", "append"}}}, {"schema-id", 0}};
  const Json requirements = {{{"type", "assert-table-uuid"}, {"uuid", uuid}},
                             {{"type", "assert-ref-snapshot-id"}, {"ref", "main"}, {"snapshot-id", nullptr}}};
  const Json updates = {{{"action", "add-snapshot"}, {"snapshot", snapshot}},
                        {{"action", "set-snapshot-ref"}, {"ref-name", "main"}, {"type", "branch"}, {"snapshot-id", 7}}};
  auto committed = c.CommitTable({"ext", "raw"}, "events", requirements, updates);
  ASSERT_TRUE(committed.ok()) << committed.status();
  EXPECT_EQ(committed->metadata.value("current-snapshot-id", int64_t{0}), 7);
  EXPECT_NE(committed->metadata_location, created->metadata_location);
  // The same base again: main is no longer absent.
  auto lost = c.CommitTable({"ext", "raw"}, "events", requirements, updates);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), StatusCode::kAborted) << lost.status();

  auto stranger = RestCatalogClient::Connect({uri_, "", ""});
  ASSERT_FALSE(stranger.ok());
  EXPECT_EQ(stranger.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(stranger.status().message().find("NotAuthorizedException"), std::string::npos) << stranger.status();
  auto nobody = RestCatalogClient::Connect({"http://127.0.0.1:1", "", ""});
  ASSERT_FALSE(nobody.ok());
  EXPECT_EQ(nobody.status().code(), StatusCode::kUnavailable) << nobody.status();
}

TEST_F(RestClientTest, ACredentialLogsInAtTheTokenEndpoint) {
  auto client = RestCatalogClient::Connect({uri_, "", "", "engine:engine-password"});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_TRUE((*client)->EnsureNamespace({"ext"}).ok());
  auto wrong = RestCatalogClient::Connect({uri_, "", "", "engine:not-it"});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kFailedPrecondition) << wrong.status();
  EXPECT_NE(wrong.status().message().find("invalid_client"), std::string::npos) << wrong.status();
}

}  // namespace
}  // namespace mink::lake
