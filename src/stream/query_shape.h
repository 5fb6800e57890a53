#pragma once
// QueryShape: what a continuous query does, read from DuckDB's parse of it (json_serialize_sql;
// decision 0014): its source, its group keys, its window (`tumble(ts, size [, offset])`,
// `hop(ts, slide, size)`, `session(ts, gap)` in GROUP BY), its aggregates and what each column
// of the select list is. It also gives the per-batch query that evaluates, over a batch of the
// source registered under the source's name, everything the incremental operators take as
// plain columns: the keys (k0, k1, ...), the event time in microseconds (__time) and the
// aggregates' arguments (a0, a1, ...), with the query's WHERE applied. DuckDB turns the parse
// tree back into SQL (json_deserialize_sql), so any expression DuckDB evaluates may appear.
//
// A query without GROUP BY and aggregates is a projection: its per-batch query is the query.

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "sql/database.h"
#include "stream/accumulator.h"
#include "stream/window_aggregate.h"

namespace mink::stream {

// The column a batch's rows are numbered in for numbered_batch_sql.
inline constexpr char kRowNumber[] = "__row";

struct ShapeOutput {
  enum class Kind { kKey, kWindowStart, kWindowEnd, kAggregate, kProjected };
  std::string name;  // the column's name in the result (its alias, else DuckDB's name for it)
  Kind kind = Kind::kProjected;
  int index = 0;  // of the key or the aggregate
};

struct QueryShape {
  std::string source;  // the FROM table's name
  std::vector<std::string> keys;            // the group keys' SQL, the window's excepted
  std::optional<WindowSpec> window;         // sizes in microseconds
  std::vector<AggregateKind> aggregates;
  std::vector<std::string> arguments;       // SQL of each aggregate's argument ("" for COUNT(*))
  std::vector<ShapeOutput> outputs;         // the select list, in order
  std::string batch_sql;                    // the per-batch query (above)
  // A windowed query's per-batch query with one more column last, kRowNumber: the row's number
  // in a batch registered with that column (ContinuousQuery keeps late rows by it).
  std::string numbered_batch_sql;

  // A temporal join (`JOIN db.t FOR SYSTEM_TIME AS OF s.ts AS c ON c.id = s.customer ...`): each
  // batch's rows look up the primary-key table `lookup_table` by its columns `lookup_columns`,
  // whose values the per-batch query `lookup_sql` gives (distinct rows); the rows found are the
  // view `__lookup` that batch_sql joins (the join's table is renamed to it).
  std::string lookup_table;
  std::vector<std::string> lookup_columns;
  std::string lookup_sql;

  // An interval join of two sources or streams (`FROM a JOIN b ON a.k = b.k AND b.ts BETWEEN
  // a.ts - INTERVAL ... AND a.ts + INTERVAL ...`): the right input, each side's event-time
  // column, and the farthest apart in time two joined rows may be (µs): a buffered row older than
  // the watermark minus that can meet no new row.
  struct IntervalJoin {
    std::string right_source;
    std::string left_time, right_time;
    int64_t bound = 0;
  };
  std::optional<IntervalJoin> interval_join;

  bool aggregated() const { return !aggregates.empty() || !keys.empty() || window.has_value(); }
};

// The shape of `query` (one SELECT over one source); InvalidArgument naming what a continuous
// query cannot do (a select item that is neither a group key, the window nor an aggregate; an
// unsupported aggregate; a join other than a temporal join of a table; ORDER BY or LIMIT; a
// window's size that is not a positive constant interval).
Result<QueryShape> ShapeOf(sql::Session& session, const std::string& query);

// Microseconds of constant interval `sql` ("INTERVAL '10' SECOND"), as DuckDB evaluates it;
// InvalidArgument naming `what` when it is not one.
Result<int64_t> IntervalMicros(sql::Session& session, const std::string& sql, const std::string& what);

}  // namespace mink::stream
