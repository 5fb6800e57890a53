#include "table/descriptor.h"

#include <gtest/gtest.h>

#include <map>

namespace mink::table {
namespace {

TEST(Descriptor, ValidationErrorsNameTheProblem) {
  auto error = [](TableSpec spec) {
    auto d = MakeDescriptor(spec);
    EXPECT_FALSE(d.ok());
    return d.status().message();
  };
  TableSpec base;
  base.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "amount DECIMAL(10,2)"};
  TableSpec s = base;
  s.primary_key = {"id", "nope"};
  EXPECT_NE(error(s).find("primary key column 'nope'"), std::string::npos);
  s = base;
  s.primary_key = {"id"};
  s.partition_by = {"region"};
  EXPECT_NE(error(s).find("partition column 'region' must be part of the primary key"),
            std::string::npos);
  s = base;
  s.primary_key = {"id", "region"};
  s.partition_by = {"region"};
  s.bucket_key = {"region"};
  EXPECT_NE(error(s).find("must not be a partition column"), std::string::npos);
  s = base;
  s.columns.push_back("__offset BIGINT");
  EXPECT_NE(error(s).find("reserved"), std::string::npos);
  s = base;
  s.options = {{"table.merge-engine", "first_row"}};
  EXPECT_NE(error(s).find("primary-key table"), std::string::npos);
  s = base;
  s.options = {{"no.such", "x"}};
  EXPECT_NE(error(s).find("unknown table option 'no.such'"), std::string::npos);
}

TEST(Descriptor, QuickStartTablesAndJsonRoundTrip) {
  TableSpec orders;
  orders.columns = {"id BIGINT NOT NULL", "region STRING NOT NULL", "amount DECIMAL(10,2)"};
  orders.primary_key = {"id", "region"};
  orders.partition_by = {"region"};
  orders.bucket_count = 2;
  auto d = MakeDescriptor(orders);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->bucket_keys, std::vector<std::string>{"id"});
  EXPECT_EQ(d->bucket_count, 2);
  auto back = TableDescriptor::FromJson(d->ToJson());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->ToJson(), d->ToJson());
  TableSpec events;
  events.columns = {"id BIGINT NOT NULL", "note STRING"};
  events.bucket_key = {"id"};
  auto e = MakeDescriptor(events);
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->has_primary_key());
  EXPECT_EQ(e->bucket_count, 1);
}

TEST(Descriptor, DeleteBehaviorOptions) {
  auto make = [](std::map<std::string, std::string> options, bool pk = true) {
    TableSpec spec;
    spec.columns = {"k INT NOT NULL", "v INT"};
    if (pk) spec.primary_key = {"k"};
    spec.options = std::move(options);
    return MakeDescriptor(spec);
  };
  EXPECT_EQ(make({})->delete_behavior, DeleteBehavior::kAllow);
  EXPECT_EQ(make({{"table.delete.behavior", "disable"}})->delete_behavior, DeleteBehavior::kDisable);
  EXPECT_EQ(make({{"table.delete.behavior", "IGNORE"}})->delete_behavior, DeleteBehavior::kIgnore);
  // first_row and versioned ignore deletes, and may not allow them.
  EXPECT_EQ(make({{"table.merge-engine", "first_row"}})->delete_behavior, DeleteBehavior::kIgnore);
  auto allowed = make({{"table.merge-engine", "first_row"}, {"table.delete.behavior", "allow"}});
  ASSERT_FALSE(allowed.ok());
  EXPECT_NE(allowed.status().message().find("first_row or versioned"), std::string::npos);
  auto bad = make({{"table.delete.behavior", "sometimes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("allow, ignore or disable"), std::string::npos);
  auto log = make({{"table.delete.behavior", "disable"}}, false);
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("needs a primary key"), std::string::npos);
}

}  // namespace
}  // namespace mink::table
