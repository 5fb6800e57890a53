// Differential: for random inputs that arrive out of order within the watermark's bound, in
// random batches, each continuous query's output equals DuckDB's batch answer over the same
// rows. Windowed queries are compared on every window they close (the watermark trails the
// highest event time by the bound, and everything closes at the end); aggregates without a
// window on the last state their changes leave; projections row for row. Each query also runs
// checkpointed at a random batch and restored into a new operator, which must answer the same.
// The seed is printed; MINK_TEST_SEED repeats a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <random>

#include "stream/continuous_query.h"

namespace mink::stream {
namespace {

constexpr int64_t kBoundMs = 5000;  // how far out of order rows arrive (the watermark's delay)

std::string Text(const Scalar& s) {
  if (s.is_null()) return "null";
  if (s.is_string()) return "'" + s.string_value() + "'";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", s.AsDouble());  // DuckDB's HUGEINT sums arrive as decimals
  return buf;
}

std::string Text(const Row& row) {
  std::string out;
  for (const auto& s : row) out += (out.empty() ? "" : "|") + Text(s);
  return out;
}

class DifferentialTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* env = std::getenv("MINK_TEST_SEED");
    seed_ = env != nullptr ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    std::printf("seed %" PRIu64 " (MINK_TEST_SEED=%" PRIu64 " repeats this run)\n", seed_, seed_);
    auto db = sql::Database::Open();
    ASSERT_TRUE(db.ok());
    db_ = std::move(*db);
    auto session = db_->Connect();
    ASSERT_TRUE(session.ok());
    oracle_ = std::move(*session);
    ASSERT_TRUE(oracle_->Run("SET TimeZone = 'UTC'").ok());
    // The window functions as DuckDB macros, for the batch answers.
    ASSERT_TRUE(oracle_->Run("CREATE MACRO tumble(ts, size) AS make_timestamp((epoch_us(ts) // "
                             "CAST(epoch(size) * 1000000 AS BIGINT)) * CAST(epoch(size) * 1000000 AS BIGINT))")
                    .ok());
    // Rows in arrival order: event time 100 ms apart, each up to the bound earlier, so none is
    // late; keys from a small set, values with nulls.
    std::mt19937_64 rng(seed_);
    std::string values;
    const int rows = 3000;
    for (int i = 0; i < rows; ++i) {
      const int64_t ts_ms = 1'790'000'000'000 + int64_t{i} * 100 - static_cast<int64_t>(rng() % kBoundMs);
      const std::string key = std::string(1, static_cast<char>('a' + rng() % 5));
      const int64_t v = static_cast<int64_t>(rng() % 101) - 50;
      const bool v_null = rng() % 13 == 0;
      const double d = static_cast<double>(rng() % 100000) / 8.0;
      values += (i ? "," : "") + std::string("(") + std::to_string(i) + ", '" + key + "', " +
                (v_null ? "NULL" : std::to_string(v)) + ", " + std::to_string(d) + ", make_timestamp(" +
                std::to_string(ts_ms * 1000) + "))";
    }
    ASSERT_TRUE(oracle_->Run("CREATE TABLE input AS SELECT * FROM (VALUES " + values + ") t(arrival, k, v, d, ts)").ok());
    // Random batches in arrival order.
    int at = 0;
    while (at < rows) {
      const int n = 1 + static_cast<int>(rng() % 200);
      auto batch = oracle_->Collect("SELECT k, v, d, ts FROM input WHERE arrival >= " + std::to_string(at) +
                                    " AND arrival < " + std::to_string(at + n) + " ORDER BY arrival");
      ASSERT_TRUE(batch.ok()) << batch.status();
      for (auto& b : *batch) batches_.push_back(std::move(b));
      at += n;
    }
  }

