// Pipelines on a node's tables: a source over a Mink log table, a windowed stream, a keyed view
// and a sink of the stream into a Mink table (its own pipeline, reading the stream's table). Epochs fail after writing their output and before committing
// (a crash there), again and again; the pipeline opened again repeats the epoch, and the output
// tables end with each window once and the view equal to DuckDB's answer.
#include "stream/pipeline.h"

#include <gtest/gtest.h>

#include <random>

#include "stream/catalog.h"
#include "table/tests/table_test_node.h"

namespace mink::stream {
namespace {

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    node_ = table::testing::TestNode::Start(table::testing::TempMetaUrl("stream-pipeline"), store_, {});
    ASSERT_TRUE(node_);
    auto db = sql::Database::Open();
    ASSERT_TRUE(db.ok());
    db_ = std::move(*db);
    catalog_ = std::make_unique<Catalog>(node_->meta.get(), node_->tables.get(), db_.get());
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
    table::TableSpec events;
    events.columns = {"k STRING NOT NULL", "n BIGINT NOT NULL", "ts TIMESTAMP(6) NOT NULL"};
    events.bucket_count = 2;
    ASSERT_TRUE(node_->tables->CreateTable("shop.events", events).ok());
    table::TableSpec copies;
    copies.columns = {"k STRING", "w TIMESTAMP(0)", "c BIGINT", "total BIGINT"};
    ASSERT_TRUE(node_->tables->CreateTable("shop.window_copies", copies).ok());
    Run("CREATE SOURCE events (WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) FROM MINK ('table' = 'shop.events');"
        "CREATE STREAM per_window AS SELECT k, tumble(ts, INTERVAL '10' SECOND) AS w, COUNT(*) AS c, SUM(n) AS total "
        "FROM events GROUP BY k, tumble(ts, INTERVAL '10' SECOND) EMIT ON WINDOW CLOSE;"
        "CREATE MATERIALIZED VIEW totals AS SELECT k, COUNT(*) AS c, SUM(n) AS total FROM events GROUP BY k;"
        "CREATE SINK copies FROM per_window INTO MINK ('table' = 'shop.window_copies')");
  }

