#include "table/row_router.h"

#include <gtest/gtest.h>

#include "table_test_node.h"

namespace mink::table {
namespace {

using testing::BatchOf;

class RowRouterTest : public testing::RoomsTest {
 protected:
  void SetUp() override {
    RoomsTest::SetUp();
    TableSpec orders;
    orders.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "amount DECIMAL(10,2)"};
    orders.primary_key = {"id", "region"};
    orders.partition_by = {"region"};
    orders.bucket_count = 2;
    MustCreate("shop.orders", orders);
    TableSpec visits;  // a log table partitioned by nullable columns
    visits.columns = {"k INT NOT NULL", "region STRING", "day DATE", "note STRING"};
    visits.partition_by = {"region", "day"};
    visits.bucket_key = {"k"};
    visits.bucket_count = 8;
    MustCreate("shop.visits", visits);
  }

  Result<RoutedWrite> Route(const WriteRequest& request,
                            const std::vector<arrow::RecordBatchPtr>& batches) {
    auto table = rooms_->catalog.Find(request.table);
    EXPECT_TRUE(table.ok()) << table.status();
    if (!table.ok()) return table.status();
    return RouteRows(**table, request, batches, &sticky_);
  }
  // The error of a write that must be refused as InvalidArgument.
  std::string Refusal(const WriteRequest& request,
                      const std::vector<arrow::RecordBatchPtr>& batches) {
    auto r = Route(request, batches);
    EXPECT_FALSE(r.ok());
    if (r.ok()) return "";
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status();
    return r.status().message();
  }
  static Row Visit(int32_t k, Value region, const char* note) {
    return {Value::Int(k), std::move(region), Value::Int(20791), Value::Bytes(note)};
  }
  static const std::vector<std::string>& VisitColumns() {
    static const std::vector<std::string> columns = {"k INT NOT NULL", "region STRING", "day DATE",
                                                     "note STRING"};
    return columns;
  }

  std::atomic<uint64_t> sticky_{0};
};

TEST_F(RowRouterTest, AnUnknownColumnIsRefusedNamingTheTable) {
  EXPECT_EQ(Refusal({"shop.visits"},
                    {BatchOf({"k INT", "nope STRING"}, {{Value::Int(1), Value::Bytes("x")}})}),
            "unknown column 'nope' in table shop.visits");
  WriteRequest partial{"shop.orders"};
  partial.columns = {"nope"};
  EXPECT_EQ(Refusal(partial, {}), "unknown column 'nope' in table shop.orders");
}

TEST_F(RowRouterTest, AColumnOfAnotherArrowTypeIsRefused) {
  std::string error = Refusal({"shop.visits"}, {BatchOf({"k BIGINT"}, {{Value::Int(1)}})});
  EXPECT_NE(error.find("column 'k' is INT"), std::string::npos) << error;
  EXPECT_NE(error.find("int64"), std::string::npos) << error;
}

TEST_F(RowRouterTest, ANotNullColumnMissingOrNullIsRefusedWithItsRowNumber) {
  auto good = BatchOf({"id BIGINT", "region STRING", "amount DECIMAL(10,2)"},
                      {{Value::Int(1), Value::Bytes("us"), Value::Decimal(1)},
                       {Value::Int(2), Value::Bytes("eu"), Value::Decimal(2)}});
  // Rows are numbered across the batches of a write.
  auto missing =
      BatchOf({"id BIGINT", "amount DECIMAL(10,2)"}, {{Value::Int(3), Value::Decimal(3)}});
  EXPECT_EQ(Refusal({"shop.orders"}, {good, missing}),
            "row 3: column 'region' is NOT NULL but missing");
  auto null = BatchOf({"id BIGINT", "region STRING"},
                      {{Value::Int(3), Value::Bytes("us")}, {Value::Int(4), Value()}});
  EXPECT_EQ(Refusal({"shop.orders"}, {good, null}),
            "row 4: column 'region' is NOT NULL but the value is null");
  // A nullable column may be missing or null.
  auto r =
      Route({"shop.orders"},
            {good, BatchOf({"id BIGINT", "region STRING"}, {{Value::Int(5), Value::Bytes("us")}})});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->rows.size(), 3u);
  EXPECT_TRUE(r->rows[2].row[2].is_null());
}

TEST_F(RowRouterTest, ANullOrInvalidPartitionValueIsRefusedWithItsRowNumber) {
  auto write = [&](Value region) {
    return Refusal({"shop.visits"},
                   {BatchOf(VisitColumns(), {Visit(1, Value::Bytes("us"), "ok"),
                                             Visit(2, std::move(region), "bad")})});
  };
  EXPECT_EQ(write(Value()), "row 2: a partition column is null");
  EXPECT_EQ(write(Value::Bytes("us west")),
            "row 2: partition value 'us west' may only contain letters, digits, '_' and '-'");
  EXPECT_EQ(write(Value::Bytes("__us")),
            "row 2: partition value '__us' must be 1-200 characters and not start with __");
}

