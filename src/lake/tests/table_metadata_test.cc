// Iceberg table metadata through the REST catalog's requirements and updates.

#include "lake/table_metadata.h"

#include <gtest/gtest.h>

#include "lake/rest_requests.h"

namespace mink::lake {
namespace {

Json CreateRequest() {
  return Json::parse(R"({"name": "events",
    "schema": {"type": "struct", "fields": [
      {"id": 1, "name": "id", "type": "long", "required": true},
      {"id": 2, "name": "tags", "type": {"type": "list", "element-id": 5, "element": "string",
                                          "element-required": false}, "required": false}]},
    "partition-spec": {"fields": [{"source-id": 1, "name": "id_bucket", "transform": "bucket[4]"}]},
    "properties": {"format-version": "1", "owner": "ana"}})");
}

TEST(TableMetadata, ANewTableIsVersion2WithIdsAssigned) {
  auto m = NewTableMetadata(CreateRequest(), "file:///w/ext/events", "u-1", 1000);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)["format-version"], 2);
  EXPECT_EQ((*m)["last-column-id"], 5) << "the list's element id counts";
  EXPECT_EQ((*m)["partition-specs"][0]["fields"][0]["field-id"], 1000);
  EXPECT_EQ((*m)["last-partition-id"], 1000);
  EXPECT_EQ((*m)["properties"], Json({{"owner", "ana"}})) << "format-version is reserved";
  EXPECT_EQ((*m)["current-snapshot-id"], -1);
  Json duplicate = CreateRequest();
  duplicate["schema"]["fields"][1]["id"] = 1;
  EXPECT_EQ(NewTableMetadata(duplicate, "l", "u", 1).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(NewTableMetadata(Json::object(), "l", "u", 1).status().code(), StatusCode::kInvalidArgument);
}