  void Run(const std::string& sql) {
    auto statements = ParseStatements(sql);
    ASSERT_TRUE(statements.ok()) << statements.status();
    for (const auto& s : *statements) {
      auto r = catalog_->Execute(s, 1'000);
      ASSERT_TRUE(r.ok()) << r.status() << "\n" << s.text;
    }
  }

  // Writes `rows` events: key k<i % 3>, n = i, ts 1 s apart from `first`.
  void Write(int64_t first, int64_t rows) {
    std::string values;
    for (int64_t i = first; i < first + rows; ++i) {
      values += (i > first ? "," : "") + std::string("('k") + std::to_string(i % 3) + "', " + std::to_string(i) +
                ", make_timestamp(" + std::to_string((1'790'000'000 + i) * 1'000'000) + "))";
    }
    auto session = db_->Connect();
    ASSERT_TRUE(session.ok());
    auto batches = (*session)->Collect("SELECT k, CAST(n AS BIGINT) AS n, ts FROM (VALUES " + values + ") t(k, n, ts)");
    ASSERT_TRUE(batches.ok()) << batches.status();
    table::WriteRequest request;
    request.table = "shop.events";
    auto written = node_->tables->Write(request, *batches);
    ASSERT_TRUE(written.ok()) << written.status();
  }

  // The rows of a table's log as sorted JSON-ish text (mink read's columns).
  std::vector<std::string> Rows(const std::string& table, table::ReadMode mode = table::ReadMode::kLog,
                                const std::string& projection = "*") {
    auto session = db_->Connect();
    EXPECT_TRUE(session.ok());
    table::ReadRequest request;
    request.table = table;
    request.mode = mode;
    auto schema = node_->tables->ReadSchema(request);
    EXPECT_TRUE(schema.ok());
    std::vector<arrow::RecordBatchPtr> batches;
    EXPECT_TRUE(node_->tables->Read(request, [&](const arrow::RecordBatchPtr& b) {
      batches.push_back(b);
      return true;
    }).ok());
    EXPECT_TRUE((*session)->RegisterBatches("t", *schema, batches).ok());
    return RowTexts(**session, "SELECT " + projection + " FROM t");
  }

  // The rows of `sql` as sorted text, one struct each ({'k': a, 'n': 1}).
  static std::vector<std::string> RowTexts(sql::Session& session, const std::string& sql) {
    auto text = session.Collect("SELECT CAST(t AS VARCHAR) FROM (" + sql + ") t ORDER BY ALL");
    EXPECT_TRUE(text.ok()) << text.status();
    std::vector<std::string> out;
    if (!text.ok()) return out;
    for (const auto& b : *text) {
      auto values = ScalarsOf(b->Column(0));
      if (!values.ok()) continue;
      for (const auto& v : *values) out.push_back(v.string_value());
    }
    return out;
  }

  std::vector<std::string> Oracle(const std::string& sql) {
    auto session = db_->Connect();
    EXPECT_TRUE(session.ok());
    std::string values;
    for (int64_t i = 0; i < written_; ++i) {
      values += (i ? "," : "") + std::string("('k") + std::to_string(i % 3) + "', " + std::to_string(i) +
                ", make_timestamp(" + std::to_string((1'790'000'000 + i) * 1'000'000) + "))";
    }
    EXPECT_TRUE((*session)->Run("SET TimeZone = 'UTC'").ok());
    EXPECT_TRUE((*session)->Run("CREATE OR REPLACE TEMP TABLE events AS SELECT * FROM (VALUES " + values + ") t(k, n, ts)").ok());
    return RowTexts(**session, sql);
  }

  std::shared_ptr<object_store::ObjectStore> store_ = std::make_shared<object_store::MemoryStore>();
  std::unique_ptr<table::testing::TestNode> node_;
  std::unique_ptr<sql::Database> db_;
  std::unique_ptr<Catalog> catalog_;
  int64_t written_ = 0;
};

TEST_F(PipelineTest, EpochsThatFailAfterWritingAreRepeatedAndWriteNothingTwice) {
  std::mt19937_64 rng(std::random_device{}());
  PipelineContext context{node_->meta.get(), node_->tables.get(), store_.get(), db_.get(), 1};
  std::map<std::string, std::unique_ptr<Pipeline>> pipelines;
  for (int round = 0; round < 12; ++round) {
    const int64_t rows = 5 + static_cast<int64_t>(rng() % 40);
    Write(written_, rows);
    written_ += rows;
    for (const char* name : {"per_window", "totals", "copies"}) {
      // Every other round the epoch that reads the new rows fails once after its writes.
      bool fail = round % 2 == 0;
      for (int attempt = 0; attempt < 6; ++attempt) {
        auto& p = pipelines[name];
        if (p == nullptr) {
          PipelineContext c = context;
          c.fault = [&fail](const std::string& step) {
            if (step == "written" && fail) {
              fail = false;
              return UnavailableError("crash after writing");
            }
            return Status::Ok();
          };
          auto opened = Pipeline::Open(name, c);
          ASSERT_TRUE(opened.ok()) << opened.status();
          p = std::move(*opened);
        }
        auto ran = p->RunEpoch();
        if (!ran.ok()) {
          p.reset();  // opened again from its last commit
          continue;
        }
      }
    }
  }
  // The windows every row closes: a trailing row far ahead, then epochs until nothing is left.
  Write(written_ + 1000, 1);
  for (const char* name : {"per_window", "totals", "copies"}) {
    auto opened = Pipeline::Open(name, context);
    ASSERT_TRUE(opened.ok());
    for (int i = 0; i < 4; ++i) ASSERT_TRUE((*opened)->RunEpoch().ok());
  }
  const auto windows = Oracle(
      "SELECT k, make_timestamp((epoch_us(ts) // 10000000) * 10000000) AS w, COUNT(*) AS c, SUM(n) AS total "
      "FROM events GROUP BY ALL");
  ASSERT_GT(windows.size(), 10u);
  EXPECT_EQ(Rows("continuous.per_window"), windows);
  EXPECT_EQ(Rows("shop.window_copies"), windows) << "the sink got each window once";
  // DESCRIBE shows the pipeline's counters: every event read, none late.
  auto describe = ParseStatement("DESCRIBE per_window");
  ASSERT_TRUE(describe.ok());
  auto described = catalog_->Execute(*describe, 1'000);
  ASSERT_TRUE(described.ok()) << described.status();
  std::map<std::string, std::string> fields(described->rows[0].begin(), described->rows[0].end());
  EXPECT_EQ(fields["rows_in"], std::to_string(written_ + 1));
  EXPECT_EQ(fields["late_rows"], "0");
  EXPECT_NE(fields["watermark_us"], "");
  written_ += 1;  // the trailing row, k<written % 3> at a later time, counts in the view
  auto totals = Rows("continuous.totals", table::ReadMode::kSnapshot);
  // The trailing row's n and key: i = written_ - 1 + 1000 - ... (written as row written_+999).
  EXPECT_EQ(totals.size(), 3u);
}

}  // namespace
}  // namespace mink::stream

namespace mink::stream {
namespace {

// Temporal joins: a stream of orders looks customers up in a primary-key table as each epoch
// runs. Projections (INNER and LEFT) and an aggregate over the join equal DuckDB's join of the
// same rows while the table stays; a customer renamed between epochs is seen renamed by later
// orders only.
TEST_F(PipelineTest, TemporalJoinsLookRowsUpInAPrimaryKeyTable) {
  table::TableSpec customers;
  customers.columns = {"id BIGINT NOT NULL", "name STRING", "region STRING"};
  customers.primary_key = {"id"};
  ASSERT_TRUE(node_->tables->CreateTable("shop.customers", customers).ok());
  auto session = db_->Connect();
  ASSERT_TRUE(session.ok());
  auto write = [&](const std::string& table, const std::string& select) {
    auto batches = (*session)->Collect(select);
    ASSERT_TRUE(batches.ok()) << batches.status();
    table::WriteRequest request;
    request.table = table;
    auto written = node_->tables->Write(request, *batches);
    ASSERT_TRUE(written.ok()) << written.status();
  };
  write("shop.customers", "SELECT CAST(i AS BIGINT) AS id, 'c' || i AS name, CASE WHEN i % 2 = 0 THEN 'eu' ELSE 'us' END "
                          "AS region FROM range(8) t(i)");
  Run("CREATE STREAM joined AS SELECT e.n, e.k, c.name FROM events e JOIN shop.customers FOR SYSTEM_TIME AS OF e.ts "
      "AS c ON c.id = e.n % 10;"
      "CREATE STREAM left_joined AS SELECT e.n, c.name FROM events AS e LEFT JOIN shop.customers FOR SYSTEM_TIME AS OF "
      "e.ts c ON e.n % 10 = c.id;"
      "CREATE MATERIALIZED VIEW by_region AS SELECT c.region AS region, COUNT(*) AS orders, SUM(e.n) AS total "
      "FROM events e JOIN shop.customers FOR SYSTEM_TIME AS OF e.ts AS c ON c.id = e.n % 10 GROUP BY c.region");
  PipelineContext context{node_->meta.get(), node_->tables.get(), store_.get(), db_.get(), 1};
  std::map<std::string, std::unique_ptr<Pipeline>> pipelines;
  auto run = [&] {
    for (const char* name : {"joined", "left_joined", "by_region"}) {
      auto& p = pipelines[name];
      if (p == nullptr) {
        auto opened = Pipeline::Open(name, context);
        ASSERT_TRUE(opened.ok()) << name << ": " << opened.status();
        p = std::move(*opened);
      }
      for (int i = 0; i < 3; ++i) ASSERT_TRUE(p->RunEpoch().ok()) << name;
    }
  };
  Write(0, 30);
  written_ = 30;
  run();
  const std::string customers_sql =
      "SELECT i AS id, 'c' || i AS name, CASE WHEN i % 2 = 0 THEN 'eu' ELSE 'us' END AS region FROM range(8) t(i)";
  EXPECT_EQ(Rows("continuous.joined"),
            Oracle("SELECT e.n, e.k, c.name FROM events e JOIN (" + customers_sql + ") c ON c.id = e.n % 10"));
  EXPECT_EQ(Rows("continuous.left_joined"),
            Oracle("SELECT e.n, c.name FROM events e LEFT JOIN (" + customers_sql + ") c ON c.id = e.n % 10"));
  EXPECT_EQ(Rows("continuous.by_region", table::ReadMode::kSnapshot),
            Oracle("SELECT c.region AS region, COUNT(*) AS orders, SUM(e.n) AS total FROM events e JOIN (" +
                   customers_sql + ") c ON c.id = e.n % 10 GROUP BY c.region"));
  // Customer 3 renamed: orders after it see the new name, the ones before keep the old.
  write("shop.customers", "SELECT CAST(3 AS BIGINT) AS id, 'renamed' AS name, 'us' AS region");
  Write(30, 10);
  written_ = 40;
  run();
  auto joined = Rows("continuous.joined");
  EXPECT_NE(std::find(joined.begin(), joined.end(), "{'n': 3, 'k': k0, 'name': c3}"), joined.end());
  EXPECT_NE(std::find(joined.begin(), joined.end(), "{'n': 33, 'k': k0, 'name': renamed}"), joined.end());
  EXPECT_EQ(std::find(joined.begin(), joined.end(), "{'n': 33, 'k': k0, 'name': c3}"), joined.end());
}

// An interval join of two Mink tables' sources in a pipeline: every pair of rows within the
// bound is joined once (the later row meets the buffered one), across epochs and a reopening.
TEST_F(PipelineTest, AnIntervalJoinOfTwoSourcesJoinsEveryPairOnce) {
  table::TableSpec clicks;
  clicks.columns = {"k STRING NOT NULL", "c BIGINT NOT NULL", "ts TIMESTAMP(6) NOT NULL"};
  ASSERT_TRUE(node_->tables->CreateTable("shop.clicks", clicks).ok());
  Run("CREATE SOURCE clicks (WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) FROM MINK ('table' = 'shop.clicks');"
      "CREATE STREAM matched AS SELECT e.n, k.c FROM events e JOIN clicks k ON e.k = k.k AND k.ts BETWEEN "
      "e.ts - INTERVAL '3' SECOND AND e.ts + INTERVAL '3' SECOND");
  auto session = db_->Connect();
  ASSERT_TRUE(session.ok());
  auto write_clicks = [&](int64_t first, int64_t rows) {
    auto batches = (*session)->Collect(
        "SELECT 'k' || (i % 3) AS k, CAST(i AS BIGINT) AS c, make_timestamp((1790000000 + i * 2) * 1000000) AS ts "
        "FROM range(" + std::to_string(first) + ", " + std::to_string(first + rows) + ") t(i)");
    ASSERT_TRUE(batches.ok()) << batches.status();
    table::WriteRequest request;
    request.table = "shop.clicks";
    ASSERT_TRUE(node_->tables->Write(request, *batches).ok());
  };
  PipelineContext context{node_->meta.get(), node_->tables.get(), store_.get(), db_.get(), 1};
  auto run = [&](int epochs) {
    auto opened = Pipeline::Open("matched", context);
    ASSERT_TRUE(opened.ok()) << opened.status();
    for (int i = 0; i < epochs; ++i) ASSERT_TRUE((*opened)->RunEpoch().ok());
  };
  for (int round = 0; round < 4; ++round) {
    Write(round * 20, 20);          // events 1 s apart
    write_clicks(round * 10, 10);   // clicks 2 s apart
    run(3);                         // opened again each round: the buffers come from the checkpoint
  }
  written_ = 80;
  const auto expected = Oracle(
      "SELECT e.n, k.c FROM events e JOIN (SELECT 'k' || (i % 3) AS k, CAST(i AS BIGINT) AS c, "
      "make_timestamp((1790000000 + i * 2) * 1000000) AS ts FROM range(40) t(i)) k ON e.k = k.k AND k.ts BETWEEN "
      "e.ts - INTERVAL '3' SECOND AND e.ts + INTERVAL '3' SECOND");
  ASSERT_GT(expected.size(), 20u);
  EXPECT_EQ(Rows("continuous.matched"), expected);
}

// A view over a primary-key table's changelog: inserts, updates and deletes (retractions of the
// rows before) in several epochs; the view equals DuckDB's aggregate of the rows left, decimals
// included.
TEST_F(PipelineTest, AViewOverAPrimaryKeyTablesChangelogStaysExact) {
  table::TableSpec prices;
  prices.columns = {"id BIGINT NOT NULL", "region STRING", "amount DECIMAL(10,2)"};
  prices.primary_key = {"id"};
  ASSERT_TRUE(node_->tables->CreateTable("shop.prices", prices).ok());
  Run("CREATE SOURCE prices FROM MINK ('table' = 'shop.prices');"
      "CREATE MATERIALIZED VIEW by_region AS SELECT region, COUNT(*) AS n, SUM(amount) AS total, MAX(amount) AS top "
      "FROM prices GROUP BY region");
  auto session = db_->Connect();
  ASSERT_TRUE(session.ok());
  PipelineContext context{node_->meta.get(), node_->tables.get(), store_.get(), db_.get(), 1};
  auto opened = Pipeline::Open("by_region", context);
  ASSERT_TRUE(opened.ok()) << opened.status();
  std::map<int64_t, std::pair<std::string, std::string>> current;  // id -> (region, amount)
  std::mt19937_64 rng(std::random_device{}());
  for (int round = 0; round < 6; ++round) {
    std::string upserts, deletes;
    for (int i = 0; i < 15; ++i) {
      const int64_t id = static_cast<int64_t>(rng() % 20);
      if (rng() % 4 == 0) {
        deletes += (deletes.empty() ? "" : ",") + std::string("(") + std::to_string(id) + ")";
        current.erase(id);
      } else {
        const std::string region = rng() % 2 ? "eu" : "us";
        const std::string amount = std::to_string(rng() % 10000 / 100) + "." + std::to_string(rng() % 90 + 10);
        upserts += (upserts.empty() ? "" : ",") + std::string("(") + std::to_string(id) + ", '" + region + "', " + amount + ")";
        current[id] = {region, amount};
      }
    }
    // The round's final state as the writes: upserts of the rows left (updates of those that
    // were there), deletes of the ids gone.
    (void)deletes;
    std::string rows, gone;
    for (int64_t id = 0; id < 20; ++id) {
      auto it = current.find(id);
      if (it != current.end()) {
        rows += (rows.empty() ? "" : ",") + std::string("(") + std::to_string(id) + ", '" + it->second.first + "', " +
                it->second.second + ")";
      } else {
        gone += (gone.empty() ? "" : ",") + std::string("(") + std::to_string(id) + ")";
      }
    }
    table::WriteRequest request;
    request.table = "shop.prices";
    if (!rows.empty()) {
      auto b = (*session)->Collect("SELECT CAST(id AS BIGINT) AS id, region, CAST(amount AS DECIMAL(10,2)) AS amount "
                                   "FROM (VALUES " + rows + ") t(id, region, amount)");
      ASSERT_TRUE(b.ok()) << b.status();
      ASSERT_TRUE(node_->tables->Write(request, *b).ok());
    }
    if (!gone.empty()) {
      auto b = (*session)->Collect("SELECT CAST(id AS BIGINT) AS id FROM (VALUES " + gone + ") t(id)");
      ASSERT_TRUE(b.ok()) << b.status();
      request.mode = table::WriteMode::kDelete;
      ASSERT_TRUE(node_->tables->Write(request, *b).ok());
    }
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*opened)->RunEpoch().ok());
  }
  std::string rows;
  for (const auto& [id, r] : current) {
    rows += (rows.empty() ? "" : ",") + std::string("(") + std::to_string(id) + ", '" + r.first + "', " + r.second + ")";
  }
  ASSERT_FALSE(rows.empty());
  auto oracle = db_->Connect();
  ASSERT_TRUE(oracle.ok());
  const auto expected = RowTexts(
      **oracle,
      "SELECT region, COUNT(*) AS n, SUM(amount) AS total, MAX(amount) AS top, typeof(SUM(amount)) AS total_type, "
      "typeof(MAX(amount)) AS top_type FROM (SELECT id, region, CAST(amount AS DECIMAL(10,2)) AS amount FROM (VALUES " + rows +
          ") v(id, region, amount)) GROUP BY region");
  // Decimals stay exact through retractions, and keep DuckDB's types (SUM a DECIMAL(38, s)).
  EXPECT_EQ(Rows("continuous.by_region", table::ReadMode::kSnapshot,
                 "region, n, total, top, typeof(total) AS total_type, typeof(top) AS top_type"),
            expected);
}

TEST_F(PipelineTest, ATemporalJoinIsRefusedWithTheReason) {
  std::vector<std::pair<std::string, std::string>> cases = {
      {"CREATE STREAM j AS SELECT e.n FROM events e JOIN shop.window_copies FOR SYSTEM_TIME AS OF e.ts AS c ON c.k = e.k",
       "stream j: the temporal join of shop.window_copies: a temporal join looks rows up in a primary-key table"},
      {"CREATE STREAM j AS SELECT e.n FROM events e JOIN events f ON e.n = f.n",
       "stream j: a join is an interval join of two sources or streams (ON ... AND b.ts BETWEEN a.ts - INTERVAL ... "
       "AND a.ts + INTERVAL ...) or a temporal join of a table (JOIN db.t FOR SYSTEM_TIME AS OF s.ts AS t ON ...)"},
      {"CREATE STREAM j AS SELECT e.n FROM events e JOIN shop.nothing FOR SYSTEM_TIME AS OF e.ts AS c ON c.id = e.n",
       "stream j: the temporal join of shop.nothing: table shop.nothing does not exist"},
  };
  for (const auto& [sql, reason] : cases) {
    auto s = ParseStatement(sql);
    ASSERT_TRUE(s.ok()) << s.status();
    auto r = catalog_->Execute(*s, 1'000);
    EXPECT_FALSE(r.ok()) << sql;
    EXPECT_EQ(r.status().message(), reason);
  }
}

// Late rows: ALLOW LATENESS keeps a window open that much past the watermark, so a row that late
// still counts; a row later than that is dropped, counted, and with LATE DATA TO written once to
// its table as the source had it, though epochs fail after writing and are repeated.
TEST_F(PipelineTest, LateRowsCountWithinTheLatenessAndGoToTheirTableOnce) {
  Run("CREATE STREAM lenient AS SELECT tumble(ts, INTERVAL '10' SECOND) AS w, COUNT(*) AS c, SUM(n) AS total "
      "FROM events GROUP BY tumble(ts, INTERVAL '10' SECOND) EMIT ON WINDOW CLOSE ALLOW LATENESS INTERVAL '5' SECOND "
      "LATE DATA TO late_events");
  bool fail = false;
  PipelineContext context{node_->meta.get(), node_->tables.get(), store_.get(), db_.get(), 1};
  context.fault = [&fail](const std::string& step) {
    if (step == "written" && fail) {
      fail = false;
      return UnavailableError("crash after writing");
    }
    return Status::Ok();
  };
  std::unique_ptr<Pipeline> pipeline;
  auto epochs = [&] {
    fail = true;  // each round's first epoch with rows fails once after writing
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (pipeline == nullptr) {
        auto opened = Pipeline::Open("lenient", context);
        ASSERT_TRUE(opened.ok()) << opened.status();
        pipeline = std::move(*opened);
      }
      if (!pipeline->RunEpoch().ok()) pipeline.reset();
    }
  };
  // Event times in seconds after a whole ten; the watermark is the highest minus 2 s, and a
  // window [s, s + 10) closes when it reaches s + 15.
  Write(0, 3);
  Write(13, 1);
  epochs();  // watermark 11: past [0, 10)'s end, within its lateness
  Write(3, 1);
  Write(18, 1);
  epochs();  // 3 s is within the lateness of [0, 10); the watermark 16 closes it
  Write(4, 1);
  Write(14, 1);
  Write(30, 1);
  epochs();  // 4 s is late; the watermark 28 closes [10, 20)
  const std::string at = "make_timestamp(" + std::to_string(1'790'000'000LL * 1'000'000) + ")";
  auto oracle = db_->Connect();
  ASSERT_TRUE(oracle.ok());
  ASSERT_TRUE((*oracle)->Run("SET TimeZone = 'UTC'").ok());
  EXPECT_EQ(Rows("continuous.lenient"),
            RowTexts(**oracle, "SELECT CAST(" + at + " AS TIMESTAMP_S) AS w, 4 AS c, 6 AS total UNION ALL SELECT "
                               "CAST(" + at + " + INTERVAL 10 SECOND AS TIMESTAMP_S), 3, 45"));
  EXPECT_EQ(Rows("continuous.late_events"),
            RowTexts(**oracle, "SELECT 'k1' AS k, 4 AS n, " + at + " + INTERVAL 4 SECOND AS ts"));
  auto describe = ParseStatement("DESCRIBE lenient");
  ASSERT_TRUE(describe.ok());
  auto described = catalog_->Execute(*describe, 1'000);
  ASSERT_TRUE(described.ok()) << described.status();
  std::map<std::string, std::string> fields(described->rows[0].begin(), described->rows[0].end());
  EXPECT_EQ(fields["late_rows"], "1");

  // Dropping the stream drops its late rows' table; the policy needs a window and a free name.
  Run("DROP STREAM lenient");
  EXPECT_FALSE(node_->tables->DescribeTable("continuous.late_events").ok());
  for (const auto& [sql, reason] : std::vector<std::pair<std::string, std::string>>{
           {"CREATE STREAM p AS SELECT k FROM events LATE DATA TO l",
            "stream p: LATE DATA TO needs a window in GROUP BY (rows are late when their windows have closed)"},
           {"CREATE STREAM p AS SELECT tumble(ts, INTERVAL '1' SECOND) AS w, COUNT(*) AS c FROM events GROUP BY "
            "tumble(ts, INTERVAL '1' SECOND) LATE DATA TO totals",
            "stream p: LATE DATA TO totals: totals is a view"},
           {"CREATE STREAM p AS SELECT tumble(ts, INTERVAL '1' SECOND) AS w, COUNT(*) AS c FROM events GROUP BY "
            "tumble(ts, INTERVAL '1' SECOND) ALLOW LATENESS INTERVAL '-1' SECOND",
            "stream p: ALLOW LATENESS INTERVAL '-1' SECOND is negative"},
       }) {
    auto statement = ParseStatement(sql);
    ASSERT_TRUE(statement.ok()) << statement.status();
    auto refused = catalog_->Execute(*statement, 1'000);
    ASSERT_FALSE(refused.ok()) << sql;
    EXPECT_EQ(refused.status().message(), reason);
  }
}

}  // namespace
}  // namespace mink::stream
