// Schema changes: what AlterDescriptor allows and refuses (with the reason), and reads of data
// written under earlier schemas through the table layer: logs, changelogs, snapshots, lookups,
// KV snapshots and replays after a restart, and writers that still have an older schema.

#include "table/schema_change.h"

#include <gtest/gtest.h>

#include "table/schema_evolution.h"
#include "table_test_node.h"

namespace mink::table {
namespace {

using testing::TestNode;

TableDescriptor Orders() {
  TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "qty INT NOT NULL",
                  "price DECIMAL(10,2)", "note STRING", "score FLOAT", "flag TINYINT"};
  spec.primary_key = {"id", "region"};
  spec.partition_by = {"region"};
  spec.options = {{"table.merge-engine", "aggregation"}, {"fields.qty.agg", "sum"},
                  {"fields.note.agg", "listagg"}, {"fields.note.listagg.delimiter", ";"}};
  auto d = MakeDescriptor(spec);
  EXPECT_TRUE(d.ok()) << d.status();
  return *d;
}

std::string Error(const TableDescriptor& d, const TableAlteration& change) {
  auto altered = AlterDescriptor(d, change, "shop.orders");
  return altered.ok() ? "ok" : altered.status().message();
}

TEST(SchemaChange, ColumnsKeepTheirIdsAcrossRenamesAndANewSchemaKeepsTheOld) {
  TableDescriptor d = Orders();
  TableAlteration change;
  change.rename_columns = {{"note", "remark"}, {"id", "order_id"}};
  change.drop_columns = {"flag"};
  change.modify_columns = {"qty BIGINT", "price DECIMAL(12,3)", "score DOUBLE"};
  change.add_columns = {{"channel STRING", "region"}, {"tags ARRAY<STRING>", ""}};
  auto altered = AlterDescriptor(d, change, "shop.orders");
  ASSERT_TRUE(altered.ok()) << altered.status();
  const TableSchema& s = altered->schema;
  EXPECT_EQ(s.schema_id, 1);
  ASSERT_EQ(altered->past_schemas.size(), 1u);
  EXPECT_EQ(altered->past_schemas[0].schema_id, 0);
  std::vector<std::string> columns;
  for (const auto& c : s.columns) {
    columns.push_back(c.name + ":" + c.type.ToString() + (c.not_null ? "!" : "") + "#" +
                      std::to_string(c.id));
  }
  EXPECT_EQ(columns, (std::vector<std::string>{"order_id:BIGINT!#0", "region:STRING!#1",
                                               "channel:STRING#7", "qty:BIGINT#2",
                                               "price:DECIMAL(12,3)#3", "remark:STRING#4",
                                               "score:DOUBLE#5", "tags:ARRAY<STRING>#8"}));
  EXPECT_EQ(altered->primary_key, (std::vector<std::string>{"order_id", "region"}));
  EXPECT_EQ(altered->aggregations.at("remark"), "listagg");
  EXPECT_EQ(altered->listagg_delimiters.at("remark"), ";");
  EXPECT_EQ(altered->options.count("fields.remark.agg"), 1u);
  EXPECT_EQ(altered->options.count("fields.note.agg"), 0u);
  // Survives its JSON form.
  auto again = TableDescriptor::FromJson(altered->ToJson());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->ToJson(), altered->ToJson());
  EXPECT_EQ(again->SchemaById(0)->columns.size(), 7u);
  EXPECT_EQ(again->next_column_id, 9);
  // A dropped column's id is not given again.
  TableAlteration readd;
  readd.add_columns = {{"flag TINYINT", ""}};
  auto re = AlterDescriptor(*again, readd, "shop.orders");
  ASSERT_TRUE(re.ok()) << re.status();
  EXPECT_EQ(re->schema.columns.back().id, 9);
  EXPECT_EQ(re->schema.schema_id, 2);
}

