#include "stream/pipeline.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/log.h"
#include "stream/external_kafka.h"
#include "stream/table_lookup.h"

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
  std::unique_ptr<PipelineInput> input;
  MINK_ASSIGN_OR_RETURN(session_, context_.db->Connect());
  MINK_RETURN_IF_ERROR(session_->UseTimeZone("UTC"));
  json definition;
  std::string source;
  MINK_RETURN_IF_ERROR(context_.meta->Read([&](const metadata::State& st) -> Status {
    auto it = st.continuous().find(name_);
    if (it == st.continuous().end()) return NotFoundError(name_ + " does not exist");
    object = it->second;
    definition = json::parse(object.definition, nullptr, false);
    // A sink reads the output table of the stream or view it sends on.
    source = object.kind == "sink" ? definition.value("from", "") : definition.value("source", "");
    MINK_ASSIGN_OR_RETURN(input, MakeInput(st, source, context_.tables, session_.get()));
    return Status::Ok();
  }));
  if (object.kind != "stream" && object.kind != "view" && object.kind != "sink") {
    return InvalidArgumentError(name_ + " is a " + object.kind + ": only streams, views and sinks run");
  }
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
  const json output = progress.value("output", json::object());

  if (object.kind == "sink") {
    // The rows of the stream's or view's table as they are, into the sink's target.
    MINK_ASSIGN_OR_RETURN(layout_, LayoutOfTable(*context_.tables, OutputTableName(source)));
    const json options = definition.value("options", json::object());
    const bool kafka = definition.value("connector", "") == "KAFKA";
    if (kafka && definition.value("external", false)) {
      MINK_ASSIGN_OR_RETURN(writer_, MakeExternalKafkaWriter(options.value("bootstrap.servers", ""),
                                                             options.value("topic", ""), layout_, context_.clock));
      return Status::Ok();
    }
    const std::string target = kafka ? "kafka." + options.value("topic", "") : options.value("table", "");
    MINK_ASSIGN_OR_RETURN(writer_, OutputWriter::Make(context_.tables, target, layout_, kafka,
                                                      output.value("writer", int64_t{-1}),
                                                      output.value("sequence", int64_t{0}), context_.clock));
    return Status::Ok();
  }

  std::string checkpoint;
  if (!state_key_.empty()) {
    MINK_ASSIGN_OR_RETURN(checkpoint, context_.store->Get(state_key_));
  }
  const std::string late_table = definition.value("late_table", "");
  const LatePolicy late{definition.value("allowed_lateness_us", int64_t{0}), !late_table.empty()};
  MINK_ASSIGN_OR_RETURN(query_, ContinuousQuery::Make(context_.db, definition.value("query", ""), checkpoint, late));
  if (late.keep) {
    const json late_output = progress.value("late_output", json::object());
    MINK_ASSIGN_OR_RETURN(OutputLayout late_layout, LayoutOfTable(*context_.tables, late_table));
    MINK_ASSIGN_OR_RETURN(late_writer_, OutputWriter::Make(context_.tables, late_table, std::move(late_layout), false,
                                                           late_output.value("writer", int64_t{-1}),
                                                           late_output.value("sequence", int64_t{0}), context_.clock));
  }
  MINK_RETURN_IF_ERROR(session_->RegisterBatches(source, input_->schema(), {}));
  if (!query_->shape().lookup_table.empty()) {
    MINK_ASSIGN_OR_RETURN(auto lookup, TableLookup::Make(context_.tables, query_->shape()));
    MINK_RETURN_IF_ERROR(session_->RegisterBatches("__lookup", lookup.schema, {}));
    query_->SetLookup(std::move(lookup.lookup), lookup.schema);
  }

  // The watermarks the sources declare; an interval join's right input and its own.
  std::optional<WatermarkDef> declared, declared_right;
  std::unique_ptr<PipelineInput> right;
  const auto& join = query_->shape().interval_join;
  MINK_RETURN_IF_ERROR(context_.meta->Read([&](const metadata::State& st) -> Status {
    declared = DeclaredWatermark(st, source);
    if (!join) return Status::Ok();
    declared_right = DeclaredWatermark(st, join->right_source);
    MINK_ASSIGN_OR_RETURN(right, MakeInput(st, join->right_source, context_.tables, session_.get()));
    return Status::Ok();
  }));
  if (declared) {
    MINK_ASSIGN_OR_RETURN(watermark_, SourceWatermark::Make(context_.db, source, *declared, input_->schema()));
    watermark_->Restore(stats_.watermark);
  }
  if (join) {
    if (!declared || !declared_right) return InvalidArgumentError(name_ + ": an interval join needs both inputs' watermarks");
    MINK_ASSIGN_OR_RETURN(right_watermark_,
                          SourceWatermark::Make(context_.db, join->right_source, *declared_right, right->schema()));
    right_watermark_->Restore(progress.value("right_watermark", INT64_MIN));
    MINK_RETURN_IF_ERROR(session_->RegisterBatches(join->right_source, right->schema(), {}));
    input_ = JoinInputs(std::move(input_), std::move(right));
  }
  MINK_ASSIGN_OR_RETURN(layout_, LayoutOf(*session_, query_->shape(), object.kind == "view"));
  // The table as created keeps its column types (one an earlier build made holds decimals as DOUBLE).
  MINK_ASSIGN_OR_RETURN(const OutputLayout stored, LayoutOfTable(*context_.tables, OutputTableName(name_)));
  if (stored.names == layout_.names) layout_.types = stored.types;
  MINK_ASSIGN_OR_RETURN(writer_, OutputWriter::Make(context_.tables, OutputTableName(name_), layout_, false,
                                                    output.value("writer", int64_t{-1}),
                                                    output.value("sequence", int64_t{0}), context_.clock));
  return Status::Ok();
}

