// Cluster against an in-process Flight server answering as a node would (docs/flight-api.md):
// databases, tables, descriptions, endpoints and column statistics, parsed.

#include "client/cluster.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "flight/server/flight_server.h"

namespace mink::client {
namespace {

using nlohmann::json;

// Answers the actions in `answers` (by type) with their text; every other action is NotFound.
// GetFlightInfo answers two buckets of one partition, the second with a location.
class FakeNode final : public flight::FlightHandler {
 public:
  std::map<std::string, std::string> answers;

  Result<std::vector<flight::FlightInfo>> ListFlights(const std::string&) override {
    return std::vector<flight::FlightInfo>{};
  }
  Result<flight::FlightInfo> GetFlightInfo(const flight::FlightDescriptor& d) override {
    if (d.path != std::vector<std::string>{"shop", "events"}) return NotFoundError("no table");
    flight::FlightInfo info;
    info.endpoints.push_back({R"({"table":"shop.events","partition":"us","bucket":0})", {}, ""});
    info.endpoints.push_back(
        {R"({"table":"shop.events","partition":"us","bucket":1})", {"grpc://10.0.0.2:9123"}, ""});
    return info;
  }
  Result<std::string> GetSchema(const flight::FlightDescriptor&) override {
    return NotFoundError("no schemas");
  }
  Status DoGet(const std::string&, flight::FlightDataWriter&) override {
    return UnimplementedError("no reads");
  }
  Status DoPut(flight::FlightDataReader&, flight::PutResultWriter&) override {
    return UnimplementedError("no writes");
  }
  Result<std::vector<flight::ActionType>> ListActions() override {
    return std::vector<flight::ActionType>{};
  }
  Status DoAction(const flight::Action& action, flight::ActionResultWriter& writer) override {
    auto it = answers.find(action.type);
    if (it == answers.end()) return NotFoundError("table does not exist");
    writer.Write(flight::ActionResult{it->second});
    return Status::Ok();
  }
};

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = flight::FlightServer::Start("127.0.0.1:0", &node_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    auto cluster = Cluster::Connect(server_->address());
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(*cluster);
  }
  void TearDown() override {
    cluster_.reset();
    if (server_) server_->Shutdown();
  }

  FakeNode node_;
  std::unique_ptr<flight::FlightServer> server_;
  std::shared_ptr<Cluster> cluster_;
};

TEST_F(ClusterTest, ListsDatabasesAndTablesSortedWithoutTheDatabase) {
  node_.answers["list-databases"] = R"({"databases": ["shop", "app"]})";
  node_.answers["list-tables"] = R"({"tables": ["shop.orders", "shop.events", "app.x"]})";
  auto databases = cluster_->ListDatabases();
  ASSERT_TRUE(databases.ok()) << databases.status();
  EXPECT_EQ(*databases, (std::vector<std::string>{"app", "shop"}));
  auto tables = cluster_->ListTables("shop");
  ASSERT_TRUE(tables.ok()) << tables.status();
  EXPECT_EQ(*tables, (std::vector<std::string>{"events", "orders"}));
}

TEST_F(ClusterTest, DescribesATableWithItsArrowSchemaAndNullWhenMissing) {
  auto missing = cluster_->DescribeTable("shop", "nope");
  ASSERT_TRUE(missing.ok()) << missing.status();
  EXPECT_EQ(*missing, nullptr);

  node_.answers["describe-table"] = R"({"table": "shop.events", "columns": [
      {"name": "k", "type": "BIGINT", "not_null": true}, {"name": "v", "type": "STRING"}],
      "bucket_count": 2})";
  auto meta = cluster_->DescribeTable("shop", "events");
  ASSERT_TRUE(meta.ok()) << meta.status();
  ASSERT_NE(*meta, nullptr);
  EXPECT_EQ((*meta)->full_name(), "shop.events");
  ASSERT_EQ((*meta)->description.columns.size(), 2u);
  EXPECT_EQ((*meta)->description.columns[0].type_text, "BIGINT");
  EXPECT_EQ((*meta)->description.bucket_count, 2);
  ASSERT_NE((*meta)->schema, nullptr);
  EXPECT_EQ((*meta)->schema->num_fields(), 2);
}

TEST_F(ClusterTest, EndpointsCarryPartitionBucketAndLocation) {
  auto endpoints = cluster_->Endpoints("shop", "events");
  ASSERT_TRUE(endpoints.ok()) << endpoints.status();
  ASSERT_EQ(endpoints->size(), 2u);
  EXPECT_EQ((*endpoints)[0].partition, "us");
  EXPECT_EQ((*endpoints)[0].bucket, 0);
  EXPECT_EQ((*endpoints)[0].location, "");
  EXPECT_EQ((*endpoints)[1].bucket, 1);
  EXPECT_EQ((*endpoints)[1].location, "grpc://10.0.0.2:9123");
}

TEST_F(ClusterTest, ColumnStatsAreTheTableLayersRanges) {
  node_.answers["column-stats"] = R"({"buckets": [{"partition": "us", "bucket": 1, "end": 120,
      "rows": 120, "columns": [{"name": "k", "min": -3, "max": 99, "nulls": 2},
                               {"name": "t", "nulls": 120}]}]})";
  auto stats = cluster_->ColumnStats("shop", "events");
  ASSERT_TRUE(stats.ok()) << stats.status();
  ASSERT_EQ(stats->size(), 1u);
  const table::BucketColumnStats& b = (*stats)[0];
  EXPECT_EQ(b.partition, "us");
  EXPECT_EQ(b.bucket, 1);
  EXPECT_EQ(b.end, 120);
  EXPECT_EQ(b.rows, 120);
  ASSERT_EQ(b.columns.size(), 2u);
  EXPECT_EQ(b.columns[0].column, "k");
  EXPECT_TRUE(b.columns[0].has_values);
  EXPECT_EQ(b.columns[0].min, -3);
  EXPECT_EQ(b.columns[0].max, 99);
  EXPECT_EQ(b.columns[0].null_count, 2);
  EXPECT_EQ(b.columns[1].column, "t");
  EXPECT_FALSE(b.columns[1].has_values);  // every value null: no min or max
  EXPECT_EQ(b.columns[1].null_count, 120);
}

TEST(ParseColumnStatsTest, MalformedAnswersAreInternal) {
  for (const char* text : {R"({})", R"({"buckets": {}})", R"({"buckets": [{"bucket": 0}]})",
                           R"({"buckets": [{"bucket": 0, "end": 1, "rows": 1, "columns": [{}]}]})",
                           R"({"buckets": [{"partition": 3, "bucket": 0, "end": 1, "rows": 1,
                               "columns": []}]})"}) {
    auto stats = ParseColumnStats(json::parse(text));
    EXPECT_EQ(stats.status().code(), StatusCode::kInternal) << text;
  }
}

TEST(EncodeTicketTest, WritesOnlyWhatIsSet) {
  EXPECT_EQ(
      json::parse(EncodeTicket({"shop.events", false, {}, std::nullopt, 2, std::nullopt, false})),
      json::parse(R"({"table": "shop.events", "mode": "log", "bucket": 2})"));
  EXPECT_EQ(json::parse(EncodeTicket({"shop.orders", true, {"id", "amount"}, "us", 0, 17, true})),
            json::parse(R"({"table": "shop.orders", "mode": "snapshot", "bucket": 0,
                            "partition": "us", "end": 17, "compressed": true,
                            "columns": ["id", "amount"]})"));
}

}  // namespace
}  // namespace mink::client
