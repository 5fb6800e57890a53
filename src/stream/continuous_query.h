#pragma once
// ContinuousQuery: one continuous query fed with batches of its source. Each batch is
// registered in a DuckDB session under the source's name and the query's per-batch query
// (query_shape.h) turns it into the operator's columns; the operator keeps the state:
//   - a windowed aggregate (WindowAggregate): Advance(watermark) gives the closed windows' rows;
//   - an aggregate without a window (KeyedAggregate): TakeChanges gives each changed key's row
//     before and after;
//   - a projection: Add answers the batch's rows at once.
// Rows come out in the select list's order as Scalars. Event time is the window's time
// argument in microseconds; the highest seen is what a watermark is computed from.
//
// Not thread-safe: one pipeline owns it (and its DuckDB session).

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "sql/database.h"
#include "stream/keyed_aggregate.h"
#include "stream/query_shape.h"
#include "stream/window_aggregate.h"

namespace mink::stream {

using Row = std::vector<Scalar>;

// What a windowed query does with a row whose windows the watermark has closed (a late row;
// docs/streaming-sql.md, Late rows): it is dropped and counted, and with `keep` handed out by
// TakeLateRows. `allowed_lateness` (µs) keeps each window open that much longer after the
// watermark passes its end, so rows that late still count.
struct LatePolicy {
  int64_t allowed_lateness = 0;
  bool keep = false;
};

struct RowChange {
  std::optional<Row> before;  // none: a new row
  std::optional<Row> after;   // none: the row is gone
};

class ContinuousQuery {
 public:
  // `checkpoint`: the bytes Checkpoint gave, to continue from ("" starts empty).
  static Result<std::unique_ptr<ContinuousQuery>> Make(sql::Database* db, const std::string& query,
                                                       std::string_view checkpoint = {}, LatePolicy late = {});

  const QueryShape& shape() const { return shape_; }

  // A temporal join's lookups: the table's rows for a batch of keys (columns: the shape's
  // lookup_columns), answered with `schema`. Needed before Add when the shape has a lookup.
  using Lookup = std::function<Result<arrow::RecordBatchPtr>(const arrow::RecordBatchPtr& keys)>;
  void SetLookup(Lookup lookup, arrow::SchemaPtr schema) {
    lookup_ = std::move(lookup);
    lookup_schema_ = std::move(schema);
  }
  // The result's column names, in order.
  std::vector<std::string> columns() const;

  // Adds the rows of `batch` (columns of the source) with `weight` (+1 added, -1 retracted).
  // A projection's rows come back at once; an aggregate answers nothing here.
  Result<std::vector<Row>> Add(const arrow::RecordBatchPtr& batch, int64_t weight = 1);
  // An interval join: rows of the right input (Add takes the left's). Each new row is joined
  // with the other side's buffered rows (DuckDB runs the query over the two), then buffered, so
  // every pair of rows is joined once, when the later of the two arrives.
  Result<std::vector<Row>> AddRight(const arrow::RecordBatchPtr& batch);
  // An interval join: drops the buffered rows older than `watermark` minus its bound (the lower
  // of the two inputs' watermarks: no row to come can meet them).
  Status Evict(int64_t watermark);
  // A windowed query: the rows of the windows the watermark closes (those that ended before
  // the watermark minus the allowed lateness).
  std::vector<Row> Advance(int64_t watermark);
  // With LatePolicy::keep: the late rows added since the last call, as the source's batches
  // had them (a retraction that comes late is only counted).
  std::vector<arrow::RecordBatchPtr> TakeLateRows() { return std::exchange(late_batches_, {}); }
  // An aggregate without a window: the rows that changed since the last call.
  std::vector<RowChange> TakeChanges();

  // The highest event time seen (INT64_MIN before any row of a windowed query).
  int64_t max_event_time() const { return max_event_time_; }
  int64_t late_rows() const { return window_ ? window_->late_rows() : 0; }

  // The operator's state and the highest event time as checkpoint bytes
  // (docs/formats/continuous-state.md); "" for a projection, which keeps none.
  std::string Checkpoint() const;

 private:
  ContinuousQuery(std::unique_ptr<sql::Session> session, QueryShape shape, LatePolicy late);
  Status Restore(std::string_view checkpoint);
  Row Output(const std::vector<Scalar>& key, const std::optional<Window>& window, const Row& values) const;

  std::unique_ptr<sql::Session> session_;
  QueryShape shape_;
  std::unique_ptr<WindowAggregate> window_;
  std::unique_ptr<KeyedAggregate> keyed_;
  int64_t max_event_time_ = INT64_MIN;
  LatePolicy late_;
  std::vector<arrow::RecordBatchPtr> late_batches_;
  // Keeps the rows of the batch just added (registered numbered in kRowNumber) that `late` names.
  Status KeepLate(const std::vector<int64_t>& late);
  Lookup lookup_;
  arrow::SchemaPtr lookup_schema_;
  // An interval join's buffered rows of each side (empty: none yet).
  struct Buffer {
    arrow::SchemaPtr schema;
    std::vector<arrow::RecordBatchPtr> batches;
  };
  Buffer left_, right_;
  Result<std::vector<Row>> Join(const arrow::RecordBatchPtr& batch, bool right);
  Status RestoreJoin(std::string_view checkpoint);
};

}  // namespace mink::stream
