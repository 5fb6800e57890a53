#include "stream/catalog.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "stream/generator_source.h"
#include "stream/pipeline_input.h"
#include "stream/query_shape.h"
#include "stream/table_lookup.h"
#include "stream/watermark.h"

namespace mink::stream {
namespace {

using json = nlohmann::json;

json OptionsJson(const Statement& s) {
  json out = json::object();
  for (const auto& [k, v] : s.options) out[k] = v;
  return out;
}

std::string StatementName(const Statement& s) {
  switch (s.kind) {
    case StatementKind::kCreateSource: return "CREATE SOURCE";
    case StatementKind::kCreateStream: return "CREATE STREAM";
    case StatementKind::kCreateView: return "CREATE MATERIALIZED VIEW";
    case StatementKind::kCreateSink: return "CREATE SINK";
    case StatementKind::kDrop: return std::string("DROP ") + ObjectKindName(s.object);
    default: return "metadata";
  }
}

}  // namespace

std::string KindName(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kSource: return "source";
    case ObjectKind::kStream: return "stream";
    case ObjectKind::kView: return "view";
    case ObjectKind::kSink: return "sink";
    case ObjectKind::kNone: break;
  }
  return "";
}

Result<StatementResult> Catalog::Execute(const Statement& s, int64_t now_ms) {
  if (s.if_not_exists && meta_->Read([&](const metadata::State& st) { return st.continuous().count(s.name) > 0; })) {
    return StatementResult{StatementName(s), s.name, {}};
  }
  switch (s.kind) {
    case StatementKind::kCreateSource: return CreateSource(s, now_ms);
    case StatementKind::kCreateStream:
    case StatementKind::kCreateView: return CreateQuery(s);
    case StatementKind::kCreateSink: return CreateSink(s);
    case StatementKind::kDrop: return Drop(s);
    case StatementKind::kShow: return Show(s);
    case StatementKind::kDescribe: return Describe(s);
    case StatementKind::kExplain: return Explain(s);
    case StatementKind::kSubscribe:
      return InvalidArgumentError("SUBSCRIBE " + s.name + " follows its changes over a stream: with mink-query "
                                  "exec, or a WebSocket on the HTTP API's /ws/" + s.name);
    default: return InvalidArgumentError("not a continuous SQL statement: " + s.text);
  }
}

Status Catalog::CheckConnector(const Statement& s, const std::string& what) const {
  if (!s.format.empty() && s.format != "JSON") {
    return InvalidArgumentError(what + ": FORMAT " + s.format + " is not supported (JSON is)");
  }
  auto table_exists = [&](const std::string& name) {
    const size_t dot = name.find('.');
    if (dot == std::string::npos) return false;
    return meta_->Read([&](const metadata::State& st) {
      return st.FindTable(name.substr(0, dot), name.substr(dot + 1)) != nullptr;
    });
  };
  if (s.connector == "GENERATOR") {
    if (s.kind != StatementKind::kCreateSource) return InvalidArgumentError(what + ": GENERATOR is a source only");
    if (!s.columns.empty()) {
      return InvalidArgumentError(what + ": a GENERATOR source's columns are its own (seq, ts, value)");
    }
    return GeneratorSource::Make(s.options, 0).status();
  }
  if (s.connector == "MINK") {
    auto table = OptionOf(s, "table");
    if (!table) return InvalidArgumentError(what + ": MINK needs 'table' = 'database.table'");
    if (!table_exists(*table)) return NotFoundError(what + ": table " + *table + " does not exist");
    return Status::Ok();
  }
  if (s.connector == "KAFKA") {
    auto topic = OptionOf(s, "topic");
    if (!topic) return InvalidArgumentError(what + ": KAFKA needs 'topic'");
    if (auto mode = OptionOf(s, "startup.mode"); mode && *mode != "earliest" && *mode != "latest") {
      return InvalidArgumentError(what + ": startup.mode '" + *mode +
                                  "' is not supported (earliest or latest: the pipeline keeps its own positions)");
    }
    const auto guarantee = OptionOf(s, "delivery.guarantee");
    if (guarantee && *guarantee != "exactly-once" && *guarantee != "exactly_once" && *guarantee != "at-least-once" &&
        *guarantee != "at_least_once") {
      return InvalidArgumentError(what + ": delivery.guarantee '" + *guarantee +
                                  "' is not one of exactly-once, at-least-once");
    }
    if (IsExternal(s)) {
      if (s.kind == StatementKind::kCreateSink && guarantee && guarantee->rfind("exactly", 0) == 0) {
        return InvalidArgumentError(what + " cannot deliver exactly once into the Kafka outside Mink at " +
                                    *OptionOf(s, "bootstrap.servers") +
                                    ": that needs Kafka transactions, which the sink does not use; it delivers at "
                                    "least once ('delivery.guarantee' = 'at-least-once')");
      }
      if (s.format != "JSON") return InvalidArgumentError(what + ": a Kafka outside Mink is read and written as FORMAT JSON");
      return Status::Ok();
    }
    if (!table_exists("kafka." + *topic)) {
      return InvalidArgumentError(what + ": topic " + *topic + " is not a topic of this Mink cluster");
    }
    return Status::Ok();
  }
  if (s.connector.empty()) {
    return InvalidArgumentError(what + ": a " + std::string(s.kind == StatementKind::kCreateSink ? "sink" : "source") +
                                " needs a connector (" +
                                (s.kind == StatementKind::kCreateSink ? "INTO MINK or KAFKA" : "FROM GENERATOR, MINK or KAFKA") +
                                ")");
  }
  return InvalidArgumentError(what + ": connector " + s.connector + " is not supported (GENERATOR, MINK, KAFKA)");
}

