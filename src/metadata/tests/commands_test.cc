// A command decoded from its stored body equals the command that was encoded: the appending
// node applies the command it built while every other node applies the decoded one, so a field
// lost on the way would make their states diverge.
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "metadata/commands.h"

namespace mink::metadata {
namespace {

ObjectEntry SampleObject() {
  ObjectEntry o;
  o.key = "wal/n3/e7/000000000000002a.obj";
  o.bucket_id = -2;
  o.size = (uint64_t{1} << 40) + 3;
  o.segments.push_back(SegmentEntry{std::numeric_limits<uint64_t>::max() - 1, 9, 100, 164,
                                    4096, 65600, 1'765'000'000'123});
  o.segments.push_back(SegmentEntry{5, 1, 0, 1, 0, 77, -1});
  o.segments.push_back(SegmentEntry{5, 1, 1, 3, 77, 80, 1'765'000'000'200, 1'765'000'000'150});
  o.segments.push_back(SegmentEntry{5, 1, 3, 4, 157, 80, 1'765'000'000'300,
                                    std::numeric_limits<int64_t>::min()});
  return o;
}

std::vector<Command> OneOfEachKind() {
  ReplaceSegments replace;
  replace.stream_id = 12;
  replace.start_offset = 10;
  replace.end_offset = 20;
  replace.replaced_keys = {"a", "b/\"quoted\"\\", "ü"};
  replace.object = SampleObject();
  CreateTable table;
  table.database = "shop";
  table.name = "orders";
  table.table_id = 44;
  table.descriptor = R"({"columns":[{"name":"id","type":"INT"}]})";
  table.bucket_count = 16;
  table.partitioned = true;
  table.first_stream_id = 900;
  table.owner_node = 2;
  table.owner_node_epoch = 31;
  return {
      RegisterNode{3, 7},
      CreateStream{17, "shop.orders/p1/b0"},
      OpenStreams{3, 7, {StreamEpoch{17, 2}, StreamEpoch{18, 5}}},
      CommitObjects{3, 7, {SampleObject(), SampleObject()}},
      replace,
      TrimStream{17, 128},
      DeleteStream{17},
      ForgetObjects{{"x", "y"}},
      CreateDatabase{"kafka"},
      DropDatabase{"shop", true},
      table,
      DropTable{"shop", "orders"},
      CreatePartition{44, "2026-12-03", 3, 950, 2, 31},
      AlterTable{44, R"({"columns":[]})"},
      AllocateWriterId{1234567890123},
      CommitKvSnapshot{17, "kv/17/000001.snap", -1, 5555, 640},
      ElectCoordinator{3, 7, 12},
      AssignStreams{3, 12, {StreamAssignment{17, 2}, StreamAssignment{18, 3, true}}},
      ReleaseStreams{2, 4, {17, 18}},
      LeaveCluster{2, 4},
      AllocateAutoIncrement{44, 1, 100000},
      CommitLakeSnapshot{44, 0, "uuid-1", "file:///w/shop/bills",
                         LakeSnapshot{77, 0, 1, 1700000000000, "file:///w/m/snap-77.avro",
                                      {{"operation", "append"}}, 0},
                         "file:///w/m/v1.metadata.json",
                         {LakeFile{"file:///w/d/a.parquet", 0, 1, 77, 17, 3, 1234}},
                         {},
                         {LakeManifest{"file:///w/m/m1.avro", 999, 0, 1, 1, 77, 1, 3}},
                         {},
                         {{17, 3}}},
      CreateLakeNamespace{{"ext", "raw"}, {{"owner", "ana"}}, {"k-1", 200, "{}"}},
      DropLakeNamespace{{"ext"}, {}},
      UpdateLakeNamespace{{"shop"}, {"a"}, {{"b", "c"}}, {"k-2", 200, "{\"updated\":[\"b\"]}"}},
      CommitLakeCatalog{{LakeTableMove{{"ext"}, "t", "", "file:///w/ext/t/metadata/00000-u.metadata.json"},
                         LakeTableMove{{"ext"}, "u", "file:///w/a.json", ""}},
                        {"k-3", 200, "{}"}},
      RenameLakeTable{{"ext"}, "t", {"ext", "raw"}, "t2", {}},
      CreateContinuousObject{"totals", "view", "CREATE MATERIALIZED VIEW totals AS SELECT 1", "{\"x\":1}",
                             {"ticks"}, true},
      DropContinuousObject{"totals", "view"},
      CommitContinuousProgress{"totals", 3, "{\"positions\":{}}"},
      CreateUser{"alice", {ScramCredential{"SCRAM-SHA-256", "c2FsdA==", 4096, "c3RvcmVk", "c2VydmVy"}}, true},
      DeleteUser{"alice"},
      SetClusterSecret{"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"},
      GrantAcls{{AclEntry{"alice", "table:kafka.orders", "write"}, AclEntry{"*", "cluster", "describe"}}},
      RevokeAcls{{AclEntry{"alice", "table:kafka.orders", "write"}}},
  };
}

TEST(Commands, EveryKindDecodesToTheCommandThatWasEncoded) {
  const std::vector<Command> commands = OneOfEachKind();
  EXPECT_EQ(commands.size(), std::variant_size_v<Command>);
  for (const Command& command : commands) {
    const std::string kind = KindOf(command);
    auto decoded = DecodeCommand(kind, EncodeBody(command));
    ASSERT_TRUE(decoded.ok()) << kind << ": " << decoded.status().ToString();
    EXPECT_TRUE(*decoded == command) << kind << " changed on the way: " << EncodeBody(command)
                                     << " came back as " << EncodeBody(*decoded);
  }
}

// A segment without a record-time bound leaves the field out; a command written before the
// field existed decodes with the bound unknown.
TEST(Commands, ASegmentsRecordTimeBoundIsOptional) {
  CommitObjects commit{1, 1, {SampleObject()}};
  const std::string body = EncodeBody(Command(commit));
  EXPECT_EQ(nlohmann::json::parse(body)["objects"][0]["segments"][0].count("max_rec_ts"), 0u);
  EXPECT_EQ(nlohmann::json::parse(body)["objects"][0]["segments"][2]["max_rec_ts"],
            1'765'000'000'150);
  auto old = DecodeCommand(
      "objects.commit",
      R"({"node":1,"node_epoch":1,"objects":[{"bucket":-3,"key":"wal/n1/e1/000000000000",)"
      R"("segments":[{"end":2,"epoch":1,"len":61,"max_ts":1700000002000,"pos":0,"start":0,)"
      R"("stream":1}],"size":145}]})");
  ASSERT_TRUE(old.ok()) << old.status();
  const auto& segment = std::get<CommitObjects>(*old).objects[0].segments[0];
  EXPECT_EQ(segment.max_timestamp_ms, 1700000002000);
  EXPECT_EQ(segment.max_record_time_ms, kUnknownRecordTime);
}

TEST(Commands, ABodyOfAnotherKindIsRefused) {
  auto decoded = DecodeCommand("stream.trim", EncodeBody(Command(CreateDatabase{"kafka"})));
  EXPECT_FALSE(decoded.ok());
  EXPECT_FALSE(DecodeCommand("no.such.kind", "{}").ok());
  EXPECT_FALSE(DecodeCommand("stream.trim", "{not json").ok());
}

}  // namespace
}  // namespace mink::metadata
