// Continuous SQL's statements against the metadata log: the seed's two examples become catalog
// objects, SHOW and DESCRIBE read them, DROP follows what reads what, and every refusal names
// what was wrong before anything is written.
#include "stream/catalog.h"

#include <gtest/gtest.h>

#include "stream/tests/seed_sql.h"
#include "table/tests/table_test_node.h"

namespace mink::stream {
namespace {

class CatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    node_ = table::testing::TestNode::Start(table::testing::TempMetaUrl("stream-catalog"),
                                            std::make_shared<object_store::MemoryStore>(), {});
    ASSERT_TRUE(node_);
    auto db = sql::Database::Open();
    ASSERT_TRUE(db.ok());
    db_ = std::move(*db);
    catalog_ = std::make_unique<Catalog>(node_->meta.get(), node_->tables.get(), db_.get());
    ASSERT_TRUE(node_->tables->CreateDatabase("kafka").ok());
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
    table::TableSpec spec;
    spec.columns = {"id BIGINT NOT NULL", "v BIGINT"};
    for (const char* t : {"kafka.trades", "kafka.minute-volume", "shop.orders"}) {
      ASSERT_TRUE(node_->tables->CreateTable(t, spec).ok()) << t;
    }
    table::TableSpec timed;
    timed.columns = {"id BIGINT NOT NULL", "v BIGINT", "ts TIMESTAMP(6)"};
    ASSERT_TRUE(node_->tables->CreateTable("shop.timed", timed).ok());
  }
  // Runs every statement of `sql`; the first failure's message, or "" when all succeed.
  std::string Run(const std::string& sql, std::vector<StatementResult>* results = nullptr) {
    auto statements = ParseStatements(sql);
    if (!statements.ok()) return statements.status().message();
    for (const auto& s : *statements) {
      auto r = catalog_->Execute(s, 1'000'000);
      if (!r.ok()) return r.status().message();
      if (results != nullptr) results->push_back(*r);
    }
    return "";
  }
  size_t Objects() {
    return node_->meta->Read([](const metadata::State& s) { return s.continuous().size(); });
  }

  std::unique_ptr<table::testing::TestNode> node_;
  std::unique_ptr<sql::Database> db_;
  std::unique_ptr<Catalog> catalog_;
};

TEST_F(CatalogTest, TheSeedsQuickStartAndMinuteVolume) {
  std::vector<StatementResult> results;
  ASSERT_EQ(Run(testing::SeedSql("quick_start.sql") + testing::SeedSql("minute_volume.sql"), &results),
            "");
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[1].result_type, "CREATE MATERIALIZED VIEW");
  EXPECT_EQ(results[1].object_name, "tick_totals");
  EXPECT_EQ(Objects(), 5u);
  const auto view = node_->meta->Read([](const metadata::State& s) { return s.continuous().at("tick_totals"); });
  EXPECT_EQ(view.kind, "view");
  EXPECT_EQ(view.inputs, std::vector<std::string>{"ticks"});
  EXPECT_NE(view.definition.find(R"("columns":["rows_seen","last_seq"])"), std::string::npos) << view.definition;
  const auto trades = node_->meta->Read([](const metadata::State& s) { return s.continuous().at("trades"); });
  EXPECT_NE(trades.definition.find(R"("watermark":{"column":"ts","expression":"ts - INTERVAL '5' SECOND"})"),
            std::string::npos)
      << trades.definition;

  results.clear();
  ASSERT_EQ(Run("SHOW SOURCES; DESCRIBE minute_volume_out", &results), "");
  ASSERT_EQ(results[0].rows.size(), 2u);
  EXPECT_EQ(results[0].rows[0][0].second, "ticks");
  EXPECT_EQ(results[0].rows[1][0].second, "trades");
  EXPECT_EQ(results[1].rows[0][1], (std::pair<std::string, std::string>{"kind", "sink"}));
  EXPECT_EQ(results[1].rows[0][2], (std::pair<std::string, std::string>{"reads", "minute_volume"}));

  // Nothing is dropped while another object reads it.
  EXPECT_EQ(Run("DROP SOURCE ticks"), "view tick_totals reads ticks: drop it first");
  EXPECT_EQ(Run("DROP STREAM tick_totals"), "tick_totals is a view, not a stream");
  EXPECT_EQ(Run("DROP MATERIALIZED VIEW tick_totals; DROP SOURCE ticks; DROP SOURCE IF EXISTS ticks"), "");
  EXPECT_EQ(Objects(), 3u);
}