  // The rows of `sql` over the whole input, as sorted text.
  std::vector<std::string> Oracle(const std::string& sql) {
    auto batches = oracle_->Collect(sql);
    EXPECT_TRUE(batches.ok()) << batches.status() << "\n" << sql;
    std::vector<std::string> out;
    if (!batches.ok()) return out;
    for (const auto& b : *batches) {
      std::vector<std::vector<Scalar>> columns;
      for (int c = 0; c < b->num_columns(); ++c) columns.push_back(*ScalarsOf(b->Column(c)));
      for (int64_t i = 0; i < b->num_rows(); ++i) {
        Row row;
        for (const auto& column : columns) row.push_back(column[static_cast<size_t>(i)]);
        out.push_back(Text(row));
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // The continuous answer of `query` over the batches (source `input`), as sorted text; with
  // `restart_at` >= 0 the query is checkpointed before that batch and restored.
  std::vector<std::string> Continuous(const std::string& query, int64_t restart_at = -1) {
    auto made = ContinuousQuery::Make(db_.get(), query);
    EXPECT_TRUE(made.ok()) << made.status() << "\n" << query;
    if (!made.ok()) return {};
    std::unique_ptr<ContinuousQuery> owner = std::move(*made);
    std::vector<std::string> out;
    std::map<std::string, std::string> state;  // an unwindowed aggregate's rows by key text
    auto changes = [&] {
      for (const auto& c : owner->TakeChanges()) {
        if (c.before) state.erase(Text(*c.before));
        if (c.after) state[Text(*c.after)] = Text(*c.after);
      }
    };
    for (size_t i = 0; i < batches_.size(); ++i) {
      if (static_cast<int64_t>(i) == restart_at && !owner->Checkpoint().empty()) {
        auto restored = ContinuousQuery::Make(db_.get(), query, owner->Checkpoint());
        EXPECT_TRUE(restored.ok()) << restored.status();
        if (!restored.ok()) return {};
        owner = std::move(*restored);
      }
      ContinuousQuery& q = *owner;
      const auto& b = batches_[i];
      auto rows = q.Add(b);
      EXPECT_TRUE(rows.ok()) << rows.status();
      if (!rows.ok()) return {};
      for (const auto& r : *rows) out.push_back(Text(r));
      if (q.max_event_time() != INT64_MIN) {
        for (const auto& r : q.Advance(q.max_event_time() - kBoundMs * 1000)) out.push_back(Text(r));
      }
      changes();
    }
    ContinuousQuery& q = *owner;
    for (const auto& r : q.Advance(INT64_MAX)) out.push_back(Text(r));
    EXPECT_EQ(q.late_rows(), 0);
    for (const auto& [k, v] : state) out.push_back(v);
    std::sort(out.begin(), out.end());
    return out;
  }

  void Compare(const std::string& query, const std::string& oracle) {
    SCOPED_TRACE(query);
    const auto expected = Oracle(oracle);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(Continuous(query), expected);
    const int64_t restart_at = static_cast<int64_t>(seed_ % batches_.size());
    EXPECT_EQ(Continuous(query, restart_at), expected) << "checkpointed and restored before batch " << restart_at;
  }

  uint64_t seed_ = 0;
  std::unique_ptr<sql::Database> db_;
  std::unique_ptr<sql::Session> oracle_;
  std::vector<arrow::RecordBatchPtr> batches_;
};

TEST_F(DifferentialTest, TumblingWindows) {
  for (const char* q : {
           "SELECT k, tumble(ts, INTERVAL '10' SECOND) AS w, SUM(v), COUNT(*), MIN(v), MAX(v) FROM input "
           "GROUP BY k, tumble(ts, INTERVAL '10' SECOND)",
           "SELECT tumble(ts, INTERVAL '1' MINUTE) AS w, k, AVG(v), COUNT(v), COUNT(DISTINCT v) FROM input "
           "WHERE v > -20 GROUP BY tumble(ts, INTERVAL '1' MINUTE), k",
           "SELECT tumble(ts, INTERVAL '30' SECOND), COUNT(*), MAX(d), SUM(d) FROM input "
           "GROUP BY tumble(ts, INTERVAL '30' SECOND)",
           "SELECT upper(k) AS key, tumble(ts, INTERVAL '5' SECOND) AS w, SUM(v * 2 + 1) FROM input "
           "GROUP BY 1, 2",
       }) {
    Compare(q, q);
  }
}

TEST_F(DifferentialTest, HoppingWindows) {
  Compare("SELECT k, hop(ts, INTERVAL '10' SECOND, INTERVAL '30' SECOND) AS w, SUM(v), COUNT(*) FROM input "
          "GROUP BY k, hop(ts, INTERVAL '10' SECOND, INTERVAL '30' SECOND)",
          // Every window [start, start + 30 s) with start a multiple of 10 s that holds the row.
          "SELECT k, make_timestamp(s) AS w, SUM(v), COUNT(*) FROM ("
          "  SELECT k, v, (epoch_us(ts) // 10000000) * 10000000 - r.n * 10000000 AS s FROM input, range(3) r(n)) "
          "GROUP BY k, s");
}

TEST_F(DifferentialTest, SessionWindows) {
  Compare("SELECT k, session(ts, INTERVAL '2' SECOND) AS s, SUM(v), COUNT(*), MAX(d) FROM input "
          "GROUP BY k, session(ts, INTERVAL '2' SECOND)",
          // Gaps and islands: a row more than the gap after the previous one of its key starts a
          // session; the session starts at its first row.
          "SELECT k, min(ts), SUM(v), COUNT(*), MAX(d) FROM ("
          "  SELECT *, sum(CASE WHEN prev IS NULL OR epoch_us(ts) - epoch_us(prev) >= 2000000 THEN 1 ELSE 0 END) "
          "    OVER (PARTITION BY k ORDER BY ts, arrival) AS session_id FROM ("
          "    SELECT *, lag(ts) OVER (PARTITION BY k ORDER BY ts, arrival) AS prev FROM input)) "
          "GROUP BY k, session_id");
}

TEST_F(DifferentialTest, AggregatesWithoutAWindowAndProjections) {
  Compare("SELECT k, SUM(v), MIN(d), MAX(v), COUNT(*) FROM input GROUP BY k",
          "SELECT k, SUM(v), MIN(d), MAX(v), COUNT(*) FROM input GROUP BY k");
  Compare("SELECT COUNT(*) AS rows_seen, MAX(v) AS last_v FROM input",
          "SELECT COUNT(*) AS rows_seen, MAX(v) AS last_v FROM input");
  Compare("SELECT k, v * 10 AS ten_v FROM input WHERE d > 5000", "SELECT k, v * 10 AS ten_v FROM input WHERE d > 5000");
}

TEST_F(DifferentialTest, MoreWindowShapes) {
  for (const char* q : {
           "SELECT k, tumble(ts, INTERVAL '10' SECOND) AS w, AVG(d), COUNT(DISTINCT v) FROM input "
           "GROUP BY k, tumble(ts, INTERVAL '10' SECOND)",
           "SELECT tumble(ts, INTERVAL '2' SECOND) AS w, MIN(d), MAX(d) FROM input WHERE k <> 'a' "
           "GROUP BY tumble(ts, INTERVAL '2' SECOND)",
           "SELECT k, v % 3 AS m, tumble(ts, INTERVAL '20' SECOND) AS w, COUNT(*) FROM input "
           "GROUP BY k, v % 3, tumble(ts, INTERVAL '20' SECOND)",
       }) {
    Compare(q, q);
  }
  Compare("SELECT hop(ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND) AS w, COUNT(DISTINCT k), AVG(v), MIN(v) "
          "FROM input GROUP BY hop(ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND)",
          "SELECT make_timestamp(s) AS w, COUNT(DISTINCT k), AVG(v), MIN(v) FROM ("
          "  SELECT k, v, (epoch_us(ts) // 5000000) * 5000000 - r.n * 5000000 AS s FROM input, range(3) r(n)) "
          "GROUP BY s");
  Compare("SELECT session(ts, INTERVAL '500' MILLISECOND) AS s, COUNT(*), AVG(d), COUNT(DISTINCT k) FROM input "
          "GROUP BY session(ts, INTERVAL '500' MILLISECOND)",
          "SELECT min(ts), COUNT(*), AVG(d), COUNT(DISTINCT k) FROM ("
          "  SELECT *, sum(CASE WHEN prev IS NULL OR epoch_us(ts) - epoch_us(prev) >= 500000 THEN 1 ELSE 0 END) "
          "    OVER (ORDER BY ts, arrival) AS session_id FROM ("
          "    SELECT *, lag(ts) OVER (ORDER BY ts, arrival) AS prev FROM input)) "
          "GROUP BY session_id");
}

// Interval joins: a second input of random rows out of order within the bound; the two inputs'
// batches arrive interleaved at random, buffers are evicted below the lower of the two
// watermarks after every batch, and the joined rows equal DuckDB's join of the whole inputs
// (also when checkpointed and restored at a random batch).
TEST_F(DifferentialTest, IntervalJoins) {
  std::mt19937_64 rng(seed_ + 7);
  std::string values;
  for (int i = 0; i < 1500; ++i) {
    const int64_t ts_ms = 1'790'000'000'000 + int64_t{i} * 200 - static_cast<int64_t>(rng() % kBoundMs);
    values += (i ? "," : "") + std::string("(") + std::to_string(i) + ", '" +
              std::string(1, static_cast<char>('a' + rng() % 5)) + "', " + std::to_string(rng() % 1000) +
              ", make_timestamp(" + std::to_string(ts_ms * 1000) + "))";
  }
  ASSERT_TRUE(oracle_->Run("CREATE TABLE right_input AS SELECT * FROM (VALUES " + values + ") t(arrival, k, w, ts)").ok());
  std::vector<std::pair<arrow::RecordBatchPtr, bool>> arrivals;  // (batch, right)
  for (const auto& b : batches_) arrivals.emplace_back(b, false);
  size_t place = 0;
  for (int at = 0; at < 1500;) {
    const int n = 1 + static_cast<int>(rng() % 100);
    auto batch = oracle_->Collect("SELECT k, w, ts FROM right_input WHERE arrival >= " + std::to_string(at) +
                                  " AND arrival < " + std::to_string(at + n) + " ORDER BY arrival");
    ASSERT_TRUE(batch.ok()) << batch.status();
    // Placed among the left batches at about the same event time (both advance together), after
    // the right batches before it (the right input stays in its order).
    place = std::min(arrivals.size(),
                     std::max(place, static_cast<size_t>(at) * arrivals.size() / 1500 + rng() % 3));
    for (auto& b : *batch) arrivals.insert(arrivals.begin() + static_cast<long>(place++), {std::move(b), true});
    at += n;
  }
  for (const char* q : {
           "SELECT l.k, l.v, r.w FROM input l JOIN right_input r ON l.k = r.k AND r.ts BETWEEN l.ts - INTERVAL '2' "
           "SECOND AND l.ts + INTERVAL '1' SECOND",
           "SELECT l.v + r.w AS s, r.k FROM input AS l JOIN right_input AS r ON r.ts BETWEEN l.ts - INTERVAL '300' "
           "MILLISECOND AND l.ts + INTERVAL '300' MILLISECOND WHERE l.d > 1000",
       }) {
    SCOPED_TRACE(q);
    const auto expected = Oracle(q);
    ASSERT_FALSE(expected.empty());
    const size_t restart_at = seed_ % arrivals.size();
    auto made = ContinuousQuery::Make(db_.get(), q);
    ASSERT_TRUE(made.ok()) << made.status();
    std::unique_ptr<ContinuousQuery> query = std::move(*made);
    int64_t max_left = INT64_MIN, max_right = INT64_MIN;
    std::vector<std::string> out;
    for (size_t i = 0; i < arrivals.size(); ++i) {
      if (i == restart_at) {
        auto restored = ContinuousQuery::Make(db_.get(), q, query->Checkpoint());
        ASSERT_TRUE(restored.ok()) << restored.status();
        query = std::move(*restored);
      }
      const auto& [batch, right] = arrivals[i];
      auto rows = right ? query->AddRight(batch) : query->Add(batch);
      ASSERT_TRUE(rows.ok()) << rows.status();
      for (const auto& r : *rows) out.push_back(Text(r));
      auto times = ScalarsOf(batch->Column(batch->num_columns() - 1));
      ASSERT_TRUE(times.ok());
      for (const auto& t : *times) (right ? max_right : max_left) = std::max(right ? max_right : max_left, t.int_value());
      if (max_left != INT64_MIN && max_right != INT64_MIN) {
        ASSERT_TRUE(query->Evict(std::min(max_left, max_right) - kBoundMs * 1000).ok());
      }
    }
    std::sort(out.begin(), out.end());
    std::vector<std::string> missing, extra;
    std::set_difference(expected.begin(), expected.end(), out.begin(), out.end(), std::back_inserter(missing));
    std::set_difference(out.begin(), out.end(), expected.begin(), expected.end(), std::back_inserter(extra));
    EXPECT_TRUE(missing.empty() && extra.empty())
        << missing.size() << " rows missing (first " << (missing.empty() ? "" : missing[0]) << "), " << extra.size()
        << " extra (first " << (extra.empty() ? "" : extra[0]) << "); checkpointed and restored before batch "
        << restart_at;
  }
}

// A primary-key table's changelog as the input: inserts, updates (the row before retracted, the
// row after added) and deletes (retracted) in random batches. Aggregates without a window must
// end equal to DuckDB's answer over the rows left at the end.
class ChangelogDifferentialTest : public DifferentialTest {
 protected:
  struct Change {
    int64_t weight;
    int64_t id;
    std::string k;
    std::optional<int64_t> v;
    double d;
  };

  void SetUp() override {
    DifferentialTest::SetUp();
    std::mt19937_64 rng(seed_ + 1);
    std::map<int64_t, Change> current;
    std::vector<Change> changes;
    for (int i = 0; i < 1500; ++i) {
      const int64_t id = static_cast<int64_t>(rng() % 300);
      auto it = current.find(id);
      if (it != current.end()) {
        Change before = it->second;
        before.weight = -1;
        changes.push_back(before);
        current.erase(it);
        if (rng() % 4 == 0) continue;  // a delete
      }
      Change after{1, id, std::string(1, static_cast<char>('a' + rng() % 4)),
                   rng() % 11 == 0 ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(rng() % 61) - 30),
                   static_cast<double>(rng() % 8000) / 4.0};
      changes.push_back(after);
      current[id] = after;
    }
    // Batches of one weight, in order, as a changelog reader hands them over.
    size_t at = 0;
    while (at < changes.size()) {
      const int64_t weight = changes[at].weight;
      size_t end = at;
      const size_t most = at + 1 + rng() % 50;
      while (end < changes.size() && end < most && changes[end].weight == weight) ++end;
      std::string values;
      for (size_t i = at; i < end; ++i) {
        const Change& c = changes[i];
        values += (i > at ? "," : "") + std::string("(") + std::to_string(c.id) + ", '" + c.k + "', " +
                  (c.v ? std::to_string(*c.v) : "NULL") + ", " + std::to_string(c.d) + ")";
      }
      auto batch = oracle_->Collect("SELECT * FROM (VALUES " + values + ") t(id, k, v, d)");
      ASSERT_TRUE(batch.ok()) << batch.status();
      for (auto& b : *batch) weighted_.emplace_back(std::move(b), weight);
      at = end;
    }
    std::string rows;
    for (const auto& [id, c] : current) {
      rows += (rows.empty() ? "" : ",") + std::string("(") + std::to_string(id) + ", '" + c.k + "', " +
              (c.v ? std::to_string(*c.v) : "NULL") + ", " + std::to_string(c.d) + ")";
    }
    ASSERT_TRUE(oracle_->Run("CREATE TABLE final_rows AS SELECT * FROM (VALUES " + rows + ") t(id, k, v, d)").ok());
  }

  void CompareChangelog(const std::string& query) {
    SCOPED_TRACE(query);
    std::string oracle = query;
    oracle.replace(oracle.find("FROM changes"), 12, "FROM final_rows");
    const auto expected = Oracle(oracle);
    auto made = ContinuousQuery::Make(db_.get(), query);
    ASSERT_TRUE(made.ok()) << made.status();
    std::unique_ptr<ContinuousQuery> q = std::move(*made);
    std::map<std::string, std::string> state;
    const size_t restart_at = seed_ % weighted_.size();
    for (size_t i = 0; i < weighted_.size(); ++i) {
      if (i == restart_at) {
        auto restored = ContinuousQuery::Make(db_.get(), query, q->Checkpoint());
        ASSERT_TRUE(restored.ok()) << restored.status();
        q = std::move(*restored);
      }
      ASSERT_TRUE(q->Add(weighted_[i].first, weighted_[i].second).ok());
      for (const auto& c : q->TakeChanges()) {
        if (c.before) state.erase(Text(*c.before));
        if (c.after) state[Text(*c.after)] = Text(*c.after);
      }
    }
    std::vector<std::string> out;
    for (const auto& [k, v] : state) out.push_back(v);
    std::sort(out.begin(), out.end());
    EXPECT_EQ(out, expected) << "checkpointed and restored before batch " << restart_at;
  }

  std::vector<std::pair<arrow::RecordBatchPtr, int64_t>> weighted_;
};

TEST_F(ChangelogDifferentialTest, AggregatesStayExactUnderRetractions) {
  for (const char* q : {
           "SELECT k, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v) FROM changes GROUP BY k",
           "SELECT k, AVG(d), COUNT(DISTINCT v), MIN(d), MAX(d) FROM changes GROUP BY k",
           "SELECT COUNT(*) AS n, SUM(d) AS total, MAX(v) AS top FROM changes",
           "SELECT v % 2 AS parity, COUNT(*), SUM(d) FROM changes WHERE d > 500 GROUP BY v % 2",
       }) {
    CompareChangelog(q);
  }
}

}  // namespace
}  // namespace mink::stream