bool Catalog::IsExternal(const Statement& s) const {
  // A Kafka outside Mink: bootstrap servers none of which is a Kafka listener of this cluster.
  auto bootstrap = OptionOf(s, "bootstrap.servers");
  if (s.connector != "KAFKA" || !bootstrap) return false;
  auto heartbeats = meta_->store()->ListHeartbeats();
  if (!heartbeats.ok()) return false;
  size_t at = 0;
  while (at <= bootstrap->size()) {
    const size_t comma = std::min(bootstrap->find(',', at), bootstrap->size());
    std::string server = bootstrap->substr(at, comma - at);
    server.erase(0, server.find_first_not_of(' '));
    server.erase(server.find_last_not_of(' ') + 1);
    for (const auto& h : *heartbeats) {
      if (!h.kafka_address.empty() && h.kafka_address == server) return false;
    }
    at = comma + 1;
  }
  return true;
}

Result<StatementResult> Catalog::CreateSource(const Statement& s, int64_t now_ms) {
  const std::string what = "source " + s.name;
  MINK_RETURN_IF_ERROR(CheckConnector(s, what));
  json columns = json::array();
  for (const auto& c : s.columns) columns.push_back({c.name, c.type, c.not_null});
  json definition = {{"connector", s.connector}, {"options", OptionsJson(s)}, {"columns", columns},
                     {"format", s.format},       {"start_ms", now_ms},         {"external", IsExternal(s)}};
  if (s.watermark) definition["watermark"] = {{"column", s.watermark->column}, {"expression", s.watermark->expression}};
  if (s.connector == "MINK" && !s.columns.empty()) {
    return InvalidArgumentError(what + ": a MINK source's columns are its table's (declare only a WATERMARK)");
  }
  if (s.watermark || s.connector == "KAFKA") {
    // The columns the source will have, and its watermark over them, checked now.
    MINK_ASSIGN_OR_RETURN(auto session, db_->Connect());
    arrow::SchemaPtr schema;
    if (s.connector == "MINK") {
      MINK_ASSIGN_OR_RETURN(schema, tables_->TableSchema(*OptionOf(s, "table")));
    } else {
      auto declared = DeclaredSchema(*session, s.columns);
      if (!declared.ok()) return InvalidArgumentError(what + ": " + declared.status().message());
      schema = *declared;
    }
    if (s.watermark) MINK_RETURN_IF_ERROR(SourceWatermark::Make(db_, s.name, *s.watermark, schema).status());
  }
  MINK_RETURN_IF_ERROR(
      meta_->Append(metadata::Command(metadata::CreateContinuousObject{s.name, "source", s.text, definition.dump(), {},
                                                                       s.or_replace}))
          .status());
  return StatementResult{"CREATE SOURCE", s.name, {}};
}