TEST(SchemaChange, RefusesWhatWouldLoseDataOrBreakKeysWithTheReason) {
  TableDescriptor d = Orders();
  auto one = [](auto fill) {
    TableAlteration c;
    fill(c);
    return c;
  };
  EXPECT_EQ(Error(d, one([](auto& c) { c.drop_columns = {"id"}; })),
            "column 'id' is part of the primary key and cannot be dropped");
  EXPECT_EQ(Error(d, one([](auto& c) { c.drop_columns = {"region"}; })),
            "column 'region' is part of the primary key and cannot be dropped");
  EXPECT_EQ(Error(d, one([](auto& c) { c.modify_columns = {"id INT NOT NULL"}; })),
            "column 'id' is part of the primary key: its type cannot change (its encoding decides "
            "each row's key and bucket)");
  EXPECT_EQ(Error(d, one([](auto& c) { c.modify_columns = {"qty SMALLINT"}; })),
            "column 'qty' cannot change from INT to SMALLINT: integers only widen (TINYINT -> "
            "SMALLINT -> INT -> BIGINT)");
  EXPECT_EQ(Error(d, one([](auto& c) { c.modify_columns = {"price DECIMAL(10,1)"}; })),
            "column 'price' cannot change from DECIMAL(10,2) to DECIMAL(10,1): a DECIMAL keeps its "
            "values only with as many integer digits and as many decimal places, or more");
  EXPECT_EQ(Error(d, one([](auto& c) { c.modify_columns = {"price DECIMAL(10,3)"}; })),
            "column 'price' cannot change from DECIMAL(10,2) to DECIMAL(10,3): a DECIMAL keeps its "
            "values only with as many integer digits and as many decimal places, or more");
  EXPECT_EQ(Error(d, one([](auto& c) { c.modify_columns = {"note INT"}; })),
            "column 'note' cannot change from STRING to INT: only widening changes keep every "
            "value (integers to wider integers or DOUBLE, FLOAT to DOUBLE, DECIMAL to a wider "
            "DECIMAL, NOT NULL to nullable)");
  EXPECT_EQ(Error(d, one([](auto& c) { c.modify_columns = {"note STRING NOT NULL"}; })),
            "column 'note' cannot become NOT NULL: rows written before may hold nulls");
  EXPECT_EQ(Error(d, one([](auto& c) { c.add_columns = {{"extra INT NOT NULL", ""}}; })),
            "added column 'extra' must be nullable: rows written before it have no value");
  EXPECT_EQ(Error(d, one([](auto& c) { c.add_columns = {{"note STRING", ""}}; })),
            "--add-column: shop.orders already has a column 'note'");
  EXPECT_EQ(Error(d, one([](auto& c) { c.add_columns = {{"x INT", "nope"}}; })),
            "--after: no column 'nope' in shop.orders");
  EXPECT_EQ(Error(d, one([](auto& c) { c.rename_columns = {{"note", "price"}}; })),
            "cannot rename 'note' to 'price': shop.orders already has a column 'price'");
  EXPECT_EQ(Error(d, one([](auto& c) { c.rename_columns = {{"note", "__offset"}}; })),
            "column name '__offset' is reserved");
  EXPECT_EQ(Error(d, one([](auto& c) { c.drop_columns = {"nope"}; })),
            "--drop-column: no column 'nope' in shop.orders");
  EXPECT_EQ(Error(d, one([](auto& c) { c.set_options = {{"bucket.function", "paimon"}}; })),
            "--set: option 'bucket.function' cannot change after the table is made (these can: "
            "table.log.ttl, table.log.arrow.compression.type, table.datalake.freshness, "
            "table.datalake.auto-compaction)");
  EXPECT_NE(Error(d, one([](auto& c) { c.set_options = {{"table.log.ttl", "soon"}}; })).find("soon"),
            std::string::npos);
  EXPECT_EQ(Error(d, TableAlteration{}), "an alter of shop.orders changes nothing");
  // Widening that keeps every value, and NOT NULL -> nullable, are allowed.
  EXPECT_EQ(Error(d, one([](auto& c) {
              c.modify_columns = {"qty BIGINT", "flag INT", "score DOUBLE", "price DECIMAL(11,3)"};
            })),
            "ok");
  EXPECT_EQ(Error(d, one([](auto& c) { c.modify_columns = {"qty INT"}; })), "ok");
  // Options alone make no new schema.
  auto ttl = AlterDescriptor(d, one([](auto& c) { c.set_options = {{"table.log.ttl", "2h"}}; }),
                             "shop.orders");
  ASSERT_TRUE(ttl.ok());
  EXPECT_EQ(ttl->schema.schema_id, 0);
  EXPECT_EQ(ttl->log_ttl_ms, 2 * 3600 * 1000);
  EXPECT_TRUE(ttl->sets_log_ttl());
  auto reset = AlterDescriptor(*ttl, one([](auto& c) { c.reset_options = {"table.log.ttl"}; }),
                               "shop.orders");
  ASSERT_TRUE(reset.ok());
  EXPECT_FALSE(reset->sets_log_ttl());
}

