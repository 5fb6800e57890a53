#include "table/changelog.h"

#include <gtest/gtest.h>

#include <map>

namespace mink::table {
namespace {

TableDescriptor Make(std::vector<std::string> columns, std::vector<std::string> pk,
                     std::map<std::string, std::string> options = {}) {
  TableSpec spec;
  spec.columns = std::move(columns);
  spec.primary_key = std::move(pk);
  spec.options = std::move(options);
  auto d = MakeDescriptor(spec);
  EXPECT_TRUE(d.ok()) << d.status();
  return *d;
}

// Applies writes in order to a one-key-at-a-time state, returning the changelog as text.
class Table {
 public:
  explicit Table(TableDescriptor d) : d_(std::move(d)) {}
  std::string Write(const Row& row, bool is_delete = false, std::vector<bool> targets = {}) {
    auto merger = RowMerger::Make(d_, std::move(targets));
    if (!merger.ok()) return "error: " + merger.status().message();
    std::vector<ChangeRecord> changes;
    int64_t key = row[0].int_value();
    auto it = state_.find(key);
    std::optional<Row> old = it == state_.end() ? std::nullopt : std::optional<Row>(it->second);
    auto next = merger->Apply(old, row, is_delete, &changes);
    if (!next.ok()) return "error: " + next.status().message();
    if (*next) state_[key] = **next; else state_.erase(key);
    std::string out;
    for (const auto& c : changes) {
      if (!out.empty()) out += " ";
      out += std::string(ChangeTypeName(c.type)) + Text(c.row);
    }
    return out;
  }
  static std::string Text(const Row& row) {
    std::string out = "(";
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out += ",";
      const Value& v = row[i];
      switch (v.kind()) {
        case Value::Kind::kNull: out += "null"; break;
        case Value::Kind::kInt: out += std::to_string(v.int_value()); break;
        case Value::Kind::kBool: out += v.bool_value() ? "true" : "false"; break;
        case Value::Kind::kDouble: {
          char buf[64];
          std::snprintf(buf, sizeof(buf), "%.17g", v.double_value());
          out += buf;
          break;
        }
        case Value::Kind::kDecimal: out += std::to_string(static_cast<int64_t>(v.decimal_value())); break;
        case Value::Kind::kBytes: out += v.bytes(); break;
        case Value::Kind::kList: out += "[..]"; break;
      }
    }
    return out + ")";
  }
  size_t size() const { return state_.size(); }