Result<QueryPlan> Catalog::Plan(const Statement& s) const {
  const std::string kind = s.kind == StatementKind::kCreateView ? "view" : "stream";
  const std::string what = kind + " " + s.name;
  auto refused = [&](const Status& status) { return Status(status.code(), what + ": " + status.message()); };
  MINK_ASSIGN_OR_RETURN(auto session, db_->Connect());
  auto shape = ShapeOf(*session, s.query);
  if (!shape.ok()) return refused(shape.status());
  if (s.emit == "ON WINDOW CLOSE" && !shape->window) {
    return InvalidArgumentError(what + ": EMIT ON WINDOW CLOSE needs a window in GROUP BY");
  }
  if (!s.emit.empty() && s.emit != "ON WINDOW CLOSE" && s.emit != "CHANGES") {
    return InvalidArgumentError(what + ": EMIT " + s.emit + " is not supported (ON WINDOW CLOSE, CHANGES)");
  }
  if ((!s.allowed_lateness.empty() || !s.late_data_to.empty()) && !shape->window) {
    return InvalidArgumentError(what + ": " + (s.allowed_lateness.empty() ? "LATE DATA TO" : "ALLOW LATENESS") +
                                " needs a window in GROUP BY (rows are late when their windows have closed)");
  }
  int64_t lateness = 0;
  if (!s.allowed_lateness.empty()) {
    auto micros = IntervalMicros(*session, s.allowed_lateness, "ALLOW LATENESS");
    if (!micros.ok()) return refused(micros.status());
    if (*micros < 0) return InvalidArgumentError(what + ": ALLOW LATENESS " + s.allowed_lateness + " is negative");
    lateness = *micros;
  }
  if (!s.late_data_to.empty()) MINK_RETURN_IF_ERROR(CheckLateName(s.name, s.late_data_to).WithContext(what));
  std::optional<OutputLayout> late_layout;
  // What it reads: the source (and an interval join's right input), each with its watermark.
  std::vector<std::string> reads = {shape->source};
  if (shape->interval_join) reads.push_back(shape->interval_join->right_source);
  for (const auto& name : reads) {
    std::string read_kind;
    bool has_watermark = false;
    std::unique_ptr<PipelineInput> input;
    Status readable = meta_->Read([&](const metadata::State& st) -> Status {
      auto it = st.continuous().find(name);
      if (it == st.continuous().end()) return Status::Ok();
      read_kind = it->second.kind;
      if (read_kind == "sink") return Status::Ok();
      has_watermark = DeclaredWatermark(st, name).has_value();
      MINK_ASSIGN_OR_RETURN(input, MakeInput(st, name, tables_, session.get()));
      return Status::Ok();
    });
    if (read_kind.empty()) return NotFoundError(what + " reads " + name + ", which is not a source or stream");
    if (read_kind == "sink") return InvalidArgumentError(what + " reads sink " + name);
    if (!readable.ok()) return refused(readable);
    if ((shape->window || shape->interval_join) && !has_watermark) {
      return InvalidArgumentError(what + ": " +
                                  (shape->window ? "a window closes" : "an interval join forgets rows") +
                                  " when the watermark passes, and " + name +
                                  " declares none (WATERMARK FOR column AS ...)");
    }
    MINK_RETURN_IF_ERROR(session->RegisterBatches(name, input->schema(), {}));
    if (!s.late_data_to.empty() && name == shape->source) {
      auto late = LayoutOfRows(*input->schema());
      if (!late.ok()) return refused(late.status().WithContext("LATE DATA TO " + s.late_data_to));
      late_layout = std::move(*late);
    }
  }
  if (!shape->lookup_table.empty()) {
    auto lookup = TableLookup::Make(tables_, *shape);
    if (!lookup.ok()) return refused(lookup.status());
    MINK_RETURN_IF_ERROR(session->RegisterBatches("__lookup", lookup->schema, {}));
  }
  auto layout = LayoutOf(*session, *shape, kind == "view");
  if (!layout.ok()) return refused(layout.status());
  return QueryPlan{kind, std::move(*shape), std::move(*layout), std::move(reads), lateness, std::move(late_layout)};
}

Result<StatementResult> Catalog::CreateQuery(const Statement& s) {
  MINK_ASSIGN_OR_RETURN(QueryPlan plan, Plan(s));
  json columns = json::array();
  for (const auto& o : plan.shape.outputs) columns.push_back(o.name);
  json definition = {{"query", s.query},
                     {"emit", s.emit},
                     {"source", plan.shape.source},
                     {"columns", columns},
                     {"table", OutputTableName(s.name)},
                     {"allowed_lateness_us", plan.allowed_lateness}};
  if (plan.late_layout) definition["late_table"] = OutputTableName(s.late_data_to);
  const metadata::Command create(
      metadata::CreateContinuousObject{s.name, plan.kind, s.text, definition.dump(), plan.reads, s.or_replace});
  MINK_RETURN_IF_ERROR(meta_->Read([&](const metadata::State& st) { return st.Validate(create); }));
  MINK_RETURN_IF_ERROR(CreateOutputTable(s.name, plan.layout));
  if (plan.late_layout) MINK_RETURN_IF_ERROR(CreateOutputTable(s.late_data_to, *plan.late_layout));
  MINK_RETURN_IF_ERROR(meta_->Append(create).status());
  return StatementResult{StatementName(s), s.name, {}};
}

