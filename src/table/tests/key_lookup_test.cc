// KeyLookup through TableStore: point lookups by the whole primary key and prefix lookups by
// the bucket key, answered from the KV state in key order; missing keys add nothing; bad keys
// are refused with errors that name the column.

#include "table/key_lookup.h"

#include <gtest/gtest.h>

#include "table_test_node.h"

namespace mink::table {
namespace {

using testing::TestNode;

class KeyLookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    node_ = TestNode::Start(testing::TempMetaUrl("lookup"),
                            std::make_shared<object_store::MemoryStore>());
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
    // Partitioned by region; bucketed by customer, a prefix of the key (customer, id).
    TableSpec orders;
    orders.columns = {"customer BIGINT NOT NULL", "id INT NOT NULL", "region STRING NOT NULL",
                      "amount BIGINT"};
    orders.primary_key = {"customer", "id", "region"};
    orders.partition_by = {"region"};
    orders.bucket_key = {"customer"};
    orders.bucket_count = 3;
    ASSERT_TRUE(node_->tables->CreateTable("shop.orders", orders).ok());
    TableSpec events;
    events.columns = {"id BIGINT NOT NULL"};
    ASSERT_TRUE(node_->tables->CreateTable("shop.events", events).ok());
    std::vector<Row> rows;
    for (int64_t c = 1; c <= 20; ++c) {
      for (int64_t i = 1; i <= 3; ++i) {
        rows.push_back(Order(c, i, c % 2 ? "us" : "eu", c * 100 + i));
      }
    }
    rows.push_back(Order(7, 2, "us", 999));  // an update of (7, 2, us)
    auto info = node_->tables->DescribeTable("shop.orders");
    ASSERT_TRUE(info.ok());
    auto w = node_->tables->Write({"shop.orders"}, {testing::TableBatch(info->descriptor, rows)});
    ASSERT_TRUE(w.ok()) << w.status();
  }

  static Row Order(int64_t customer, int64_t id, const char* region, int64_t amount) {
    return {Value::Int(customer), Value::Int(id), Value::Bytes(region), Value::Int(amount)};
  }

  Result<std::vector<std::string>> Lookup(LookupRequest request, arrow::RecordBatchPtr keys) {
    MINK_ASSIGN_OR_RETURN(auto rows, node_->tables->Lookup(request, *keys));
    MINK_ASSIGN_OR_RETURN(auto schema, node_->tables->LookupSchema(request));
    EXPECT_TRUE(rows->schema()->Equals(*schema)) << rows->schema()->ToString();
    return testing::Lines(*rows);
  }

  std::unique_ptr<TestNode> node_;
};

TEST_F(KeyLookupTest, PointLookupsAnswerEachKeysRowInKeyOrderAndSkipMissingKeys) {
  auto keys = testing::BatchOf(
      {"id INT NOT NULL", "region STRING NOT NULL", "customer BIGINT NOT NULL"},
      {{Value::Int(2), Value::Bytes("us"), Value::Int(7)},
       {Value::Int(9), Value::Bytes("us"), Value::Int(7)},    // no such id
       {Value::Int(1), Value::Bytes("eu"), Value::Int(7)},    // customer 7 is in us
       {Value::Int(3), Value::Bytes("ap"), Value::Int(1)},    // no such partition
       {Value::Int(3), Value::Bytes("eu"), Value::Int(20)},
       {Value::Int(1), Value::Bytes("us"), Value::Int(1)}});
  auto lines = Lookup({"shop.orders"}, keys);
  ASSERT_TRUE(lines.ok()) << lines.status();
  EXPECT_EQ(*lines, (std::vector<std::string>{"7,2,us,999", "20,3,eu,2003", "1,1,us,101"}));
  // A projection.
  LookupRequest amounts{"shop.orders", false, {"amount", "id"}};
  lines = Lookup(amounts, keys);
  ASSERT_TRUE(lines.ok()) << lines.status();
  EXPECT_EQ(*lines, (std::vector<std::string>{"999,2", "2003,3", "101,1"}));
}

