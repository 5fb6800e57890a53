// The Iceberg shape of a Mink table: field ids from column ids, Iceberg types, the partition
// spec (identity + bucket), partition values; and the table metadata JSON.

#include "lake/iceberg.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "table/schema_change.h"

namespace mink::lake {
namespace {

table::TableDescriptor Bills() {
  table::TableSpec spec;
  spec.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "amount DECIMAL(10,2)",
                  "at TIMESTAMP(3)", "day DATE NOT NULL"};
  spec.primary_key = {"id", "region", "day"};
  spec.partition_by = {"region", "day"};
  spec.bucket_count = 4;
  spec.options = {{"table.datalake.enabled", "true"}};
  auto d = table::MakeDescriptor(spec);
  EXPECT_TRUE(d.ok()) << d.status();
  return *d;
}

TEST(Iceberg, SchemaPartitionSpecAndValues) {
  auto layout = LakeLayout::Of(Bills());
  ASSERT_TRUE(layout.ok()) << layout.status();
  EXPECT_EQ(nlohmann::json::parse(layout->SchemaJson()),
            nlohmann::json::parse(R"j({"type":"struct","schema-id":0,"identifier-field-ids":[1,2,5],
              "fields":[{"id":1,"name":"id","required":true,"type":"long"},
                        {"id":2,"name":"region","required":true,"type":"string"},
                        {"id":3,"name":"amount","required":false,"type":"decimal(10, 2)"},
                        {"id":4,"name":"at","required":false,"type":"timestamp"},
                        {"id":5,"name":"day","required":true,"type":"date"}]})j"));
  EXPECT_EQ(nlohmann::json::parse(layout->PartitionFieldsJson()),
            nlohmann::json::parse(R"([
              {"source-id":2,"field-id":1000,"name":"region","transform":"identity"},
              {"source-id":5,"field-id":1001,"name":"day","transform":"identity"},
              {"source-id":1,"field-id":1002,"name":"id_bucket","transform":"bucket[4]"}])"));
  EXPECT_EQ(layout->last_partition_id(), 1002);
  auto values = layout->PartitionValues("us$2017-11-16", 3);
  ASSERT_TRUE(values.ok()) << values.status();
  ASSERT_EQ(values->size(), 3u);
  EXPECT_EQ((*values)[0]->bytes(), "us");
  EXPECT_EQ((*values)[1]->int_value(), 17486);  // the spec's date vector
  EXPECT_EQ((*values)[2]->int_value(), 3);
}

// Another engine's files name their partition by values: they map back to Mink's partition
// name and bucket, and values no Mink partition can hold are refused.
TEST(Iceberg, PartitionValuesMapBackToThePartitionNameAndBucket) {
  auto layout = LakeLayout::Of(Bills());
  ASSERT_TRUE(layout.ok()) << layout.status();
  auto values = layout->PartitionValues("us$2017-11-16", 3);
  ASSERT_TRUE(values.ok()) << values.status();
  auto back = layout->PartitionOf(*values);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->first, "us$2017-11-16");
  EXPECT_EQ(back->second, 3);