Result<StatementResult> Catalog::Explain(const Statement& s) const {
  MINK_ASSIGN_OR_RETURN(Statement inner, ParseStatement(s.query));
  if (inner.kind != StatementKind::kCreateStream && inner.kind != StatementKind::kCreateView) {
    return InvalidArgumentError("EXPLAIN of a streaming statement explains CREATE STREAM or CREATE MATERIALIZED VIEW");
  }
  MINK_ASSIGN_OR_RETURN(QueryPlan plan, Plan(inner));
  StatementResult out{"metadata", inner.name, {}};
  auto add = [&](const std::string& property, const std::string& value) {
    out.rows.push_back({{"property", property}, {"value", value}});
  };
  auto join = [](const std::vector<std::string>& items) {
    std::string text;
    for (const auto& i : items) text += (text.empty() ? "" : ", ") + i;
    return text;
  };
  add("pipeline", plan.kind + " " + inner.name + " reads " + join(plan.reads));
  std::vector<std::string> columns;
  for (size_t i = 0; i < plan.layout.names.size(); ++i) {
    columns.push_back(plan.layout.names[i] + " " + plan.layout.types[i].ToString());
  }
  add("output table", OutputTableName(inner.name) + " (" +
                          (plan.layout.keyed() ? "primary key " + join(plan.layout.primary_key) : std::string("log")) +
                          "): " + join(columns));
  if (plan.shape.window) {
    const WindowSpec& w = *plan.shape.window;
    const std::string kind = w.kind == WindowKind::kTumble ? "tumble" : w.kind == WindowKind::kHop ? "hop" : "session";
    add("window", kind + " " +
                      (w.kind == WindowKind::kSession ? "gap " + std::to_string(w.gap) + " us"
                                                      : "size " + std::to_string(w.size) + " us" +
                                                            (w.kind == WindowKind::kHop ? ", slide " + std::to_string(w.slide) + " us" : "")) +
                      ", closed by the watermark" + (inner.emit.empty() ? "" : ", EMIT " + inner.emit));
  }
  if (!plan.shape.keys.empty()) add("group keys", join(plan.shape.keys));
  std::vector<std::string> aggregates;
  for (size_t a = 0; a < plan.shape.aggregates.size(); ++a) {
    aggregates.push_back(AggregateName(plan.shape.aggregates[a]) + "(" +
                         (plan.shape.arguments[a].empty() ? "*" : plan.shape.arguments[a]) + ")");
  }
  if (!aggregates.empty()) add("aggregates", join(aggregates) + " (exact under retractions)");
  if (!plan.shape.lookup_table.empty()) {
    add("temporal join", "rows of " + plan.shape.lookup_table + " looked up by " + join(plan.shape.lookup_columns) +
                             " for each batch: " + plan.shape.lookup_sql);
  }
  if (plan.shape.interval_join) {
    add("interval join", "with " + plan.shape.interval_join->right_source + " within " +
                             std::to_string(plan.shape.interval_join->bound) + " us, both sides buffered until the "
                             "lower watermark passes");
  }
  if (plan.shape.window) {
    add("late rows", (plan.allowed_lateness > 0 ? "windows stay open " + std::to_string(plan.allowed_lateness) +
                                                       " us after the watermark passes their ends; rows later than that are "
                                                 : std::string("rows whose windows have closed are ")) +
                         "dropped and counted" +
                         (plan.late_layout ? ", and written to " + OutputTableName(inner.late_data_to) : std::string()));
  }
  add("per-batch query (DuckDB)", plan.shape.batch_sql);
  add("delivery", "exactly-once into " + OutputTableName(inner.name) + " (epochs committed with their positions)");
  return out;
}

Status Catalog::CheckLateName(const std::string& owner, const std::string& late) const {
  if (late == owner) return InvalidArgumentError("LATE DATA TO " + late + " names the stream itself");
  return meta_->Read([&](const metadata::State& st) -> Status {
    for (const auto& [name, o] : st.continuous()) {
      if (name == late) return InvalidArgumentError("LATE DATA TO " + late + ": " + late + " is a " + o.kind);
      if (name == owner) continue;
      const json d = json::parse(o.definition, nullptr, false);
      if (d.is_object() && d.value("late_table", "") == OutputTableName(late)) {
        return InvalidArgumentError("LATE DATA TO " + late + ": " + name + "'s late rows go there");
      }
    }
    return Status::Ok();
  });
}