TEST_F(KeyLookupTest, PrefixLookupsAnswerEveryRowWithTheBucketKey) {
  auto keys = testing::BatchOf({"customer BIGINT NOT NULL", "region STRING NOT NULL"},
                               {{Value::Int(7), Value::Bytes("us")},
                                {Value::Int(8), Value::Bytes("us")},  // customer 8 is in eu
                                {Value::Int(8), Value::Bytes("eu")}});
  auto lines = Lookup({"shop.orders", true}, keys);
  ASSERT_TRUE(lines.ok()) << lines.status();
  EXPECT_EQ(*lines, (std::vector<std::string>{"7,1,us,701", "7,2,us,999", "7,3,us,703",
                                              "8,1,eu,801", "8,2,eu,802", "8,3,eu,803"}));
}

TEST_F(KeyLookupTest, RowsDeletedOrWrittenLaterAreSeen) {
  auto info = node_->tables->DescribeTable("shop.orders");
  WriteRequest del{"shop.orders", WriteMode::kDelete};
  ASSERT_TRUE(node_->tables
                  ->Write(del, {testing::TableBatch(info->descriptor, {Order(3, 1, "us", 0)})})
                  .ok());
  ASSERT_TRUE(node_->tables
                  ->Write({"shop.orders"},
                          {testing::TableBatch(info->descriptor, {Order(3, 4, "us", 304)})})
                  .ok());
  auto lines = Lookup({"shop.orders", true},
                      testing::BatchOf({"customer BIGINT NOT NULL", "region STRING NOT NULL"},
                                       {{Value::Int(3), Value::Bytes("us")}}));
  ASSERT_TRUE(lines.ok()) << lines.status();
  EXPECT_EQ(*lines, (std::vector<std::string>{"3,2,us,302", "3,3,us,303", "3,4,us,304"}));
}

TEST_F(KeyLookupTest, BadKeysAreRefusedNamingWhatIsWrong) {
  auto error = [&](LookupRequest request, arrow::RecordBatchPtr keys) {
    auto r = Lookup(std::move(request), std::move(keys));
    return r.ok() ? std::string("ok") : r.status().message();
  };
  auto full_key = [](std::vector<std::string> extra) {
    std::vector<std::string> cols = {"customer BIGINT NOT NULL", "id INT NOT NULL",
                                     "region STRING NOT NULL"};
    cols.insert(cols.end(), extra.begin(), extra.end());
    return cols;
  };
  EXPECT_EQ(error({"shop.orders"}, testing::BatchOf({"customer BIGINT NOT NULL",
                                                      "region STRING NOT NULL"},
                                                     {{Value::Int(1), Value::Bytes("us")}})),
            "a lookup of shop.orders needs the key columns (customer, id, region); 'id' is "
            "missing");
  EXPECT_EQ(error({"shop.orders"},
                  testing::BatchOf(full_key({"amount BIGINT"}),
                                   {{Value::Int(1), Value::Int(1), Value::Bytes("us"),
                                     Value::Int(5)}})),
            "a lookup of shop.orders takes the key columns (customer, id, region); 'amount' is "
            "not one of them");
  EXPECT_EQ(error({"shop.orders"},
                  testing::BatchOf({"customer INT NOT NULL", "id INT NOT NULL",
                                    "region STRING NOT NULL"},
                                   {{Value::Int(1), Value::Int(1), Value::Bytes("us")}})),
            "key column 'customer' is BIGINT (Arrow int64), not Arrow int32");
  EXPECT_EQ(error({"shop.orders"},
                  testing::BatchOf({"customer BIGINT", "id INT NOT NULL", "region STRING NOT NULL"},
                                   {{Value(), Value::Int(1), Value::Bytes("us")}})),
            "key 1 of a lookup of shop.orders: column 'customer' is null");
  EXPECT_EQ(error({"shop.orders", false, {"nope"}},
                  testing::BatchOf(full_key({}), {{Value::Int(1), Value::Int(1), Value::Bytes("us")}})),
            "unknown column 'nope' in table shop.orders");
  EXPECT_EQ(error({"shop.events"}, testing::BatchOf({"id BIGINT NOT NULL"}, {{Value::Int(1)}})),
            "lookups need a primary-key table; shop.events is a log table");
  EXPECT_EQ(error({"shop.nowhere"}, testing::BatchOf({"id BIGINT NOT NULL"}, {{Value::Int(1)}})),
            node_->tables->DescribeTable("shop.nowhere").status().message());
}

}  // namespace
}  // namespace mink::table
