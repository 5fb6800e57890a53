#include "stream/continuous_query.h"

#include <algorithm>

namespace mink::stream {
Result<std::unique_ptr<ContinuousQuery>> ContinuousQuery::Make(sql::Database* db, const std::string& query,
                                                               std::string_view checkpoint) {
  MINK_ASSIGN_OR_RETURN(auto session, db->Connect());
  MINK_RETURN_IF_ERROR(session->Run("SET TimeZone = 'UTC'"));
  MINK_ASSIGN_OR_RETURN(QueryShape shape, ShapeOf(*session, query));
  std::unique_ptr<ContinuousQuery> q(new ContinuousQuery(std::move(session), std::move(shape)));
  if (!checkpoint.empty()) MINK_RETURN_IF_ERROR(q->Restore(checkpoint));
  return q;
}

std::string ContinuousQuery::Checkpoint() const {
  std::string out;
  if (!window_ && !keyed_) return out;
  PutI64(&out, max_event_time_);
  out += window_ ? window_->Checkpoint() : keyed_->Checkpoint();
  return out;
}

Status ContinuousQuery::Restore(std::string_view checkpoint) {
  if (!window_ && !keyed_) return InvalidArgumentError("a projection keeps no state to restore");
  if (checkpoint.size() < 8) return DataLossError("a continuous query's checkpoint is cut short");
  max_event_time_ = static_cast<int64_t>(LoadU64(checkpoint.data()));
  checkpoint.remove_prefix(8);
  if (window_) {
    MINK_ASSIGN_OR_RETURN(window_, WindowAggregate::Restore(checkpoint, *shape_.window, shape_.aggregates));
  } else {
    MINK_ASSIGN_OR_RETURN(keyed_, KeyedAggregate::Restore(checkpoint, shape_.aggregates));
  }
  return Status::Ok();
}

ContinuousQuery::ContinuousQuery(std::unique_ptr<sql::Session> session, QueryShape shape)
    : session_(std::move(session)), shape_(std::move(shape)) {
  if (shape_.window) {
    window_ = std::make_unique<WindowAggregate>(*shape_.window, shape_.aggregates);
  } else if (shape_.aggregated()) {
    keyed_ = std::make_unique<KeyedAggregate>(shape_.aggregates);
  }
}

std::vector<std::string> ContinuousQuery::columns() const {
  std::vector<std::string> out;
  for (const auto& o : shape_.outputs) out.push_back(o.name);
  return out;
}

Result<std::vector<Row>> ContinuousQuery::Add(const arrow::RecordBatchPtr& batch, int64_t weight) {
  MINK_RETURN_IF_ERROR(session_->RegisterBatches(shape_.source, batch->schema(), {batch}));
  if (!shape_.lookup_table.empty()) {
    // A temporal join: the table's rows for this batch's keys, as the view the query joins.
    if (!lookup_) return FailedPreconditionError("the temporal join of " + shape_.lookup_table + " has no lookup");
    MINK_ASSIGN_OR_RETURN(auto keys, session_->Collect(shape_.lookup_sql));
    std::vector<arrow::RecordBatchPtr> found;
    for (const auto& k : keys) {
      if (k->num_rows() == 0) continue;
      MINK_ASSIGN_OR_RETURN(auto rows, lookup_(k));
      if (rows != nullptr && rows->num_rows() > 0) found.push_back(std::move(rows));
    }
    MINK_RETURN_IF_ERROR(session_->RegisterBatches("__lookup", lookup_schema_, std::move(found)));
  }
  MINK_ASSIGN_OR_RETURN(auto results, session_->Collect(shape_.batch_sql));
  std::vector<Row> out;
  const size_t keys = shape_.keys.size();
  const size_t time_column = keys;
  const size_t first_argument = keys + (window_ ? 1 : 0);
  for (const auto& r : results) {
    std::vector<std::vector<Scalar>> columns;
    for (int c = 0; c < r->num_columns(); ++c) {
      MINK_ASSIGN_OR_RETURN(auto column, ScalarsOf(r->Column(c)));
      columns.push_back(std::move(column));
    }
    for (int64_t i = 0; i < r->num_rows(); ++i) {
      Row row;
      for (auto& column : columns) row.push_back(std::move(column[static_cast<size_t>(i)]));
      if (!shape_.aggregated()) {
        out.push_back(std::move(row));
        continue;
      }
      const Row key(row.begin(), row.begin() + static_cast<long>(keys));
      const Row inputs(row.begin() + static_cast<long>(first_argument), row.end());
      if (window_) {
        const Scalar& time = row[time_column];
        if (!time.is_int()) return InvalidArgumentError("a row's event time is null");
        max_event_time_ = std::max(max_event_time_, time.int_value());
        MINK_RETURN_IF_ERROR(window_->Add(key, time.int_value(), inputs, weight).status());
      } else {
        MINK_RETURN_IF_ERROR(keyed_->Add(key, inputs, weight));
      }
    }
  }
  return out;
}

Row ContinuousQuery::Output(const std::vector<Scalar>& key, const std::optional<Window>& window,
                            const Row& values) const {
  Row row;
  for (const auto& o : shape_.outputs) {
    switch (o.kind) {
      case ShapeOutput::Kind::kKey: row.push_back(key[static_cast<size_t>(o.index)]); break;
      case ShapeOutput::Kind::kWindowStart: row.push_back(Scalar::Int(window->start)); break;
      case ShapeOutput::Kind::kWindowEnd: row.push_back(Scalar::Int(window->end)); break;
      case ShapeOutput::Kind::kAggregate: row.push_back(values[static_cast<size_t>(o.index)]); break;
      case ShapeOutput::Kind::kProjected: row.emplace_back(); break;
    }
  }
  return row;
}

std::vector<Row> ContinuousQuery::Advance(int64_t watermark) {
  std::vector<Row> out;
  if (!window_) return out;
  for (const auto& r : window_->Advance(watermark)) out.push_back(Output(r.key, r.window, r.values));
  return out;
}

std::vector<RowChange> ContinuousQuery::TakeChanges() {
  std::vector<RowChange> out;
  if (!keyed_) return out;
  for (const auto& c : keyed_->TakeChanges()) {
    RowChange change;
    if (c.before) change.before = Output(c.key, std::nullopt, *c.before);
    if (c.after) change.after = Output(c.key, std::nullopt, *c.after);
    out.push_back(std::move(change));
  }
  return out;
}

}  // namespace mink::stream