  using table::Value;
  auto of = [&](std::optional<Value> region, std::optional<Value> day, std::optional<Value> bucket) {
    return layout->PartitionOf({std::move(region), std::move(day), std::move(bucket)});
  };
  EXPECT_EQ(of(Value::Bytes("eu"), Value::Int(0), Value::Int(0))->first, "eu$1970-01-01");
  EXPECT_EQ(of(Value::Bytes("eu"), Value::Int(0), Value::Int(4)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(of(Value::Bytes("eu"), Value::Int(0), std::nullopt).status().code(), StatusCode::kInvalidArgument);
  auto null_region = of(std::nullopt, Value::Int(0), Value::Int(1));
  EXPECT_NE(null_region.status().message().find("region is null"), std::string::npos) << null_region.status();
  auto slash = of(Value::Bytes("a/b"), Value::Int(0), Value::Int(1));
  EXPECT_NE(slash.status().message().find("letters, digits"), std::string::npos) << slash.status();
  EXPECT_EQ(layout->PartitionOf({Value::Bytes("eu"), Value::Int(0)}).status().code(),
            StatusCode::kInvalidArgument);  // one value short of the spec
}

TEST(Iceberg, TableMetadataNamesTheCurrentSnapshot) {
  auto layout = *LakeLayout::Of(Bills());
  metadata::LakeTableState lake;
  lake.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  lake.location = "file:///w/shop/bills";
  lake.snapshot_id = 42;
  lake.sequence_number = 1;
  lake.last_updated_ms = 1700000000000;
  lake.snapshots = {metadata::LakeSnapshot{42, 0, 1, 1700000000000, "file:///w/ml.avro",
                                           {{"operation", "append"}}, 0}};
  auto m = nlohmann::json::parse(layout.TableMetadata(lake));
  EXPECT_EQ(m["format-version"], 2);
  EXPECT_EQ(m["current-snapshot-id"], 42);
  EXPECT_EQ(m["refs"]["main"]["snapshot-id"], 42);
  EXPECT_EQ(m["last-column-id"], 5);
  EXPECT_EQ(m["snapshots"][0]["manifest-list"], "file:///w/ml.avro");
  EXPECT_FALSE(m["snapshots"][0].contains("parent-snapshot-id"));
}

TEST(Iceberg, TableMetadataKeepsEverySchemaWithItsFieldIds) {
  table::TableAlteration change;
  change.add_columns.push_back({"note STRING", ""});
  change.rename_columns.push_back({"amount", "total"});
  auto altered = table::AlterDescriptor(Bills(), change, "shop.bills");
  ASSERT_TRUE(altered.ok()) << altered.status();
  auto layout = *LakeLayout::Of(*altered);
  metadata::LakeTableState lake;
  lake.table_uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1";
  lake.location = "file:///w/shop/bills";
  lake.snapshot_id = 43;
  lake.sequence_number = 2;
  lake.snapshots = {metadata::LakeSnapshot{42, 0, 1, 1, "a", {{"operation", "append"}}, 0},
                    metadata::LakeSnapshot{43, 42, 2, 2, "b", {{"operation", "append"}}, 1}};
  auto m = nlohmann::json::parse(layout.TableMetadata(lake));
  ASSERT_EQ(m["schemas"].size(), 2u);
  EXPECT_EQ(m["schemas"][0]["schema-id"], 0);
  EXPECT_EQ(m["schemas"][0]["fields"][2]["name"], "amount");
  EXPECT_EQ(m["schemas"][1]["fields"][2]["name"], "total");
  EXPECT_EQ(m["schemas"][1]["fields"][2]["id"], 3) << "a rename keeps the field id";
  EXPECT_EQ(m["schemas"][1]["fields"][5]["id"], 6);
  EXPECT_EQ(m["current-schema-id"], 1);
  EXPECT_EQ(m["last-column-id"], 6);
  EXPECT_EQ(m["snapshots"][0]["schema-id"], 0);
  EXPECT_EQ(m["snapshots"][1]["schema-id"], 1);
}

TEST(Iceberg, WhatCannotBeTieredIsRefusedAtCreation) {
  auto error = [](std::vector<std::string> columns, std::vector<std::string> pk) {
    table::TableSpec spec;
    spec.columns = std::move(columns);
    spec.primary_key = std::move(pk);
    spec.options = {{"table.datalake.enabled", "true"}};
    auto d = table::MakeDescriptor(spec);
    return d.ok() ? std::string("ok") : d.status().message();
  };
  EXPECT_EQ(error({"a BIGINT NOT NULL", "b BIGINT NOT NULL"}, {"a", "b"}),
            "a tiered primary-key table has a single-column primary key (besides its partition "
            "columns): Iceberg's bucket transform hashes one column");
  EXPECT_EQ(error({"a BIGINT NOT NULL", "t ARRAY<INT>"}, {"a"}),
            "column 't' is ARRAY<INT>: ARRAY, MAP and ROW columns cannot be tiered yet");
  EXPECT_EQ(error({"a BIGINT NOT NULL", "t TIMESTAMP(9)"}, {"a"}),
            "column 't' is TIMESTAMP(9): Iceberg v2 keeps times to the microsecond (precision 6 "
            "at most)");
  EXPECT_EQ(error({"a BIGINT NOT NULL", "t TIMESTAMP(6)"}, {"a"}), "ok");
}

}  // namespace
}  // namespace mink::lake