 private:
  TableDescriptor d_;
  std::map<int64_t, Row> state_;
};

Row R(int64_t k, double v, const char* s) { return {Value::Int(k), Value::Double(v), Value::Bytes(s)}; }

TEST(Changelog, DefaultEngineInsertUpdateDelete) {
  Table t(Make({"k INT", "v DOUBLE", "s STRING"}, {"k"}));
  EXPECT_EQ(t.Write(R(1, 2.0, "apple")), "+I(1,2,apple)");
  EXPECT_EQ(t.Write(R(1, 4.0, "banana")), "-U(1,2,apple) +U(1,4,banana)");
  EXPECT_EQ(t.Write(R(1, 0, ""), true), "-D(1,4,banana)");
  EXPECT_EQ(t.size(), 0u);
}

TEST(Changelog, WritesInOneBatchSeeEachOther) {
  Table t(Make({"k INT", "v DOUBLE", "s STRING"}, {"k"}));
  std::string log = t.Write(R(1, 11, "v11"));
  log += " " + t.Write(R(2, 21, "v21"));
  log += " " + t.Write(R(2, 23, "v23"));
  EXPECT_EQ(log, "+I(1,11,v11) +I(2,21,v21) -U(2,21,v21) +U(2,23,v23)");
}

TEST(Changelog, IdenticalUpsertStillEmitsUpdate) {
  Table t(Make({"k INT", "v DOUBLE", "s STRING"}, {"k"}));
  t.Write(R(1, 1, "a"));
  EXPECT_EQ(t.Write(R(1, 1, "a")), "-U(1,1,a) +U(1,1,a)");
}

TEST(Changelog, DeletingAMissingKeyEmitsNothing) {
  Table t(Make({"k INT", "v DOUBLE", "s STRING"}, {"k"}));
  EXPECT_EQ(t.Write(R(9, 0, ""), true), "");
}

TEST(Changelog, FirstRowKeepsTheFirstAndIgnoresDeletes) {
  Table t(Make({"k INT", "v DOUBLE", "s STRING"}, {"k"}, {{"table.merge-engine", "first_row"}}));
  EXPECT_EQ(t.Write(R(1, 1, "first")), "+I(1,1,first)");
  EXPECT_EQ(t.Write(R(1, 2, "second")), "");
  EXPECT_EQ(t.Write(R(1, 0, ""), true), "");
  EXPECT_EQ(t.size(), 1u);
  EXPECT_NE(t.Write(R(1, 0, "x"), false, {true, false, true}).find("not supported"), std::string::npos);
}

TEST(Changelog, VersionedEngineFollowsTheVersionColumn) {
  Table t(Make({"k INT", "s STRING", "ver BIGINT"}, {"k"},
               {{"table.merge-engine", "versioned"},
                {"table.merge-engine.versioned.ver-column", "ver"}}));
  auto row = [](const char* s, std::optional<int64_t> ver) {
    return Row{Value::Int(1), Value::Bytes(s), ver ? Value::Int(*ver) : Value()};
  };
  EXPECT_EQ(t.Write(row("v1", 1000)), "+I(1,v1,1000)");
  EXPECT_EQ(t.Write(row("v2", 999)), "");
  EXPECT_EQ(t.Write(row("v3", 2000)), "-U(1,v1,1000) +U(1,v3,2000)");
  EXPECT_EQ(t.Write(row("v4", std::nullopt)), "");
  EXPECT_EQ(t.Write(row("tie", 2000)), "-U(1,v3,2000) +U(1,tie,2000)");
  Table n(Make({"k INT", "s STRING", "ver BIGINT"}, {"k"},
               {{"table.merge-engine", "versioned"},
                {"table.merge-engine.versioned.ver-column", "ver"}}));
  n.Write(row("a", std::nullopt));
  EXPECT_EQ(n.Write(row("b", std::nullopt)), "-U(1,a,null) +U(1,b,null)");  // null ties null
}

TEST(Changelog, AggregationFunctions) {
  Table t(Make({"k INT", "total BIGINT", "hi DOUBLE", "p DOUBLE", "ok BOOLEAN", "last STRING"},
               {"k"},
               {{"table.merge-engine", "aggregation"},
                {"fields.total.agg", "sum"},
                {"fields.hi.agg", "max"},
                {"fields.p.agg", "product"},
                {"fields.ok.agg", "bool_and"}}));
  auto row = [](int64_t total, double hi, double p, bool ok, const char* last) {
    return Row{Value::Int(1), Value::Int(total), Value::Double(hi), Value::Double(p), Value::Bool(ok),
               last ? Value::Bytes(last) : Value()};
  };
  EXPECT_EQ(t.Write(row(15, 23.0, 0.9, true, "a")), "+I(1,15,23,0.90000000000000002,true,a)");
  EXPECT_EQ(t.Write(row(20, 30.2, 0.8, true, nullptr)),
            "-U(1,15,23,0.90000000000000002,true,a) +U(1,35,30.199999999999999,0.72000000000000008,true,a)");
  EXPECT_EQ(t.Write(row(0, 1.0, 1.0, false, "b")),
            "-U(1,35,30.199999999999999,0.72000000000000008,true,a) "
            "+U(1,35,30.199999999999999,0.72000000000000008,false,b)");
}

// first_value keeps the key's first value even when it was null; first_value_ignore_nulls takes
// the first non-null one. listagg joins with its column's delimiter, "," by default.
TEST(Changelog, FirstValueKeepsANullAndListaggTakesItsDelimiter) {
  Table t(Make({"k INT", "first STRING", "first_nn STRING", "tags STRING", "plain STRING"}, {"k"},
               {{"table.merge-engine", "aggregation"},
                {"fields.first.agg", "first_value"},
                {"fields.first_nn.agg", "first_value_ignore_nulls"},
                {"fields.tags.agg", "listagg"},
                {"fields.tags.listagg.delimiter", " | "},
                {"fields.plain.agg", "string_agg"}}));
  auto row = [](const char* first, const char* first_nn, const char* tags) {
    auto v = [](const char* s) { return s ? Value::Bytes(s) : Value(); };
    return Row{Value::Int(1), v(first), v(first_nn), v(tags), v(tags)};
  };
  EXPECT_EQ(t.Write(row(nullptr, nullptr, "a")), "+I(1,null,null,a,a)");
  EXPECT_EQ(t.Write(row("x", "x", "b")), "-U(1,null,null,a,a) +U(1,null,x,a | b,a,b)");
  EXPECT_EQ(t.Write(row("y", "y", nullptr)), "-U(1,null,x,a | b,a,b) +U(1,null,x,a | b,a,b)");

  auto bad = MakeDescriptor(TableSpec{{"k INT", "s STRING"}, {"k"}, {}, {}, 1,
                                      {{"table.merge-engine", "aggregation"},
                                       {"fields.s.agg", "max"},
                                       {"fields.s.listagg-delimiter", ";"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("needs fields.s.agg=listagg"), std::string::npos)
      << bad.status();
}

TEST(Changelog, PartialUpdateKeepsOtherColumns) {
  Table t(Make({"k INT", "v1 DOUBLE", "v2 STRING"}, {"k"}));
  Row first = {Value::Int(1), Value::Double(2.0), Value()};
  EXPECT_EQ(t.Write(first, false, {true, true, false}), "+I(1,2,null)");
  Row second = {Value::Int(1), Value(), Value::Bytes("t1")};
  EXPECT_EQ(t.Write(second, false, {true, false, true}), "-U(1,2,null) +U(1,2,t1)");
  // Naming only the key changes nothing.
  EXPECT_EQ(t.Write({Value::Int(1), Value(), Value()}, false, {true, false, false}), "");
  // The key must be among the targets.
  EXPECT_NE(t.Write(second, false, {false, false, true}).find("primary key column 'k'"),
            std::string::npos);
  // A partial delete clears its targets, and deletes the row once nothing else is left.
  EXPECT_EQ(t.Write({Value::Int(1), Value(), Value()}, true, {true, true, false}),
            "-U(1,2,t1) +U(1,null,t1)");
  EXPECT_EQ(t.Write({Value::Int(1), Value(), Value()}, true, {true, false, true}), "-D(1,null,t1)");
}

TEST(Changelog, WalImageHasNoUpdateBefore) {
  Table t(Make({"k INT", "v DOUBLE", "s STRING"}, {"k"}, {{"table.changelog.image", "wal"}}));
  EXPECT_EQ(t.Write(R(1, 1, "a")), "+U(1,1,a)");
  EXPECT_EQ(t.Write(R(1, 2, "b")), "+U(1,2,b)");
  EXPECT_EQ(t.Write(R(1, 0, ""), true), "-D(1,2,b)");
}

// table.delete.behavior: disable refuses a delete and leaves the key as it was; ignore drops it.
TEST(Changelog, DeleteBehaviorDisableRefusesAndIgnoreDropsDeletes) {
  Table disabled(Make({"k INT", "v DOUBLE", "s STRING"}, {"k"}, {{"table.delete.behavior", "disable"}}));
  EXPECT_EQ(disabled.Write(R(1, 1, "a")), "+I(1,1,a)");
  EXPECT_EQ(disabled.Write(R(1, 0, ""), true),
            "error: deletes are disabled on this table (table.delete.behavior)");
  EXPECT_EQ(disabled.size(), 1u);
  EXPECT_EQ(disabled.Write(R(1, 2, "b")), "-U(1,1,a) +U(1,2,b)");  // the row was still there
  Table ignored(Make({"k INT", "v DOUBLE", "s STRING"}, {"k"}, {{"table.delete.behavior", "ignore"}}));
  EXPECT_EQ(ignored.Write(R(1, 1, "a")), "+I(1,1,a)");
  EXPECT_EQ(ignored.Write(R(1, 0, ""), true), "");
  EXPECT_EQ(ignored.size(), 1u);
}

}  // namespace
}  // namespace mink::table