Status Catalog::CreateOutputTable(const std::string& name, const OutputLayout& layout) {
  Status db = tables_->CreateDatabase(kOutputDatabase);
  if (!db.ok() && db.code() != StatusCode::kAlreadyExists) return db;
  const std::string table = OutputTableName(name);
  if (tables_->DescribeTable(table).ok()) MINK_RETURN_IF_ERROR(tables_->DropTable(table));
  return tables_->CreateTable(table, layout.Spec()).status().WithContext("the output table " + table);
}

Result<StatementResult> Catalog::CreateSink(const Statement& s) {
  const std::string what = "sink " + s.name;
  MINK_RETURN_IF_ERROR(CheckConnector(s, what));
  const std::string from_kind = meta_->Read([&](const metadata::State& st) {
    auto it = st.continuous().find(s.from);
    return it == st.continuous().end() ? std::string() : it->second.kind;
  });
  if (from_kind.empty()) return NotFoundError(what + " reads " + s.from + ", which does not exist");
  if (from_kind != "stream" && from_kind != "view") {
    return InvalidArgumentError(what + " reads " + from_kind + " " + s.from + ": a sink sends on a stream or view");
  }
  const json definition = {{"from", s.from},     {"connector", s.connector}, {"options", OptionsJson(s)},
                           {"format", s.format}, {"external", IsExternal(s)}};
  MINK_RETURN_IF_ERROR(meta_->Append(metadata::Command(metadata::CreateContinuousObject{
                                         s.name, "sink", s.text, definition.dump(), {s.from}, s.or_replace}))
                           .status());
  return StatementResult{"CREATE SINK", s.name, {}};
}

Result<StatementResult> Catalog::Drop(const Statement& s) {
  std::string late_table;
  const bool exists = meta_->Read([&](const metadata::State& st) {
    auto it = st.continuous().find(s.name);
    if (it == st.continuous().end()) return false;
    const json d = json::parse(it->second.definition, nullptr, false);
    if (d.is_object()) late_table = d.value("late_table", "");
    return true;
  });
  if (!exists && s.if_exists) return StatementResult{StatementName(s), s.name, {}};
  MINK_RETURN_IF_ERROR(
      meta_->Append(metadata::Command(metadata::DropContinuousObject{s.name, KindName(s.object)})).status());
  if (s.object == ObjectKind::kStream || s.object == ObjectKind::kView) {
    for (const std::string& table : {OutputTableName(s.name), late_table}) {
      if (table.empty()) continue;
      Status dropped = tables_->DropTable(table);
      if (!dropped.ok() && dropped.code() != StatusCode::kNotFound) return dropped;
    }
  }
  return StatementResult{StatementName(s), s.name, {}};
}

StatementResult Catalog::Show(const Statement& s) const {
  StatementResult out{"metadata", "", {}};
  const std::string kind = KindName(s.object);
  meta_->Read([&](const metadata::State& st) {
    for (const auto& [name, o] : st.continuous()) {
      if (o.kind == kind) out.rows.push_back({{"name", name}, {"sql", o.statement}});
    }
  });
  return out;
}

Result<StatementResult> Catalog::Describe(const Statement& s) const {
  StatementResult out{"metadata", s.name, {}};
  const bool found = meta_->Read([&](const metadata::State& st) {
    auto it = st.continuous().find(s.name);
    if (it == st.continuous().end()) return false;
    std::string inputs;
    for (const auto& i : it->second.inputs) inputs += (inputs.empty() ? "" : ", ") + i;
    std::vector<std::pair<std::string, std::string>> row = {{"name", s.name},
                                                            {"kind", it->second.kind},
                                                            {"reads", inputs},
                                                            {"definition", it->second.definition},
                                                            {"sql", it->second.statement}};
    if (it->second.kind != "source") {
      // The pipeline's counters as its last commit has them: how far it got, and the rows it
      // dropped as late or skipped as malformed.
      row.emplace_back("epoch", std::to_string(it->second.epoch));
      const json progress = json::parse(it->second.progress.empty() ? "{}" : it->second.progress, nullptr, false);
      for (const char* counter : {"rows_in", "rows_out", "late_rows", "skipped_records"}) {
        row.emplace_back(counter, std::to_string(progress.is_object() ? progress.value(counter, int64_t{0}) : 0));
      }
      if (progress.is_object() && progress.value("watermark", INT64_MIN) != INT64_MIN) {
        row.emplace_back("watermark_us", std::to_string(progress.value("watermark", INT64_MIN)));
      }
    }
    out.rows.push_back(std::move(row));
    return true;
  });
  if (!found) return NotFoundError(s.name + " does not exist");
  return out;
}

}  // namespace mink::stream