TEST(TableMetadata, RequirementsHoldOrFailWithWhatDiffered) {
  const Json m = *NewTableMetadata(CreateRequest(), "l", "u-1", 1000);
  EXPECT_TRUE(CheckRequirement(nullptr, Json{{"type", "assert-create"}}).ok());
  EXPECT_EQ(CheckRequirement(&m, Json{{"type", "assert-create"}}).code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(CheckRequirement(&m, Json{{"type", "assert-table-uuid"}, {"uuid", "u-1"}}).ok());
  Status wrong = CheckRequirement(&m, Json{{"type", "assert-table-uuid"}, {"uuid", "u-2"}});
  EXPECT_EQ(wrong.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(wrong.message().find("u-1"), std::string::npos) << wrong;
  EXPECT_TRUE(CheckRequirement(&m, Json{{"type", "assert-ref-snapshot-id"}, {"ref", "main"}, {"snapshot-id", nullptr}}).ok());
  EXPECT_FALSE(CheckRequirement(&m, Json{{"type", "assert-ref-snapshot-id"}, {"ref", "main"}, {"snapshot-id", 5}}).ok());
  EXPECT_TRUE(CheckRequirement(&m, Json{{"type", "assert-last-assigned-field-id"}, {"last-assigned-field-id", 5}}).ok());
  EXPECT_FALSE(CheckRequirement(&m, Json{{"type", "assert-default-spec-id"}, {"default-spec-id", 1}}).ok());
  EXPECT_EQ(CheckRequirement(&m, Json{{"type", "assert-nothing"}}).code(), StatusCode::kInvalidArgument);
}

TEST(TableMetadata, UpdatesApplyInOrderAndLogThePreviousFile) {
  const Json base = *NewTableMetadata(CreateRequest(), "l", "u-1", 1000);
  MetadataUpdater u(base);
  Json schema = base["schemas"][0];
  schema["fields"].push_back(Json{{"id", 6}, {"name", "at"}, {"type", "timestamptz"}, {"required", false}});
  ASSERT_TRUE(u.Apply(Json{{"action", "add-schema"}, {"schema", schema}}).ok());
  ASSERT_TRUE(u.Apply(Json{{"action", "set-current-schema"}, {"schema-id", -1}}).ok());
  ASSERT_TRUE(u.Apply(Json{{"action", "add-snapshot"},
                           {"snapshot", {{"snapshot-id", 7}, {"sequence-number", 1}, {"timestamp-ms", 1500},
                                         {"manifest-list", "l/m.avro"}, {"summary", {{"operation", "append"}}}}}}).ok());
  ASSERT_TRUE(u.Apply(Json{{"action", "set-snapshot-ref"}, {"ref-name", "main"}, {"type", "branch"}, {"snapshot-id", 7}}).ok());
  EXPECT_EQ(u.Apply(Json{{"action", "set-snapshot-ref"}, {"ref-name", "main"}, {"type", "branch"}, {"snapshot-id", 8}}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(u.Apply(Json{{"action", "add-encryption-key"}}).code(), StatusCode::kUnimplemented);
  auto after = u.Finish("l/metadata/00000-a.metadata.json", 1000, 2000);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ((*after)["current-schema-id"], 1);
  EXPECT_EQ((*after)["last-column-id"], 6);
  EXPECT_EQ((*after)["current-snapshot-id"], 7);
  EXPECT_EQ((*after)["last-sequence-number"], 1);
  EXPECT_EQ((*after)["snapshot-log"].size(), 1u);
  EXPECT_EQ((*after)["metadata-log"][0]["metadata-file"], "l/metadata/00000-a.metadata.json");
  EXPECT_EQ((*after)["last-updated-ms"], 2000);
  // A snapshot must come after the last sequence number.
  MetadataUpdater again(*after);
  EXPECT_EQ(again.Apply(Json{{"action", "add-snapshot"},
                             {"snapshot", {{"snapshot-id", 9}, {"sequence-number", 1}, {"timestamp-ms", 1},
                                           {"manifest-list", "x"}, {"summary", {{"operation", "append"}}}}}}).code(),
            StatusCode::kInvalidArgument);
}

TEST(TableMetadata, ACreateTransactionBuildsTheTableFromItsUpdates) {
  MetadataUpdater u(Json{{"format-version", 2}});
  const Json schema = CreateRequest()["schema"];
  for (const Json& update : {Json{{"action", "assign-uuid"}, {"uuid", "u-9"}},
                             Json{{"action", "add-schema"}, {"schema", schema}},
                             Json{{"action", "set-current-schema"}, {"schema-id", -1}},
                             Json{{"action", "add-spec"}, {"spec", {{"fields", Json::array()}}}},
                             Json{{"action", "set-default-spec"}, {"spec-id", -1}},
                             Json{{"action", "set-location"}, {"location", "file:///w/t"}}}) {
    ASSERT_TRUE(u.Apply(update).ok()) << update.dump();
  }
  auto m = u.Finish("", 0, 10);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)["table-uuid"], "u-9");
  EXPECT_EQ((*m)["last-partition-id"], 999);
  EXPECT_TRUE((*m)["metadata-log"].empty());
  MetadataUpdater bare(Json{{"format-version", 2}});
  ASSERT_TRUE(bare.Apply(Json{{"action", "set-properties"}, {"updates", {{"a", "b"}}}}).ok());
  EXPECT_EQ(bare.Finish("", 0, 1).status().code(), StatusCode::kInvalidArgument);
}

TEST(TableMetadata, MetadataFilesAreNumberedInOrder) {
  const std::string first = NextMetadataFile("file:///w/t", "");
  EXPECT_EQ(first.rfind("file:///w/t/metadata/00000-", 0), 0u) << first;
  EXPECT_EQ(NextMetadataFile("file:///w/t", first).rfind("file:///w/t/metadata/00001-", 0), 0u);
  EXPECT_EQ(NextMetadataFile("file:///w/t", "file:///w/t/metadata/v7.metadata.json")
                .rfind("file:///w/t/metadata/00008-", 0), 0u);
}

// A caller's JSON of the wrong shape is refused as InvalidArgument, never thrown: types nested
// wrongly or too deep, ids of the wrong type or beyond int32, a change whose parts are not
// objects with a kind (these threw nlohmann's type_error out of the request: a 500).
TEST(TableMetadata, JsonOfTheWrongShapeIsRefusedNotThrown) {
  const Json m = *NewTableMetadata(CreateRequest(), "file:///w/ext/events", "u-1", 1000);
  auto add_schema = [&](Json field_type) {
    MetadataUpdater updater(m);
    return updater.Apply(Json{{"action", "add-schema"},
                              {"schema", {{"type", "struct"}, {"fields", {{{"id", 9}, {"name", "y"}, {"type", field_type}}}}}}});
  };
  EXPECT_EQ(add_schema(Json{{"type", 7}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(add_schema(Json{{"type", "list"}, {"element-id", "10"}, {"element", "int"}}).code(),
            StatusCode::kInvalidArgument);
  Json deep = "int";
  for (int i = 0; i < 100; ++i) deep = Json{{"type", "list"}, {"element-id", 10 + i}, {"element", deep}};
  Status too_deep = add_schema(deep);
  EXPECT_EQ(too_deep.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(too_deep.message().find("nests deeper"), std::string::npos) << too_deep;
  EXPECT_TRUE(add_schema("string").ok());

  MetadataUpdater spec(m);
  EXPECT_EQ(spec.Apply(Json::parse(R"({"action": "add-spec", "spec": {"fields": [
      {"source-id": 1, "transform": "identity", "name": "x", "field-id": "1000"}]}})")).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(spec.Apply(Json::parse(R"({"action": "add-spec", "spec": {"fields": [
      {"source-id": 1, "transform": "identity", "name": "x", "field-id": 4294967296}]}})")).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(NewTableMetadata(Json{{"schema", CreateRequest()["schema"]}, {"partition-spec", 5}}, "l", "u", 1).status().code(),
            StatusCode::kInvalidArgument);

  EXPECT_EQ(rest::ReadTableChange(Json{{"updates", {7}}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(rest::ReadTableChange(Json{{"requirements", {{{"type", 1}}}}}).status().code(),
            StatusCode::kInvalidArgument);
  auto writes = rest::ReadTableChange(Json::parse(R"({"updates": [{"action": "add-snapshot"}]})"));
  ASSERT_TRUE(writes.ok()) << writes.status();
  EXPECT_TRUE(writes->OnlyWrites());
  auto creates = rest::ReadTableChange(Json::parse(R"({"requirements": [{"type": "assert-create"}]})"));
  ASSERT_TRUE(creates.ok()) << creates.status();
  EXPECT_TRUE(creates->Creates());
  EXPECT_FALSE(creates->OnlyWrites()) << "creating a table needs admin";
  EXPECT_EQ(rest::ReadTransaction(Json{{"table-changes", {5}}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(rest::ReadCreateTable(Json{{"name", "t"}, {"stage-create", "yes"}}).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mink::lake
