// The auto-increment column (Fluss's auto-increment.fields): the table fills it for each new key
// with a value unique in the table, from ranges each bucket takes from the metadata log; an
// existing key keeps its value; writers cannot name the column; values are not reused after a
// restart.

#include <gtest/gtest.h>

#include <set>

#include "table_test_node.h"

namespace mink::table {
namespace {

using testing::TestNode;

class AutoIncrementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    meta_url_ = testing::TempMetaUrl("autoinc");
    objects_ = std::make_shared<object_store::MemoryStore>();
    Restart();
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
    // A dictionary: name -> a dense id, over two buckets, ranges of 10 ids.
    TableSpec spec;
    spec.columns = {"name STRING NOT NULL", "uid BIGINT NOT NULL", "note STRING"};
    spec.primary_key = {"name"};
    spec.bucket_count = 2;
    spec.options = {{"auto-increment.fields", "uid"}, {"table.auto-increment.cache-size", "10"}};
    auto created = node_->tables->CreateTable("shop.dict", spec);
    ASSERT_TRUE(created.ok()) << created.status();
  }
  void Restart() {
    node_.reset();
    node_ = TestNode::Start(meta_url_, objects_);
    ASSERT_NE(node_, nullptr);
  }
  Status Write(const std::vector<std::string>& names, const std::string& note,
               std::vector<std::string> columns = {}) {
    std::vector<Row> rows;
    for (const auto& n : names) rows.push_back({Value::Bytes(n), Value::Bytes(note)});
    WriteRequest w{"shop.dict"};
    w.columns = std::move(columns);
    return node_->tables
        ->Write(w, {testing::BatchOf({"name STRING NOT NULL", "note STRING"}, rows)})
        .status();
  }
  // name -> uid of the snapshot.
  std::map<std::string, int64_t> Ids() {
    ReadRequest r{"shop.dict"};
    r.mode = ReadMode::kSnapshot;
    r.columns = {"name", "uid"};
    std::map<std::string, int64_t> ids;
    for (const auto& line : testing::ReadLines(*node_->tables, r)) {
      const size_t comma = line.find(',');
      ids[line.substr(0, comma)] = std::stoll(line.substr(comma + 1));
    }
    return ids;
  }

  std::string meta_url_;
  std::shared_ptr<object_store::MemoryStore> objects_;
  std::unique_ptr<TestNode> node_;
};

TEST_F(AutoIncrementTest, NewKeysGetUniqueIdsFromOneAndExistingKeysKeepTheirs) {
  std::vector<std::string> names;
  for (int i = 0; i < 25; ++i) names.push_back("w" + std::to_string(i));
  ASSERT_TRUE(Write(names, "first").ok());
  auto ids = Ids();
  ASSERT_EQ(ids.size(), 25u);
  std::set<int64_t> distinct;
  for (const auto& [name, id] : ids) distinct.insert(id);
  EXPECT_EQ(distinct.size(), 25u) << "every key has its own id";
  EXPECT_EQ(*distinct.begin(), 1) << "ids start at 1";
  // Each bucket hands out ranges of 10: the 25 keys used at most four ranges.
  EXPECT_LE(*distinct.rbegin(), 40);

  // Updates (whole rows and partial ones) keep the id; a partial insert gets a new one.
  ASSERT_TRUE(Write({"w3", "w7"}, "second").ok());
  ASSERT_TRUE(Write({"w4", "fresh"}, "third", {"name", "note"}).ok());
  auto after = Ids();
  for (const char* kept : {"w3", "w7", "w4"}) EXPECT_EQ(after[kept], ids[kept]) << kept;
  ASSERT_TRUE(after.count("fresh"));
  EXPECT_EQ(distinct.count(after["fresh"]), 0u);

  // A deleted key written again is a new key: a new id.
  WriteRequest del{"shop.dict", WriteMode::kDelete};
  ASSERT_TRUE(node_->tables
                  ->Write(del, {testing::BatchOf({"name STRING NOT NULL"}, {{Value::Bytes("w0")}})})
                  .ok());
  ASSERT_TRUE(Write({"w0"}, "again").ok());
  EXPECT_NE(Ids()["w0"], ids["w0"]);

  // A restart loses the rest of each bucket's range, never reuses a value.
  int64_t highest = 0;
  for (const auto& [name, id] : Ids()) highest = std::max(highest, id);
  Restart();
  ASSERT_TRUE(Write({"after-restart-1", "after-restart-2"}, "x").ok());
  auto restarted = Ids();
  EXPECT_GT(restarted["after-restart-1"], highest);
  EXPECT_GT(restarted["after-restart-2"], highest);
  std::set<int64_t> all;
  for (const auto& [name, id] : restarted) all.insert(id);
  EXPECT_EQ(all.size(), restarted.size());
}

TEST_F(AutoIncrementTest, AWriteThatNamesTheColumnIsRefusedAndCreationIsChecked) {
  WriteRequest w{"shop.dict"};
  auto refused = node_->tables->Write(
      w, {testing::BatchOf({"name STRING NOT NULL", "uid BIGINT"},
                           {{Value::Bytes("x"), Value::Int(99)}})});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "column 'uid' is the auto-increment column of shop.dict: the table fills it, a write "
            "cannot name it");
  EXPECT_TRUE(Ids().empty()) << "nothing was written";

  auto error = [](std::vector<std::string> columns, std::vector<std::string> pk, std::string col) {
    TableSpec spec;
    spec.columns = std::move(columns);
    spec.primary_key = std::move(pk);
    spec.options = {{"auto-increment.fields", col}};
    auto d = MakeDescriptor(spec);
    return d.ok() ? std::string("ok") : d.status().message();
  };
  EXPECT_EQ(error({"id BIGINT NOT NULL", "n BIGINT"}, {}, "n"),
            "an auto-increment column needs a primary-key table");
  EXPECT_EQ(error({"id BIGINT NOT NULL", "n STRING"}, {"id"}, "n"),
            "auto-increment column 'n' must be INT or BIGINT");
  EXPECT_EQ(error({"id BIGINT NOT NULL", "n BIGINT"}, {"id"}, "id"),
            "auto-increment column 'id' cannot be part of the primary, partition or bucket key");
  EXPECT_EQ(error({"id BIGINT NOT NULL", "n BIGINT", "m INT"}, {"id"}, "n,m"),
            "a table has at most one auto-increment column, not 'n,m'");
  EXPECT_EQ(error({"id BIGINT NOT NULL", "n BIGINT"}, {"id"}, "x"),
            "auto-increment column 'x' is not a column of the table");
  EXPECT_EQ(error({"id BIGINT NOT NULL", "n INT"}, {"id"}, "n"), "ok");
}

}  // namespace
}  // namespace mink::table