// EXPLAIN of a stream or view: its plan (what it reads, its output table, its window, keys,
// aggregates, per-batch query), and nothing written.
TEST_F(CatalogTest, ExplainShowsThePlanAndWritesNothing) {
  ASSERT_EQ(Run("CREATE SOURCE o (WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) FROM MINK ('table' = 'shop.timed')"), "");
  const size_t before = Objects();
  std::vector<StatementResult> results;
  ASSERT_EQ(Run("EXPLAIN CREATE STREAM s AS SELECT id, tumble(ts, INTERVAL '1' MINUTE) AS m, SUM(v) AS total, "
                "COUNT(*) AS n FROM o GROUP BY id, tumble(ts, INTERVAL '1' MINUTE) EMIT ON WINDOW CLOSE",
                &results),
            "");
  ASSERT_EQ(results.size(), 1u);
  std::map<std::string, std::string> plan;
  for (const auto& row : results[0].rows) plan[row[0].second] = row[1].second;
  EXPECT_EQ(plan["pipeline"], "stream s reads o");
  EXPECT_EQ(plan["output table"], "continuous.s (log): id BIGINT, m TIMESTAMP(0), total BIGINT, n BIGINT");
  EXPECT_EQ(plan["window"], "tumble size 60000000 us, closed by the watermark, EMIT ON WINDOW CLOSE");
  EXPECT_EQ(plan["group keys"], "id");
  EXPECT_EQ(plan["aggregates"], "SUM(v), COUNT(*) (exact under retractions)");
  EXPECT_NE(plan["per-batch query (DuckDB)"].find("epoch_us(ts) AS __time"), std::string::npos)
      << plan["per-batch query (DuckDB)"];
  EXPECT_EQ(Objects(), before) << "EXPLAIN creates nothing";
  EXPECT_FALSE(node_->tables->DescribeTable("continuous.s").ok());
  EXPECT_EQ(Run("EXPLAIN CREATE SOURCE x FROM GENERATOR ()"),
            "EXPLAIN of a streaming statement explains CREATE STREAM or CREATE MATERIALIZED VIEW");
}

TEST_F(CatalogTest, RefusalsNameWhatWasWrongAndWriteNothing) {
  EXPECT_EQ(Run("CREATE SOURCE t FROM KAFKA ('topic' = 'elsewhere')"),
            "source t: topic elsewhere is not a topic of this Mink cluster");
  EXPECT_EQ(Run("CREATE SOURCE g FROM GENERATOR ('rows.per.second' = 'fast')"),
            "GENERATOR's rows.per.second is 'fast', not a number in 1-10000000");
  EXPECT_EQ(Run("CREATE SOURCE g (a BIGINT) FROM GENERATOR ()"),
            "source g: a GENERATOR source's columns are its own (seq, ts, value)");
  EXPECT_EQ(Run("CREATE SOURCE o FROM MINK ('table' = 'shop.nope')"), "source o: table shop.nope does not exist");
  EXPECT_EQ(Run("CREATE SOURCE o (a BIGINT)"), "source o: a source needs a connector (FROM GENERATOR, MINK or KAFKA)");
  EXPECT_EQ(Run("CREATE SOURCE o FROM MINK ('table' = 'shop.orders') FORMAT AVRO"),
            "source o: FORMAT AVRO is not supported (JSON is)");
  EXPECT_EQ(Run("CREATE MATERIALIZED VIEW v AS SELECT COUNT(*) FROM nothing"),
            "view v reads nothing, which is not a source or stream");
  ASSERT_EQ(Run("CREATE SOURCE o FROM MINK ('table' = 'shop.orders')"), "");
  EXPECT_EQ(Run("CREATE STREAM s AS SELECT id, median(v) FROM o GROUP BY id"),
            "stream s: aggregate median is not supported in a continuous query (COUNT, SUM, MIN, MAX, AVG, COUNT "
            "DISTINCT)");
  EXPECT_EQ(Run("CREATE STREAM s AS SELECT id, SUM(v) FROM o GROUP BY id EMIT ON WINDOW CLOSE"),
            "stream s: EMIT ON WINDOW CLOSE needs a window in GROUP BY");
  EXPECT_EQ(Run("CREATE SINK k FROM o INTO GENERATOR ()"), "sink k: GENERATOR is a source only");
  EXPECT_EQ(Run("CREATE SOURCE t FROM KAFKA ('topic' = 'trades', 'startup.mode' = 'group-offsets')"),
            "source t: startup.mode 'group-offsets' is not supported (earliest or latest: the pipeline keeps its own "
            "positions)");
  EXPECT_EQ(Run("CREATE SINK k FROM nothing INTO MINK ('table' = 'shop.orders')"),
            "sink k reads nothing, which does not exist");
  EXPECT_EQ(Run("CREATE SINK k FROM o INTO MINK ('table' = 'shop.orders')"),
            "sink k reads source o: a sink sends on a stream or view");
  EXPECT_EQ(Run("CREATE STREAM w AS SELECT id, tumble(v, INTERVAL '1' MINUTE) AS m, COUNT(*) AS n FROM o "
                "GROUP BY id, tumble(v, INTERVAL '1' MINUTE)"),
            "stream w: a window closes when the watermark passes, and o declares none (WATERMARK FOR column AS ...)");
  EXPECT_EQ(Run("CREATE MATERIALIZED VIEW w AS SELECT SUM(v) AS total FROM o GROUP BY id"),
            "view w: select GROUP BY key id: it is part of the primary key of the output table");
  EXPECT_EQ(Objects(), 1u) << "only o was created";

  // IF NOT EXISTS leaves an object as it is; OR REPLACE replaces one of the same kind.
  EXPECT_EQ(Run("CREATE SOURCE IF NOT EXISTS o FROM GENERATOR ()"), "");
  EXPECT_EQ(node_->meta->Read([](const metadata::State& s) { return s.continuous().at("o").statement; }),
            "CREATE SOURCE o FROM MINK ('table' = 'shop.orders')");
  EXPECT_EQ(Run("CREATE SOURCE o FROM GENERATOR ()"), "source o already exists");
  EXPECT_EQ(Run("CREATE OR REPLACE SOURCE o FROM GENERATOR ()"), "");
  EXPECT_EQ(Run("SUBSCRIBE o"),
            "SUBSCRIBE o follows its changes over a stream: with mink-query exec, or a WebSocket on the HTTP API's "
            "/ws/o");
}

}  // namespace
}  // namespace mink::stream