TEST(SchemaEvolution, ValuesAreWidenedAndRowsFollowColumnIds) {
  TableDescriptor d = Orders();
  TableAlteration change;
  change.modify_columns = {"qty BIGINT", "price DECIMAL(12,4)", "flag DOUBLE"};
  change.drop_columns = {"score"};
  change.add_columns = {{"extra INT", "id"}};
  change.rename_columns = {{"note", "remark"}};
  auto altered = AlterDescriptor(d, change, "t");
  ASSERT_TRUE(altered.ok());
  Row old = {Value::Int(1), Value::Bytes("us"), Value::Int(5), Value::Decimal(1234),
             Value::Bytes("n"), Value::Double(1.5), Value::Int(-3)};
  Row now = UpgradeRow(old, d.schema, altered->schema);
  EXPECT_EQ(now, (Row{Value::Int(1), Value(), Value::Bytes("us"), Value::Int(5),
                      Value::Decimal(123400), Value::Bytes("n"), Value::Double(-3)}));
}

// ---- reads across schemas through TableStore

class SchemaReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    meta_url_ = testing::TempMetaUrl("schema");
    objects_ = std::make_shared<object_store::MemoryStore>();
    Restart();
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
  }
  void Restart() {
    node_.reset();
    node_ = TestNode::Start(meta_url_, objects_);
    ASSERT_NE(node_, nullptr);
  }
  void Write(const std::string& table, std::vector<std::string> columns, std::vector<Row> rows,
             WriteMode mode = WriteMode::kUpsert) {
    WriteRequest w{table, mode};
    auto r = node_->tables->Write(w, {testing::BatchOf(columns, rows)});
    ASSERT_TRUE(r.ok()) << r.status();
  }
  std::vector<std::string> Read(ReadRequest request) {
    return testing::ReadLines(*node_->tables, request);
  }
  void Alter(const std::string& table, TableAlteration change) {
    auto r = node_->tables->AlterTable(table, change);
    ASSERT_TRUE(r.ok()) << r.status();
  }

  std::string meta_url_;
  std::shared_ptr<object_store::MemoryStore> objects_;
  std::unique_ptr<TestNode> node_;
};

TEST_F(SchemaReadTest, ALogWrittenUnderThreeSchemasReadsUnderTheLast) {
  TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "n INT", "note STRING", "gone STRING"};
  ASSERT_TRUE(node_->tables->CreateTable("shop.events", spec).ok());
  Write("shop.events", {"id BIGINT NOT NULL", "n INT", "note STRING", "gone STRING"},
        {{Value::Int(1), Value::Int(10), Value::Bytes("a"), Value::Bytes("x")}});
  TableAlteration v1;
  v1.add_columns = {{"extra DOUBLE", "id"}};
  v1.rename_columns = {{"note", "remark"}};
  Alter("shop.events", v1);
  Write("shop.events", {"id BIGINT NOT NULL", "extra DOUBLE", "n INT", "remark STRING"},
        {{Value::Int(2), Value::Double(2.5), Value::Int(20), Value::Bytes("b")}});
  TableAlteration v2;
  v2.modify_columns = {"n BIGINT"};
  v2.drop_columns = {"gone"};
  Alter("shop.events", v2);
  Write("shop.events", {"id BIGINT NOT NULL", "n BIGINT", "remark STRING"},
        {{Value::Int(3), Value::Int(int64_t{1} << 40), Value::Bytes("c")}});
  const std::vector<std::string> all = {"1,null,10,a", "2,2.500000,20,b",
                                        "3,null,1099511627776,c"};
  EXPECT_EQ(Read({"shop.events"}), all);
  ReadRequest projected{"shop.events"};
  projected.columns = {"remark", "n"};
  EXPECT_EQ(Read(projected), (std::vector<std::string>{"a,10", "b,20", "c,1099511627776"}));
  ReadRequest from_second{"shop.events"};
  from_second.from = "1";
  from_second.limit = 1;
  EXPECT_EQ(Read(from_second), (std::vector<std::string>{"2,2.500000,20,b"}));
  // A writer that still has the first schema: its INT column is widened, a dropped column is
  // refused by name, a missing added column is null.
  Write("shop.events", {"id BIGINT NOT NULL", "n INT", "remark STRING"},
        {{Value::Int(4), Value::Int(40), Value::Bytes("d")}});
  WriteRequest old_writer{"shop.events"};
  auto refused = node_->tables->Write(
      old_writer, {testing::BatchOf({"id BIGINT NOT NULL", "gone STRING"},
                                    {{Value::Int(5), Value::Bytes("x")}})});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "column 'gone' was dropped from shop.events (or renamed; its schema is now 2)");
  Restart();
  auto after = Read({"shop.events"});
  EXPECT_EQ(after.size(), 4u);
  EXPECT_EQ(after.back(), "4,null,40,d");
  auto info = node_->tables->DescribeTable("shop.events");
  EXPECT_EQ(info->descriptor.schema.schema_id, 2);
}