Result<bool> Pipeline::RunEpoch() {
  const int64_t now = context_.clock->NowMillis();
  if (stats_.epoch == 0) {
    // The first commit fixes the start, the first epoch's end and the writer, before any
    // output exists: a crash before it starts afresh with nothing written.
    MINK_ASSIGN_OR_RETURN(positions_, input_->Start());
    MINK_ASSIGN_OR_RETURN(next_, input_->End(positions_, now));
    MINK_RETURN_IF_ERROR(writer_->Prepare());
    if (late_writer_) MINK_RETURN_IF_ERROR(late_writer_->Prepare());
    MINK_RETURN_IF_ERROR(Commit(state_key_));
    return true;
  }
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
    if (query_ == nullptr) return SinkRows(in, &upserts, &deletes);
    if (in.side == 1) {
      MINK_RETURN_IF_ERROR(right_watermark_->Observe(in.batch).status());
      MINK_ASSIGN_OR_RETURN(auto rows, query_->AddRight(in.batch));
      for (auto& r : rows) upserts.push_back(std::move(r));
      return Status::Ok();
    }
    if (watermark_) MINK_RETURN_IF_ERROR(watermark_->Observe(in.batch).status());
    if (!query_->shape().aggregated() && in.weight < 0) return Status::Ok();  // a projection passes additions on
    MINK_ASSIGN_OR_RETURN(auto rows, query_->Add(in.batch, in.weight));
    for (auto& r : rows) upserts.push_back(std::move(r));
    return Status::Ok();
  }));
  if (right_watermark_) {
    // An interval join forgets the rows no row to come can meet.
    MINK_RETURN_IF_ERROR(query_->Evict(std::min(watermark_->watermark(), right_watermark_->watermark())));
  }
  if (query_ != nullptr && query_->shape().window) {
    if (watermark_) upserts = query_->Advance(watermark_->watermark());
    // The windows one epoch closes, ordered by their columns (key, then window): the order
    // does not depend on how the input fell into epochs' batches.
    std::sort(upserts.begin(), upserts.end());
  } else if (query_ != nullptr && query_->shape().aggregated()) {
    for (auto& change : query_->TakeChanges()) {
      if (change.after) {
        upserts.push_back(std::move(*change.after));
      } else if (change.before) {
        deletes.push_back(std::move(*change.before));
      }
    }
  }
  if (late_writer_) {
    // The epoch's late rows, as the source had them.
    std::vector<Row> late;
    for (const auto& batch : query_->TakeLateRows()) {
      MINK_ASSIGN_OR_RETURN(auto rows, RowsOf(*batch));
      for (auto& r : rows) late.push_back(std::move(r));
    }
    if (!late.empty()) MINK_RETURN_IF_ERROR(late_writer_->Write(late, {}));
  }
  MINK_RETURN_IF_ERROR(writer_->Write(upserts, deletes));
  if (context_.fault) MINK_RETURN_IF_ERROR(context_.fault("written"));
  stats_.rows_out += static_cast<int64_t>(upserts.size() + deletes.size());
  if (query_ != nullptr) stats_.late_rows = query_->late_rows();
  if (skipped_before_ + input_->skipped() > stats_.skipped_records) {
    MINK_LOG_WARN("stream", "{}: skipped {} input records that are not JSON objects of the source's columns (epoch {})",
                  name_, skipped_before_ + input_->skipped() - stats_.skipped_records, epoch);
  }
  stats_.skipped_records = skipped_before_ + input_->skipped();
  if (watermark_) stats_.watermark = watermark_->watermark();

  std::string state_key;
  const std::string state = query_ != nullptr ? query_->Checkpoint() : std::string();
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

Status Pipeline::SinkRows(const InputBatch& in, std::vector<Row>* upserts, std::vector<Row>* deletes) {
  // A view's update retracts the row before (-U) and adds the row after (+U): only the row after
  // and the deletes (-D) go on.
  if (in.weight < 0 && !in.deleted) return Status::Ok();
  MINK_ASSIGN_OR_RETURN(auto rows, RowsOf(*in.batch));
  for (auto& row : rows) (in.weight < 0 ? deletes : upserts)->push_back(std::move(row));
  return Status::Ok();
}

Status Pipeline::Commit(const std::string& state_key) {
  json progress = {{"positions", PositionsJson(positions_)},
                         {"next", PositionsJson(next_)},
                         {"watermark", stats_.watermark},
                         {"right_watermark", right_watermark_ ? right_watermark_->watermark() : INT64_MIN},
                         {"state", state_key},
                         {"output", {{"table", writer_->target()},
                                     {"writer", writer_->writer()},
                                     {"sequence", writer_->next_sequence()}}},
                         {"late_rows", stats_.late_rows},
                         {"skipped_records", stats_.skipped_records},
                         {"rows_in", stats_.rows_in},
                         {"rows_out", stats_.rows_out},
                         {"node", context_.node_id}};
  if (late_writer_) {
    progress["late_output"] = {{"table", late_writer_->target()},
                               {"writer", late_writer_->writer()},
                               {"sequence", late_writer_->next_sequence()}};
  }
  MINK_RETURN_IF_ERROR(context_.meta
                           ->Append(metadata::Command(
                               metadata::CommitContinuousProgress{name_, stats_.epoch + 1, progress.dump()}))
                           .status());
  ++stats_.epoch;
  state_key_ = state_key;
  return Status::Ok();
}

}  // namespace mink::stream
