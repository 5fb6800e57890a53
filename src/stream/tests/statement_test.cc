// The envelope of continuous SQL statements: the seed's statements verbatim, the other forms,
// and errors that name the line and what was expected.
#include "stream/statement.h"

#include <gtest/gtest.h>

#include "stream/tests/seed_sql.h"

namespace mink::stream {
namespace {

TEST(Statement, TheSeedsMinuteVolumeExample) {
  auto parsed = ParseStatements(testing::SeedSql("minute_volume.sql"));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 3u);
  const Statement& source = (*parsed)[0];
  EXPECT_EQ(source.kind, StatementKind::kCreateSource);
  EXPECT_EQ(source.name, "trades");
  EXPECT_EQ(source.columns, (std::vector<ColumnDef>{{"symbol", "VARCHAR", true},
                                                    {"price", "DOUBLE", true},
                                                    {"volume", "BIGINT", true},
                                                    {"ts", "TIMESTAMP", true}}));
  ASSERT_TRUE(source.watermark.has_value());
  EXPECT_EQ(*source.watermark, (WatermarkDef{"ts", "ts - INTERVAL '5' SECOND"}));
  EXPECT_EQ(source.connector, "KAFKA");
  EXPECT_EQ(source.options, (std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", "kafka:9092"},
                                                                             {"topic", "trades"},
                                                                             {"group.id", "minute-volume"},
                                                                             {"startup.mode", "earliest"}}));
  EXPECT_EQ(source.format, "JSON");
  EXPECT_EQ(OptionOf(source, "TOPIC"), "trades");
  EXPECT_EQ(OptionOf(source, "missing"), std::nullopt);

  const Statement& stream = (*parsed)[1];
  EXPECT_EQ(stream.kind, StatementKind::kCreateStream);
  EXPECT_EQ(stream.object, ObjectKind::kStream);
  EXPECT_EQ(stream.name, "minute_volume");
  EXPECT_EQ(stream.emit, "ON WINDOW CLOSE");
  EXPECT_EQ(stream.query.rfind("SELECT symbol,", 0), 0u) << stream.query;
  EXPECT_NE(stream.query.find("GROUP BY symbol, tumble(ts, INTERVAL '1' MINUTE)"), std::string::npos);
  EXPECT_EQ(stream.query.find("EMIT"), std::string::npos) << "the emit clause is not the query's";

  const Statement& sink = (*parsed)[2];
  EXPECT_EQ(sink.kind, StatementKind::kCreateSink);
  EXPECT_EQ(sink.name, "minute_volume_out");
  EXPECT_EQ(sink.from, "minute_volume");
  EXPECT_EQ(sink.connector, "KAFKA");
  EXPECT_EQ(OptionOf(sink, "topic"), "minute-volume");
  EXPECT_EQ(sink.format, "JSON");
}

TEST(Statement, TheSeedsQuickStart) {
  auto parsed = ParseStatements(testing::SeedSql("quick_start.sql"));
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0].kind, StatementKind::kCreateSource);
  EXPECT_EQ((*parsed)[0].connector, "GENERATOR");
  EXPECT_EQ(OptionOf((*parsed)[0], "rows.per.second"), "10");
  EXPECT_TRUE((*parsed)[0].columns.empty()) << "a generator's columns are its own";
  EXPECT_EQ((*parsed)[1].kind, StatementKind::kCreateView);
  EXPECT_EQ((*parsed)[1].name, "tick_totals");
  EXPECT_EQ((*parsed)[1].query, "SELECT COUNT(*) AS rows_seen, MAX(seq) AS last_seq\n    FROM ticks");
  EXPECT_EQ((*parsed)[1].emit, "");
}