TEST_F(SchemaReadTest, APrimaryKeyTableKeepsItsStateAcrossSchemasSnapshotsAndRestarts) {
  TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "qty INT", "price DECIMAL(10,2)", "note STRING"};
  spec.primary_key = {"id"};
  spec.options = {{"table.merge-engine", "aggregation"}, {"fields.qty.agg", "sum"}};
  ASSERT_TRUE(node_->tables->CreateTable("shop.stock", spec).ok());
  const std::vector<std::string> v0 = {"id BIGINT NOT NULL", "qty INT", "price DECIMAL(10,2)",
                                       "note STRING"};
  Write("shop.stock", v0,
        {{Value::Int(1), Value::Int(5), Value::Decimal(1050), Value::Bytes("a")},
         {Value::Int(2), Value::Int(7), Value::Decimal(300), Value::Bytes("b")}});
  ASSERT_TRUE(node_->tables->SnapshotAll().ok());  // a KV snapshot of schema 0
  Write("shop.stock", v0, {{Value::Int(1), Value::Int(1), Value::Decimal(1100), Value::Bytes("c")}});
  TableAlteration change;
  change.modify_columns = {"qty BIGINT", "price DECIMAL(12,3)"};
  change.rename_columns = {{"note", "remark"}};
  change.add_columns = {{"color STRING", ""}};
  Alter("shop.stock", change);
  ReadRequest snapshot{"shop.stock"};
  snapshot.mode = ReadMode::kSnapshot;
  // The state in memory is brought to the new schema: sums go on in BIGINT.
  EXPECT_EQ(Read(snapshot), (std::vector<std::string>{"1,6,11000,c,null", "2,7,3000,b,null"}));
  Write("shop.stock", {"id BIGINT NOT NULL", "qty BIGINT", "color STRING"},
        {{Value::Int(2), Value::Int(int64_t{1} << 33), Value::Bytes("red")}});
  const std::vector<std::string> want = {"1,6,11000,c,null", "2,8589934599,3000,b,red"};
  EXPECT_EQ(Read(snapshot), want);
  auto lookup = node_->tables->Lookup(
      {"shop.stock"}, *testing::BatchOf({"id BIGINT NOT NULL"}, {{Value::Int(2)}}));
  ASSERT_TRUE(lookup.ok()) << lookup.status();
  EXPECT_EQ(testing::Lines(**lookup), (std::vector<std::string>{"2,8589934599,3000,b,red"}));
  // The changelog reads under the new schema, old records included.
  ReadRequest changelog{"shop.stock"};
  changelog.columns = {"id", "qty", "remark"};
  EXPECT_EQ(Read(changelog),
            (std::vector<std::string>{"1,5,a", "2,7,b", "1,5,a", "1,6,c", "2,7,b",
                                      "2,8589934599,b"}));
  // Restarted: the schema-0 snapshot and the changelog of both schemas rebuild the same state.
  Restart();
  EXPECT_EQ(Read(snapshot), want);
  ASSERT_TRUE(node_->tables->SnapshotAll().ok());  // a KV snapshot of schema 1
  Restart();
  EXPECT_EQ(Read(snapshot), want);
  Write("shop.stock", {"id BIGINT NOT NULL", "qty BIGINT"}, {{Value::Int(1), Value::Int(4)}});
  EXPECT_EQ(Read(snapshot)[0], "1,10,11000,c,null");
}

}  // namespace
}  // namespace mink::table
