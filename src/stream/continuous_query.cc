#include "stream/continuous_query.h"

#include <cmath>
#include <cstring>

namespace mink::stream {
namespace {

template <typename T>
T Load(const arrow::ArrayData& column, int64_t row) {
  T v;
  std::memcpy(&v, column.buffers[1]->data() + row * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

bool Valid(const arrow::ArrayData& column, int64_t row) {
  if (column.null_count == 0 || column.buffers.empty() || column.buffers[0] == nullptr) return true;
  return (column.buffers[0]->data()[row / 8] >> (row % 8)) & 1;
}

}  // namespace

Result<Scalar> ScalarAt(const arrow::ArrayData& column, int64_t row) {
  using arrow::TypeId;
  if (column.type->id() == TypeId::kNull || !Valid(column, row)) return Scalar();
  switch (column.type->id()) {
    case TypeId::kBool: return Scalar::Int((column.buffers[1]->data()[row / 8] >> (row % 8)) & 1);
    case TypeId::kInt8: return Scalar::Int(Load<int8_t>(column, row));
    case TypeId::kInt16: return Scalar::Int(Load<int16_t>(column, row));
    case TypeId::kInt32:
    case TypeId::kDate32:
    case TypeId::kTime32: return Scalar::Int(Load<int32_t>(column, row));
    case TypeId::kInt64:
    case TypeId::kTime64:
    case TypeId::kTimestamp: return Scalar::Int(Load<int64_t>(column, row));
    case TypeId::kUInt8: return Scalar::Int(Load<uint8_t>(column, row));
    case TypeId::kUInt16: return Scalar::Int(Load<uint16_t>(column, row));
    case TypeId::kUInt32: return Scalar::Int(Load<uint32_t>(column, row));
    case TypeId::kUInt64: {
      const uint64_t v = Load<uint64_t>(column, row);
      if (v > static_cast<uint64_t>(INT64_MAX)) return Scalar::Double(static_cast<double>(v));
      return Scalar::Int(static_cast<int64_t>(v));
    }
    case TypeId::kFloat32: return Scalar::Double(Load<float>(column, row));
    case TypeId::kFloat64: return Scalar::Double(Load<double>(column, row));
    case TypeId::kDecimal128: {
      __int128 v;
      std::memcpy(&v, column.buffers[1]->data() + row * 16, 16);
      return Scalar::Double(static_cast<double>(v) / std::pow(10.0, column.type->scale()));
    }
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      const int32_t begin = Load<int32_t>(column, row), end = Load<int32_t>(column, row + 1);
      return Scalar::String(std::string(column.buffers[2]->data_as<char>() + begin, static_cast<size_t>(end - begin)));
    }
    default: break;
  }
  return InvalidArgumentError("a continuous query's keys and aggregate arguments cannot be " +
                              column.type->ToString());
}

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
  MINK_ASSIGN_OR_RETURN(auto results, session_->Collect(shape_.batch_sql));
  std::vector<Row> out;
  const size_t keys = shape_.keys.size();
  const size_t time_column = keys;
  const size_t first_argument = keys + (window_ ? 1 : 0);
  for (const auto& r : results) {
    for (int64_t i = 0; i < r->num_rows(); ++i) {
      Row row;
      for (int c = 0; c < r->num_columns(); ++c) {
        MINK_ASSIGN_OR_RETURN(Scalar v, ScalarAt(*r->Column(c), i));
        row.push_back(std::move(v));
      }
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
