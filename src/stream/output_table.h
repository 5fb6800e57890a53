#pragma once
// OutputTable: the Mink table a stream or materialised view writes, `continuous.<name>`
// (docs/streaming-sql.md, Output tables). Its layout follows the query's shape:
//   - an aggregate without a window (a view, or a stream that EMITs CHANGES) is a primary-key
//     table keyed by its GROUP BY keys, each row the key's current answer; an aggregate without
//     keys has one row, under a hidden key column `__key` (always 0);
//   - a windowed aggregate is a primary-key table keyed by its keys and the window's start when
//     it is a view, and a log of the closed windows when it is a stream;
//   - a projection is a log table.
// Column types come from DuckDB: the per-batch query's columns over the input's schema give the
// keys' and the aggregates' arguments' types; a window bound is a TIMESTAMP of the precision its
// sizes need (TIMESTAMP(0) for whole seconds, (3) for milliseconds, else (6)); COUNT a BIGINT; the
// SUM of DECIMAL(p, s) a DECIMAL(38, s), of other non-integers a DOUBLE; AVG a DOUBLE (as DuckDB's).

#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "sql/database.h"
#include "stream/continuous_query.h"
#include "stream/query_shape.h"
#include "table/descriptor.h"
#include "table/table_store.h"
#include "table/types.h"
#include "table/value.h"

namespace mink::stream {

inline constexpr char kOutputDatabase[] = "continuous";
inline constexpr char kHiddenKey[] = "__key";

// "continuous.<name>".
std::string OutputTableName(const std::string& object);

struct OutputLayout {
  std::vector<std::string> names;           // the query's columns, in order
  std::vector<table::LogicalType> types;    // of each
  std::vector<int64_t> divisors;            // a window bound's microseconds / this = its value
  std::vector<std::string> primary_key;     // empty: a log table
  bool hidden_key = false;                  // the table has `__key` first

  bool keyed() const { return !primary_key.empty(); }
  // The create-table request of the table.
  table::TableSpec Spec() const;
  // Rows of the query's answer as an Arrow batch of the table (with `__key` when hidden).
  Result<arrow::RecordBatchPtr> ToBatch(const std::vector<Row>& rows) const;
  // Only the primary key's columns of `rows` (a delete's batch).
  Result<arrow::RecordBatchPtr> KeysBatch(const std::vector<Row>& rows) const;
};

// The layout of a stream's (`is_view` false) or view's output; InvalidArgument naming what does
// not fit a table (a view whose select list leaves out a GROUP BY key or the window's start; a
// type Mink cannot store). `session` has the input registered under the query's source name
// (an empty batch of its schema is enough).
Result<OutputLayout> LayoutOf(sql::Session& session, const QueryShape& shape, bool is_view);

// The layout of an existing output table (what a sink of it reads): its columns but the hidden
// key, its primary key.
Result<OutputLayout> LayoutOfTable(const table::TableStore& tables, const std::string& table);

// The layout of a log table holding rows of `schema` as they are (a stream's late rows);
// InvalidArgument naming a column of a type Mink cannot store.
Result<OutputLayout> LayoutOfRows(const arrow::Schema& schema);

// The Mink type of an Arrow type DuckDB answers with.
Result<table::LogicalType> LogicalTypeOfArrow(const arrow::DataType& type);

// A Scalar as a Value of `type`.
table::Value ValueOf(const Scalar& scalar, const table::LogicalType& type);

}  // namespace mink::stream
