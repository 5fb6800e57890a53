#include "stream/pipeline.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "arrow_json/arrow_to_json.h"
#include "base/log.h"
#include "table/arrow_rows.h"

namespace mink::stream {
namespace {

using json = nlohmann::json;

json PositionsJson(const Positions& p) {
  json out = json::object();
  for (const auto& [k, v] : p) out[k] = v;
  return out;
}

Positions PositionsOf(const json& j) {
  Positions out;
  if (!j.is_object()) return out;
  for (const auto& [k, v] : j.items()) out[k] = v.get<int64_t>();
  return out;
}

int32_t Sequence(int64_t epoch, bool deletes) { return static_cast<int32_t>((epoch * 2 + (deletes ? 1 : 0)) & 0x7fffffff); }

}  // namespace

std::string PipelineStateKey(const std::string& name, int64_t epoch, int32_t node_id) {
  return "continuous/" + name + "/" + std::to_string(epoch) + "-n" + std::to_string(node_id);
}

Pipeline::~Pipeline() = default;

Result<std::unique_ptr<Pipeline>> Pipeline::Open(const std::string& name, const PipelineContext& context) {
  std::unique_ptr<Pipeline> p(new Pipeline(name, context));
  MINK_RETURN_IF_ERROR(p->Load());
  return p;
}

Status Pipeline::Load() {
  metadata::ContinuousObjectState object;
  std::map<std::string, metadata::ContinuousObjectState> sinks;
  std::unique_ptr<PipelineInput> input;
  MINK_ASSIGN_OR_RETURN(session_, context_.db->Connect());
  MINK_RETURN_IF_ERROR(session_->Run("SET TimeZone = 'UTC'"));
  json definition, source_definition;
  std::string source;
  MINK_RETURN_IF_ERROR(context_.meta->Read([&](const metadata::State& st) -> Status {
    auto it = st.continuous().find(name_);
    if (it == st.continuous().end()) return NotFoundError(name_ + " does not exist");
    object = it->second;
    definition = json::parse(object.definition, nullptr, false);
    source = definition.value("source", "");
    if (auto s = st.continuous().find(source); s != st.continuous().end()) {
      source_definition = json::parse(s->second.definition, nullptr, false);
      if (s->second.kind != "source") source_definition = json::object();
    }
    for (const auto& [n, o] : st.continuous()) {
      if (o.kind == "sink" && !o.inputs.empty() && o.inputs[0] == name_) sinks[n] = o;
    }
    MINK_ASSIGN_OR_RETURN(input, MakeInput(st, source, context_.tables, session_.get()));
    return Status::Ok();
  }));
  if (object.kind != "stream" && object.kind != "view") return InvalidArgumentError(name_ + " is not a stream or view");
  view_ = object.kind == "view";
  input_ = std::move(input);

  const json progress = object.progress.empty() ? json::object() : json::parse(object.progress, nullptr, false);
  stats_.epoch = object.epoch;
  positions_ = PositionsOf(progress.value("positions", json::object()));
  next_ = PositionsOf(progress.value("next", json::object()));
  stats_.watermark = progress.value("watermark", INT64_MIN);
  stats_.late_rows = progress.value("late_rows", int64_t{0});
  stats_.skipped_records = progress.value("skipped_records", int64_t{0});
  skipped_before_ = stats_.skipped_records;
  stats_.rows_in = progress.value("rows_in", int64_t{0});
  stats_.rows_out = progress.value("rows_out", int64_t{0});
  state_key_ = progress.value("state", "");
  if (progress.contains("writers")) {
    for (const auto& [table, id] : progress["writers"].items()) writers_[table] = id.get<int64_t>();
  }

  std::string checkpoint;
  if (!state_key_.empty()) {
    MINK_ASSIGN_OR_RETURN(checkpoint, context_.store->Get(state_key_));
  }
  MINK_ASSIGN_OR_RETURN(query_, ContinuousQuery::Make(context_.db, definition.value("query", ""), checkpoint));
  MINK_RETURN_IF_ERROR(session_->RegisterBatches(source, input_->schema(), {}));
  MINK_ASSIGN_OR_RETURN(layout_, LayoutOf(*session_, query_->shape(), view_));

  // The watermark: the source's declaration; a GENERATOR's rows come in order (its ts).
  std::optional<WatermarkDef> declared;
  if (source_definition.contains("watermark")) {
    declared = WatermarkDef{source_definition["watermark"].value("column", ""),
                            source_definition["watermark"].value("expression", "")};
  } else if (source_definition.value("connector", "") == "GENERATOR") {
    declared = WatermarkDef{"ts", ""};
  }
  if (declared) {
    MINK_ASSIGN_OR_RETURN(watermark_, SourceWatermark::Make(context_.db, source, *declared, input_->schema()));
    watermark_->Restore(stats_.watermark);
  }

  for (const auto& [sink_name, o] : sinks) {
    const json d = json::parse(o.definition, nullptr, false);
    const json options = d.value("options", json::object());
    SinkTarget target;
    if (d.value("connector", "") == "KAFKA") {
      target.table = "kafka." + options.value("topic", "");
      target.kafka = true;
    } else {
      target.table = options.value("table", "");
    }
    sinks_.push_back(target);
  }
  return Status::Ok();
}

Result<int64_t> Pipeline::WriterOf(const std::string& table) {
  auto it = writers_.find(table);
  if (it != writers_.end()) return it->second;
  MINK_ASSIGN_OR_RETURN(int64_t id, context_.tables->InitWriter());
  writers_[table] = id;
  return id;
}

Result<bool> Pipeline::RunEpoch() {
  const int64_t now = context_.clock->NowMillis();
  if (stats_.epoch == 0 || writers_.size() < sinks_.size() + 1) {
    // The first commit fixes the start, the first epoch's end and the writers, before any
    // output exists: a crash before it starts afresh with nothing written.
    if (stats_.epoch == 0) {
      MINK_ASSIGN_OR_RETURN(positions_, input_->Start());
      MINK_ASSIGN_OR_RETURN(next_, input_->End(positions_, now));
    }
    MINK_RETURN_IF_ERROR(WriterOf(OutputTableName(name_)).status());
    for (auto& s : sinks_) MINK_RETURN_IF_ERROR(WriterOf(s.table).status());
    MINK_RETURN_IF_ERROR(Commit(state_key_));
    return true;
  }
  for (auto& s : sinks_) s.writer = writers_.at(s.table);
  if (positions_ == next_) {
    // Nothing promised: promise what has arrived since.
    MINK_ASSIGN_OR_RETURN(Positions end, input_->End(positions_, now));
    if (end == positions_) return false;
    next_ = std::move(end);
    MINK_RETURN_IF_ERROR(Commit(state_key_));
  }

  const int64_t epoch = stats_.epoch + 1;
  std::vector<Row> upserts, deletes;
  MINK_RETURN_IF_ERROR(input_->Read(positions_, next_, [&](const InputBatch& in) -> Status {
    stats_.rows_in += in.batch->num_rows();
    if (watermark_) MINK_RETURN_IF_ERROR(watermark_->Observe(in.batch).status());
    if (!query_->shape().aggregated() && in.weight < 0) return Status::Ok();  // a projection passes additions on
    MINK_ASSIGN_OR_RETURN(auto rows, query_->Add(in.batch, in.weight));
    for (auto& r : rows) upserts.push_back(std::move(r));
    return Status::Ok();
  }));
  if (query_->shape().window) {
    if (watermark_) upserts = query_->Advance(watermark_->watermark());
    // The windows one epoch closes, ordered by their columns (key, then window): the order
    // does not depend on how the input fell into epochs' batches.
    std::sort(upserts.begin(), upserts.end());
  } else if (query_->shape().aggregated()) {
    for (auto& change : query_->TakeChanges()) {
      if (change.after) {
        upserts.push_back(std::move(*change.after));
      } else if (change.before) {
        deletes.push_back(std::move(*change.before));
      }
    }
  }
  MINK_RETURN_IF_ERROR(WriteOutput(upserts, deletes));
  for (const auto& s : sinks_) MINK_RETURN_IF_ERROR(WriteSink(s, upserts, deletes));
  if (context_.fault) MINK_RETURN_IF_ERROR(context_.fault("written"));
  stats_.rows_out += static_cast<int64_t>(upserts.size() + deletes.size());
  stats_.late_rows = query_->late_rows();
  if (skipped_before_ + input_->skipped() > stats_.skipped_records) {
    MINK_LOG_WARN("stream", "{}: skipped {} input records that are not JSON objects of the source's columns (epoch {})",
                  name_, skipped_before_ + input_->skipped() - stats_.skipped_records, epoch);
  }
  stats_.skipped_records = skipped_before_ + input_->skipped();
  if (watermark_) stats_.watermark = watermark_->watermark();

  std::string state_key;
  const std::string state = query_->Checkpoint();
  if (!state.empty()) {
    state_key = PipelineStateKey(name_, epoch, context_.node_id);
    MINK_RETURN_IF_ERROR(context_.store->Put(state_key, state));
  }
  positions_ = next_;
  MINK_ASSIGN_OR_RETURN(next_, input_->End(positions_, context_.clock->NowMillis()));
  const std::string previous = state_key_;
  MINK_RETURN_IF_ERROR(Commit(state_key));
  if (!previous.empty() && previous != state_key) {
    Status deleted = context_.store->Delete(previous);
    if (!deleted.ok()) MINK_LOG_WARN("stream", "{}: the state object {} stays: {}", name_, previous, deleted.ToString());
  }
  return true;
}

Status Pipeline::WriteOutput(const std::vector<Row>& upserts, const std::vector<Row>& deletes) {
  const std::string table = OutputTableName(name_);
  const int64_t writer = writers_.at(table);
  const int64_t epoch = stats_.epoch + 1;
  if (!upserts.empty()) {
    MINK_ASSIGN_OR_RETURN(auto batch, layout_.ToBatch(upserts));
    table::WriteRequest request;
    request.table = table;
    request.writer_id = writer;
    request.sequence = Sequence(epoch, false);
    MINK_RETURN_IF_ERROR(context_.tables->Write(request, {batch}).status().WithContext("writing " + table));
  }
  if (!deletes.empty() && layout_.keyed()) {
    MINK_ASSIGN_OR_RETURN(auto batch, layout_.KeysBatch(deletes));
    table::WriteRequest request;
    request.table = table;
    request.mode = table::WriteMode::kDelete;
    request.writer_id = writer;
    request.sequence = Sequence(epoch, true);
    MINK_RETURN_IF_ERROR(context_.tables->Write(request, {batch}).status().WithContext("deleting from " + table));
  }
  return Status::Ok();
}

Status Pipeline::WriteSink(const SinkTarget& sink, const std::vector<Row>& upserts, const std::vector<Row>& deletes) {
  const int64_t epoch = stats_.epoch + 1;
  if (upserts.empty() && deletes.empty()) return Status::Ok();
  table::WriteRequest request;
  request.table = sink.table;
  request.writer_id = sink.writer;
  request.sequence = Sequence(epoch, false);
  if (!sink.kafka) {
    if (upserts.empty()) return Status::Ok();
    MINK_ASSIGN_OR_RETURN(auto batch, layout_.ToBatch(upserts));
    if (layout_.hidden_key) {
      // The sink's table has the query's columns only.
      std::vector<arrow::Field> fields(batch->schema()->fields().begin() + 1, batch->schema()->fields().end());
      std::vector<arrow::ArrayDataPtr> columns(batch->columns().begin() + 1, batch->columns().end());
      MINK_ASSIGN_OR_RETURN(batch, arrow::RecordBatch::Make(std::make_shared<arrow::Schema>(std::move(fields)),
                                                            batch->num_rows(), std::move(columns)));
    }
    return context_.tables->Write(request, {batch}).status().WithContext("sink into " + sink.table);
  }
  // A Kafka record per row: the row as a JSON object; a view's key as the record's key (a
  // deleted row: its key and no value, a tombstone).
  MINK_ASSIGN_OR_RETURN(auto topic, context_.tables->Resolve(sink.table));
  std::vector<table::Row> records;
  const int64_t now = context_.clock->NowMillis();
  auto append = [&](const std::vector<Row>& rows, bool tombstones) -> Status {
    if (rows.empty()) return Status::Ok();
    MINK_ASSIGN_OR_RETURN(auto values, layout_.ToBatch(rows));
    std::vector<arrow::Field> fields;
    std::vector<arrow::ArrayDataPtr> columns;
    for (int c = layout_.hidden_key ? 1 : 0; c < values->num_columns(); ++c) {
      fields.push_back(values->schema()->field(c));
      columns.push_back(values->Column(c));
    }
    MINK_ASSIGN_OR_RETURN(auto shown, arrow::RecordBatch::Make(std::make_shared<arrow::Schema>(std::move(fields)),
                                                               values->num_rows(), std::move(columns)));
    MINK_ASSIGN_OR_RETURN(auto row_json, arrow_json::RowFormatter::Make(*shown));
    std::optional<arrow_json::RowFormatter> key_json;
    if (layout_.keyed() && !layout_.hidden_key) {
      MINK_ASSIGN_OR_RETURN(auto keys, layout_.KeysBatch(rows));
      MINK_ASSIGN_OR_RETURN(key_json, arrow_json::RowFormatter::Make(*keys));
    }
    for (int64_t i = 0; i < shown->num_rows(); ++i) {
      table::Row record(topic->types.size());
      if (key_json) {
        std::string key;
        key_json->AppendJsonRow(i, &key);
        record[0] = table::Value::Bytes(std::move(key));
      }
      if (!tombstones) {
        std::string value;
        row_json.AppendJsonRow(i, &value);
        record[1] = table::Value::Bytes(std::move(value));
      }
      record[2] = table::Value::List({});
      record[3] = table::Value::Int(now);
      records.push_back(std::move(record));
    }
    return Status::Ok();
  };
  MINK_RETURN_IF_ERROR(append(upserts, false));
  MINK_RETURN_IF_ERROR(append(deletes, true));
  std::vector<const table::Row*> pointers;
  for (const auto& r : records) pointers.push_back(&r);
  MINK_ASSIGN_OR_RETURN(auto batch, table::RowsToBatch(pointers, topic->schema, topic->types));
  return context_.tables->Write(request, {batch}).status().WithContext("sink into " + sink.table);
}

Status Pipeline::Commit(const std::string& state_key) {
  json writers = json::object();
  for (const auto& [t, id] : writers_) writers[t] = id;
  const json progress = {{"positions", PositionsJson(positions_)},
                         {"next", PositionsJson(next_)},
                         {"watermark", stats_.watermark},
                         {"state", state_key},
                         {"writers", writers},
                         {"late_rows", stats_.late_rows},
                         {"skipped_records", stats_.skipped_records},
                         {"rows_in", stats_.rows_in},
                         {"rows_out", stats_.rows_out},
                         {"node", context_.node_id}};
  MINK_RETURN_IF_ERROR(context_.meta
                           ->Append(metadata::Command(
                               metadata::CommitContinuousProgress{name_, stats_.epoch + 1, progress.dump()}))
                           .status());
  ++stats_.epoch;
  state_key_ = state_key;
  return Status::Ok();
}

}  // namespace mink::stream
