#include "stream/continuous_query.h"

#include <algorithm>

#include "arrow_format/builder.h"
#include "arrow_format/ipc.h"
#include "sql/quote.h"
#include "stream/checkpoint_bytes.h"

namespace mink::stream {
Result<std::unique_ptr<ContinuousQuery>> ContinuousQuery::Make(sql::Database* db, const std::string& query,
                                                               std::string_view checkpoint, LatePolicy late) {
  MINK_ASSIGN_OR_RETURN(auto session, db->Connect());
  MINK_RETURN_IF_ERROR(session->UseTimeZone("UTC"));
  MINK_ASSIGN_OR_RETURN(QueryShape shape, ShapeOf(*session, query));
  std::unique_ptr<ContinuousQuery> q(new ContinuousQuery(std::move(session), std::move(shape), late));
  if (!checkpoint.empty()) MINK_RETURN_IF_ERROR(q->Restore(checkpoint));
  return q;
}

namespace {

inline constexpr char kJoinMagic[] = "MKIJ";

// A buffer's batches as an Arrow IPC stream ("" for none).
Result<std::string> BufferBytes(const arrow::SchemaPtr& schema, const std::vector<arrow::RecordBatchPtr>& batches) {
  if (schema == nullptr) return std::string();
  return arrow::WriteStream(schema, batches);
}

// `batch` with one more column last, kRowNumber: each row's number in it.
Result<arrow::RecordBatchPtr> Numbered(const arrow::RecordBatchPtr& batch) {
  std::vector<arrow::Field> fields = batch->schema()->fields();
  for (const auto& f : fields) {
    if (f.name() == kRowNumber) return InvalidArgumentError(std::string("a source column may not be named ") + kRowNumber);
  }
  fields.emplace_back(kRowNumber, arrow::Int64(), false);
  arrow::Int64Builder numbers;
  for (int64_t i = 0; i < batch->num_rows(); ++i) numbers.Append(i);
  MINK_ASSIGN_OR_RETURN(auto column, numbers.Finish());
  std::vector<arrow::ArrayDataPtr> columns = batch->columns();
  columns.push_back(std::move(column));
  return arrow::RecordBatch::Make(std::make_shared<arrow::Schema>(std::move(fields)), batch->num_rows(),
                                  std::move(columns));
}

// Whether any row of `batch` has its `time` column (a timestamp) at or after `cutoff` µs, or
// none: a batch is forgotten whole once every row of it is older (rows that stay longer can
// meet no new row either: the join's time condition leaves them out).
Result<bool> AnyRowFrom(const arrow::RecordBatchPtr& batch, const std::string& time, int64_t cutoff) {
  int column = -1;
  for (int c = 0; c < batch->num_columns(); ++c) {
    if (batch->schema()->field(c).name() == time) column = c;
  }
  if (column < 0) return InternalError("an interval join's input has no column " + time);
  const auto& type = *batch->schema()->field(column).type();
  int64_t num = 1, den = 1;  // the column's unit to microseconds
  if (type.id() == arrow::TypeId::kTimestamp) {
    switch (type.unit()) {
      case arrow::TimeUnit::kSecond: num = 1'000'000; break;
      case arrow::TimeUnit::kMilli: num = 1'000; break;
      case arrow::TimeUnit::kMicro: break;
      case arrow::TimeUnit::kNano: den = 1'000; break;
    }
  }
  MINK_ASSIGN_OR_RETURN(auto times, ScalarsOf(batch->Column(column)));
  for (const auto& t : times) {
    if (!t.is_int() || t.int_value() * num / den >= cutoff) return true;
  }
  return false;
}

}  // namespace

std::string ContinuousQuery::Checkpoint() const {
  std::string out;
  if (shape_.interval_join) {
    out = BeginCheckpoint(kJoinMagic);
    PutI64(&out, max_event_time_);
    for (const Buffer* b : {&left_, &right_}) {
      auto bytes = BufferBytes(b->schema, b->batches);
      const std::string body = bytes.ok() ? *bytes : std::string();
      PutU32(&out, static_cast<uint32_t>(body.size()));
      out += body;
    }
    return SealCheckpoint(std::move(out));
  }
  if (!window_ && !keyed_) return out;
  PutI64(&out, max_event_time_);
  out += window_ ? window_->Checkpoint() : keyed_->Checkpoint();
  return out;
}

Status ContinuousQuery::RestoreJoin(std::string_view checkpoint) {
  MINK_ASSIGN_OR_RETURN(std::string_view body, OpenCheckpoint(checkpoint, kJoinMagic));
  ByteReader in(body);
  uint64_t max_time = 0;
  if (!in.ReadU64(&max_time)) return DataLossError("an interval join's checkpoint is cut short");
  max_event_time_ = static_cast<int64_t>(max_time);
  for (Buffer* b : {&left_, &right_}) {
    uint32_t size = 0;
    std::string_view bytes;
    if (!in.ReadU32(&size) || !in.ReadBytes(size, &bytes)) {
      return DataLossError("an interval join's checkpoint is cut short");
    }
    if (size == 0) continue;
    MINK_ASSIGN_OR_RETURN(auto contents, arrow::ReadStream(arrow::Buffer::FromString(std::string(bytes))));
    b->schema = contents.schema;
    b->batches = std::move(contents.batches);
  }
  return Status::Ok();
}

Status ContinuousQuery::Restore(std::string_view checkpoint) {
  if (shape_.interval_join) return RestoreJoin(checkpoint);
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

ContinuousQuery::ContinuousQuery(std::unique_ptr<sql::Session> session, QueryShape shape, LatePolicy late)
    : session_(std::move(session)), shape_(std::move(shape)), late_(late) {
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

Result<std::vector<Row>> ContinuousQuery::Join(const arrow::RecordBatchPtr& batch, bool right) {
  // The new rows on their side, the other side's buffer on the other; then the new rows are
  // buffered (an empty side's view has the new batch's schema only when it is that side).
  const Buffer& other = right ? left_ : right_;
  const std::string& this_name = right ? shape_.interval_join->right_source : shape_.source;
  const std::string& other_name = right ? shape_.source : shape_.interval_join->right_source;
  std::vector<Row> out;
  if (other.schema != nullptr) {
    MINK_RETURN_IF_ERROR(session_->RegisterBatches(this_name, batch->schema(), {batch}));
    MINK_RETURN_IF_ERROR(session_->RegisterBatches(other_name, other.schema, other.batches));
    MINK_ASSIGN_OR_RETURN(auto results, session_->Collect(shape_.batch_sql));
    for (const auto& r : results) {
      MINK_ASSIGN_OR_RETURN(auto rows, RowsOf(*r));
      for (auto& row : rows) out.push_back(std::move(row));
    }
  }
  Buffer& mine = right ? right_ : left_;
  if (mine.schema == nullptr) mine.schema = batch->schema();
  mine.batches.push_back(batch);
  return out;
}

Result<std::vector<Row>> ContinuousQuery::AddRight(const arrow::RecordBatchPtr& batch) {
  if (!shape_.interval_join) return InternalError("AddRight of a query that is not an interval join");
  return Join(batch, true);
}

Status ContinuousQuery::Evict(int64_t watermark) {
  if (!shape_.interval_join || watermark == INT64_MIN) return Status::Ok();
  const int64_t cutoff = watermark - shape_.interval_join->bound;
  for (auto [buffer, time] : {std::pair{&left_, &shape_.interval_join->left_time},
                              std::pair{&right_, &shape_.interval_join->right_time}}) {
    std::vector<arrow::RecordBatchPtr> kept;
    for (const auto& b : buffer->batches) {
      MINK_ASSIGN_OR_RETURN(bool live, AnyRowFrom(b, *time, cutoff));
      if (live) kept.push_back(b);
    }
    buffer->batches = std::move(kept);
  }
  return Status::Ok();
}

Result<std::vector<Row>> ContinuousQuery::Add(const arrow::RecordBatchPtr& batch, int64_t weight) {
  if (shape_.interval_join) {
    if (weight < 0) return InvalidArgumentError("an interval join takes additions only (its inputs are logs)");
    return Join(batch, false);
  }
  // Late rows are told apart by their numbers (only additions are kept: a late retraction's
  // row was late when it came).
  const bool numbered = late_.keep && window_ && weight > 0;
  arrow::RecordBatchPtr registered = batch;
  if (numbered) {
    MINK_ASSIGN_OR_RETURN(registered, Numbered(batch));
  }
  MINK_RETURN_IF_ERROR(session_->RegisterBatches(shape_.source, registered->schema(), {registered}));
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
  MINK_ASSIGN_OR_RETURN(auto results, session_->Collect(numbered ? shape_.numbered_batch_sql : shape_.batch_sql));
  std::vector<Row> out;
  std::vector<int64_t> late;
  const size_t keys = shape_.keys.size();
  const size_t time_column = keys;
  const size_t first_argument = keys + (window_ ? 1 : 0);
  for (const auto& r : results) {
    MINK_ASSIGN_OR_RETURN(auto rows, RowsOf(*r));
    for (auto& row : rows) {
      if (!shape_.aggregated()) {
        out.push_back(std::move(row));
        continue;
      }
      const Row key(row.begin(), row.begin() + static_cast<long>(keys));
      const Row inputs(row.begin() + static_cast<long>(first_argument), row.end() - (numbered ? 1 : 0));
      if (window_) {
        const Scalar& time = row[time_column];
        if (!time.is_int()) return InvalidArgumentError("a row's event time is null");
        max_event_time_ = std::max(max_event_time_, time.int_value());
        MINK_ASSIGN_OR_RETURN(bool counted, window_->Add(key, time.int_value(), inputs, weight));
        if (!counted && numbered) late.push_back(row.back().int_value());
      } else {
        MINK_RETURN_IF_ERROR(keyed_->Add(key, inputs, weight));
      }
    }
  }
  if (!late.empty()) MINK_RETURN_IF_ERROR(KeepLate(late));
  return out;
}

Status ContinuousQuery::KeepLate(const std::vector<int64_t>& late) {
  std::string numbers;
  for (int64_t n : late) numbers += (numbers.empty() ? "" : ", ") + std::to_string(n);
  MINK_ASSIGN_OR_RETURN(auto rows, session_->Collect(std::string("SELECT * EXCLUDE (") + kRowNumber + ") FROM " +
                                                     sql::QuoteIdentifier(shape_.source) + " WHERE " + kRowNumber +
                                                     " IN (" + numbers + ") ORDER BY " + kRowNumber));
  for (auto& b : rows) {
    if (b->num_rows() > 0) late_batches_.push_back(std::move(b));
  }
  return Status::Ok();
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
  // Windows stay open for the allowed lateness after the watermark passes their ends.
  const int64_t closing = watermark < INT64_MIN + late_.allowed_lateness ? INT64_MIN : watermark - late_.allowed_lateness;
  for (const auto& r : window_->Advance(closing)) out.push_back(Output(r.key, r.window, r.values));
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