TEST_F(RowRouterTest, RowsGetThePartitionAndBucketOfTheirValues) {
  // Native bucketing of INT keys over 8 buckets (docs/tables.md's vectors): 1 -> 4, -1 -> 2.
  auto r = Route({"shop.visits"}, {BatchOf(VisitColumns(), {Visit(1, Value::Bytes("us"), "a"),
                                                            Visit(-1, Value::Bytes("eu"), "b")})});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0].partition, "us$2026-12-04");
  EXPECT_EQ(r->rows[0].bucket, 4);
  EXPECT_EQ(r->rows[0].line, 1);
  EXPECT_EQ(r->rows[0].row[3], Value::Bytes("a"));
  EXPECT_TRUE(r->rows[0].key.empty()) << "a log table's rows have no primary key";
  EXPECT_EQ(r->rows[1].partition, "eu$2026-12-04");
  EXPECT_EQ(r->rows[1].bucket, 2);
  EXPECT_EQ(r->rows[1].line, 2);
  EXPECT_TRUE(r->targets.empty());

  // A primary-key table: its bucket key is the key without the partition columns (id), and
  // every row carries its encoded key (compacted: varint 300, then "us" with its length).
  auto pk =
      Route({"shop.orders"},
            {BatchOf({"id BIGINT", "region STRING"}, {{Value::Int(300), Value::Bytes("us")}})});
  ASSERT_TRUE(pk.ok()) << pk.status();
  ASSERT_EQ(pk->rows.size(), 1u);
  EXPECT_EQ(pk->rows[0].partition, "us");
  EXPECT_EQ(pk->rows[0].bucket, 1);  // BIGINT 300 over 2 buckets
  EXPECT_EQ(pk->rows[0].key, std::string("\xac\x02\x02us", 5));
}

TEST_F(RowRouterTest, TheTablesBucketFunctionPlacesTheRows) {
  // INT 1 over 16 buckets: native 12, paimon 14, iceberg 4 (docs/tables.md).
  for (auto [function, bucket] :
       {std::pair<const char*, int32_t>{"native", 12}, {"paimon", 14}, {"iceberg", 4}}) {
    TableSpec spec;
    spec.columns = {"k INT NOT NULL"};
    spec.bucket_key = {"k"};
    spec.bucket_count = 16;
    spec.options = {{"bucket.function", function}};
    const std::string name = std::string("shop.") + function;
    MustCreate(name, spec);
    auto r = Route({name}, {BatchOf({"k INT"}, {{Value::Int(1)}})});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->rows[0].bucket, bucket) << function;
  }
}

TEST_F(RowRouterTest, WritesToATableWithoutABucketKeyGoToTheNextBucketInTurn) {
  TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL"};
  spec.bucket_count = 3;
  MustCreate("shop.plain", spec);
  std::vector<int32_t> buckets;
  for (int write = 0; write < 4; ++write) {
    auto r = Route({"shop.plain"}, {BatchOf({"id BIGINT"}, {{Value::Int(1)}, {Value::Int(2)}}),
                                    BatchOf({"id BIGINT"}, {{Value::Int(3)}})});
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->rows.size(), 3u);
    for (const auto& row : r->rows) EXPECT_EQ(row.bucket, r->rows[0].bucket) << "write " << write;
    buckets.push_back(r->rows[0].bucket);
  }
  EXPECT_EQ(buckets, (std::vector<int32_t>{0, 1, 2, 0}));
}

TEST_F(RowRouterTest, GroupByBucketKeepsTheOrderOfFirstAppearance) {
  std::vector<RoutedRow> rows;
  for (auto [partition, bucket] :
       {std::pair<const char*, int32_t>{"us", 1}, {"eu", 0}, {"us", 1}, {"us", 0}, {"eu", 0}}) {
    RoutedRow r;
    r.partition = partition;
    r.bucket = bucket;
    r.line = static_cast<int64_t>(rows.size()) + 1;
    rows.push_back(r);
  }
  auto groups = GroupByBucket(rows);
  ASSERT_EQ(groups.size(), 3u);
  auto lines = [](const std::vector<RoutedRow*>& group) {
    std::vector<int64_t> out;
    for (const RoutedRow* r : group) out.push_back(r->line);
    return out;
  };
  EXPECT_EQ(groups[0].first, (std::pair<std::string, int32_t>{"us", 1}));
  EXPECT_EQ(lines(groups[0].second), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(groups[1].first, (std::pair<std::string, int32_t>{"eu", 0}));
  EXPECT_EQ(lines(groups[1].second), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(groups[2].first, (std::pair<std::string, int32_t>{"us", 0}));
  EXPECT_EQ(lines(groups[2].second), (std::vector<int64_t>{4}));
  // The groups point into the rows themselves.
  EXPECT_EQ(groups[2].second[0], &rows[3]);
}

TEST_F(RowRouterTest, DeletesAndPartialUpdatesNeedAPrimaryKeyTable) {
  WriteRequest del{"shop.visits", WriteMode::kDelete};
  EXPECT_EQ(Refusal(del, {}), "deletes need a primary-key table; shop.visits is a log table");
  WriteRequest partial{"shop.visits"};
  partial.columns = {"note"};
  EXPECT_EQ(Refusal(partial, {}), "partial updates need a primary-key table");
}

TEST_F(RowRouterTest, APartialUpdateOrADeleteChecksOnlyTheColumnsItNeeds) {
  TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "a STRING NOT NULL", "b STRING"};
  spec.primary_key = {"id"};
  MustCreate("shop.kv", spec);
  auto id_b = BatchOf({"id BIGINT", "b STRING"}, {{Value::Int(1), Value::Bytes("x")}});
  EXPECT_EQ(Refusal({"shop.kv"}, {id_b}), "row 1: column 'a' is NOT NULL but missing");

  WriteRequest partial{"shop.kv"};
  partial.columns = {"b"};
  auto r = Route(partial, {id_b});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->targets, (std::vector<bool>{true, false, true})) << "the key is always a target";
  ASSERT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->rows[0].row[2], Value::Bytes("x"));

  WriteRequest del{"shop.kv", WriteMode::kDelete};
  auto d = Route(del, {BatchOf({"id BIGINT"}, {{Value::Int(1)}})});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->rows.size(), 1u);
  // The key itself is checked in a delete too.
  EXPECT_EQ(Refusal(del, {BatchOf({"id BIGINT"}, {{Value()}})}),
            "row 1: column 'id' is NOT NULL but the value is null");
}

}  // namespace
}  // namespace mink::table