TEST(Statement, OtherForms) {
  auto drop = ParseStatement("drop materialized view if exists tick_totals");
  ASSERT_TRUE(drop.ok()) << drop.status();
  EXPECT_EQ(drop->kind, StatementKind::kDrop);
  EXPECT_EQ(drop->object, ObjectKind::kView);
  EXPECT_TRUE(drop->if_exists);
  EXPECT_EQ(drop->name, "tick_totals");

  auto show = ParseStatement("SHOW MATERIALIZED VIEWS;");
  ASSERT_TRUE(show.ok()) << show.status();
  EXPECT_EQ(show->kind, StatementKind::kShow);
  EXPECT_EQ(show->object, ObjectKind::kView);
  EXPECT_EQ(ParseStatement("SHOW SOURCES")->object, ObjectKind::kSource);

  auto subscribe = ParseStatement("SUBSCRIBE \"Minute Volume\"");
  ASSERT_TRUE(subscribe.ok()) << subscribe.status();
  EXPECT_EQ(subscribe->kind, StatementKind::kSubscribe);
  EXPECT_EQ(subscribe->name, "Minute Volume");

  auto create = ParseStatement(
      "CREATE OR REPLACE STREAM IF NOT EXISTS s AS SELECT a, (SELECT 1) AS emit_x FROM t EMIT CHANGES");
  ASSERT_TRUE(create.ok()) << create.status();
  EXPECT_TRUE(create->or_replace);
  EXPECT_TRUE(create->if_not_exists);
  EXPECT_EQ(create->query, "SELECT a, (SELECT 1) AS emit_x FROM t");
  EXPECT_EQ(create->emit, "CHANGES");

  // The late-row clauses, in any order after the query; words named like them inside it stay.
  auto late = ParseStatement(
      "CREATE STREAM s AS SELECT late, COUNT(*) AS c FROM t GROUP BY late, tumble(ts, INTERVAL '1' MINUTE) "
      "LATE DATA TO s_late EMIT ON WINDOW CLOSE ALLOW LATENESS INTERVAL '30' SECOND");
  ASSERT_TRUE(late.ok()) << late.status();
  EXPECT_EQ(late->query, "SELECT late, COUNT(*) AS c FROM t GROUP BY late, tumble(ts, INTERVAL '1' MINUTE)");
  EXPECT_EQ(late->late_data_to, "s_late");
  EXPECT_EQ(late->emit, "ON WINDOW CLOSE");
  EXPECT_EQ(late->allowed_lateness, "INTERVAL '30' SECOND");

  auto mink_source = ParseStatement(
      "CREATE SOURCE orders (id BIGINT NOT NULL, amount DECIMAL(10, 2), at TIMESTAMP(3), WATERMARK FOR at) "
      "FROM MINK ('table' = 'shop.orders')");
  ASSERT_TRUE(mink_source.ok()) << mink_source.status();
  EXPECT_EQ(mink_source->columns[1], (ColumnDef{"amount", "DECIMAL(10, 2)", false}));
  EXPECT_EQ(mink_source->columns[2], (ColumnDef{"at", "TIMESTAMP(3)", false}));
  EXPECT_EQ(*mink_source->watermark, (WatermarkDef{"at", ""}));
  auto words = ParseStatement("CREATE SOURCE w (x DOUBLE PRECISION NOT NULL, t TIMESTAMP WITH TIME ZONE, v INT[])");
  ASSERT_TRUE(words.ok()) << words.status();
  EXPECT_EQ(words->columns, (std::vector<ColumnDef>{{"x", "DOUBLE PRECISION", true},
                                                    {"t", "TIMESTAMP WITH TIME ZONE", false},
                                                    {"v", "INT[]", false}}));

  auto query = ParseStatement("SELECT * FROM tick_totals -- the view's rows\n");
  ASSERT_TRUE(query.ok()) << query.status();
  EXPECT_EQ(query->kind, StatementKind::kQuery);
  EXPECT_EQ(query->query, "SELECT * FROM tick_totals");
  auto explain = ParseStatement("EXPLAIN SELECT 1");
  ASSERT_TRUE(explain.ok());
  EXPECT_EQ(explain->query, "SELECT 1");

  auto quotes = ParseStatements("SELECT 'a;b' AS \"x;y\"; SELECT 2");
  ASSERT_TRUE(quotes.ok()) << quotes.status();
  EXPECT_EQ(quotes->size(), 2u) << "';' inside quotes does not split";
}

TEST(Statement, ErrorsNameTheLineAndWhatWasExpected) {
  auto missing_paren = ParseStatements("CREATE SOURCE s (\n  a BIGINT\n  b BIGINT\n)");
  ASSERT_FALSE(missing_paren.ok());
  EXPECT_EQ(missing_paren.status().message(), "line 3: expected ',', found b") << missing_paren.status();

  auto watermark = ParseStatement("CREATE SOURCE s (a BIGINT, WATERMARK FOR ts AS ts)");
  ASSERT_FALSE(watermark.ok());
  EXPECT_NE(watermark.status().message().find("ts, which is not one of its columns"), std::string::npos);

  auto sink = ParseStatement("CREATE SINK out INTO KAFKA ('topic' = 't')");
  ASSERT_FALSE(sink.ok());
  EXPECT_EQ(sink.status().message(), "line 1: expected FROM, found INTO");

  auto twice = ParseStatement("CREATE SOURCE g FROM GENERATOR ('a' = '1', 'A' = '2')");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "option 'A' is given twice");

  auto open = ParseStatement("SELECT 'unclosed");
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.status().message(), "line 1: a string is not closed");

  auto kind = ParseStatement("DROP TABLE x");
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().message(), "line 1: expected SOURCE, STREAM, MATERIALIZED VIEW or SINK, found TABLE");

  auto emit = ParseStatement("CREATE STREAM s AS SELECT 1 EMIT");
  ASSERT_FALSE(emit.ok());
  EXPECT_NE(emit.status().message().find("what to emit"), std::string::npos);
  auto late_twice = ParseStatement("CREATE STREAM s AS SELECT 1 LATE DATA TO a LATE DATA TO b");
  ASSERT_FALSE(late_twice.ok());
  EXPECT_EQ(late_twice.status().message(), "LATE DATA TO is given twice");
  auto no_name = ParseStatement("CREATE STREAM s AS SELECT 1 LATE DATA TO");
  ASSERT_FALSE(no_name.ok());
  EXPECT_EQ(no_name.status().message(), "line 1: expected the name of the table of late rows, found the end of the statement");

  EXPECT_FALSE(ParseStatement("SELECT 1; SELECT 2").ok()) << "one statement expected";
}

}  // namespace
}  // namespace mink::stream
