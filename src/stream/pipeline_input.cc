#include "stream/pipeline_input.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/log.h"
#include "stream/external_kafka.h"
#include "stream/generator_source.h"
#include "stream/output_table.h"
#include "table/arrow_rows.h"

#include "sql/quote.h"

namespace mink::stream {
namespace {

using json = nlohmann::json;

class GeneratorInput final : public PipelineInput {
 public:
  explicit GeneratorInput(GeneratorSource source) : source_(std::move(source)) {}
  const arrow::SchemaPtr& schema() const override { return schema_; }
  Result<Positions> Start() override { return Positions{{"seq", 0}}; }
  Result<Positions> End(const Positions& from, int64_t now_ms) override {
    // At most ten seconds of rows an epoch, so catching up after a stop goes in steps.
    const int64_t at = from.count("seq") ? from.at("seq") : 0;
    return Positions{{"seq", std::clamp(source_.DueBy(now_ms), at, at + 10 * source_.rows_per_second())}};
  }
  Status Read(const Positions& from, const Positions& to,
              const std::function<Status(const InputBatch&)>& each) override {
    const int64_t end = to.at("seq");
    source_.Seek(from.count("seq") ? from.at("seq") : 0);
    constexpr int64_t kBatchRows = 65536;
    while (source_.position() < end) {
      MINK_ASSIGN_OR_RETURN(auto batch, source_.Poll(INT64_MAX / 1000, std::min(kBatchRows, end - source_.position())));
      if (batch == nullptr) break;
      MINK_RETURN_IF_ERROR(each(InputBatch{batch, 1}));
    }
    return Status::Ok();
  }

 private:
  GeneratorSource source_;
  arrow::SchemaPtr schema_ = GeneratorSource::Schema();
};

// A Mink table's log (or changelog), bucket by bucket. `decode` turns each stored batch into the
// input's rows (Kafka JSON); without it the stored columns are the input.
class TableInput : public PipelineInput {
 public:
  TableInput(table::TableStore* tables, std::shared_ptr<const table::ResolvedTable> table, arrow::SchemaPtr schema,
             std::vector<std::string> columns, bool from_latest)
      : tables_(tables),
        table_(std::move(table)),
        schema_(std::move(schema)),
        columns_(std::move(columns)),
        from_latest_(from_latest) {}

  const arrow::SchemaPtr& schema() const override { return schema_; }

  Result<Positions> Start() override {
    MINK_ASSIGN_OR_RETURN(auto offsets, tables_->Offsets(table_->name, std::nullopt));
    Positions out;
    for (const auto& o : offsets) out[o.bucket] = from_latest_ ? o.end : o.start;
    return out;
  }

  Result<Positions> End(const Positions& /*from*/, int64_t /*now_ms*/) override {
    MINK_ASSIGN_OR_RETURN(auto offsets, tables_->Offsets(table_->name, std::nullopt));
    Positions out;
    for (const auto& o : offsets) out[o.bucket] = o.end;
    return out;
  }

  Status Read(const Positions& from, const Positions& to,
              const std::function<Status(const InputBatch&)>& each) override {
    MINK_ASSIGN_OR_RETURN(auto offsets, tables_->Offsets(table_->name, std::nullopt));
    std::map<std::string, int64_t> starts;
    for (const auto& o : offsets) starts[o.bucket] = o.start;
    for (const auto& b : tables_->AllBuckets(*table_)) {
      auto end = to.find(b.label);
      if (end == to.end()) continue;
      int64_t at = from.count(b.label) ? from.at(b.label) : starts[b.label];
      if (at < starts[b.label]) {
        MINK_LOG_WARN("stream", "{} {}: offsets {}-{} expired before they were read", table_->name, b.label, at,
                      starts[b.label]);
        at = starts[b.label];
      }
      if (at >= end->second) continue;
      table::ReadRequest request;
      request.table = table_->name;
      request.from = std::to_string(at);
      request.end = end->second;
      request.bucket = b.bucket;
      if (!b.partition.empty()) request.partition = b.partition;
      request.columns = columns_;
      request.meta = !table_->pk.empty();  // a changelog: its change types are the weights
      Status failed;
      MINK_RETURN_IF_ERROR(tables_->Read(request, [&](const arrow::RecordBatchPtr& batch) {
        failed = Deliver(batch, request.meta, each);
        return failed.ok();
      }));
      MINK_RETURN_IF_ERROR(failed);
    }
    return Status::Ok();
  }

 protected:
  // Hands on one stored batch: a changelog's rows split by weight (the row before an update or
  // delete is retracted), without the metadata columns.
  virtual Status Deliver(const arrow::RecordBatchPtr& batch, bool changelog,
                         const std::function<Status(const InputBatch&)>& each) {
    if (!changelog) return each(InputBatch{batch, 1});
    const int columns = batch->num_columns() - 3;  // __bucket, __offset, __change last
    // The table's own types (an Arrow type alone does not say how a value is held: a decimal).
    std::vector<table::LogicalType> types;
    for (int c = 0; c < columns; ++c) {
      const int i = table_->d.schema.Find(batch->schema()->field(c).name());
      if (i < 0) return InternalError(table_->name + " has no column " + batch->schema()->field(c).name());
      types.push_back(table_->types[static_cast<size_t>(i)]);
    }
    std::vector<arrow::Field> fields;
    for (int c = 0; c < columns; ++c) fields.push_back(batch->schema()->field(c));
    auto schema = std::make_shared<arrow::Schema>(std::move(fields));
    std::vector<arrow::ArrayDataPtr> data;
    for (int c = 0; c < columns; ++c) data.push_back(batch->Column(c));
    MINK_ASSIGN_OR_RETURN(auto rows_only, arrow::RecordBatch::Make(schema, batch->num_rows(), std::move(data)));
    const std::vector<table::Row> rows = table::BatchToRows(*rows_only, types);
    MINK_ASSIGN_OR_RETURN(auto changes, ScalarsOf(batch->Column(batch->num_columns() - 1)));
    // The additions first, then the retractions (updated rows' before images, then deleted
    // rows): each retracted row was added before (in an earlier batch or this one), and
    // aggregates end the same in any order of their changes.
    enum class Kind { kAdded, kUpdated, kDeleted };
    auto kind_of = [&](size_t i) {
      const std::string change = changes[i].is_string() ? changes[i].string_value() : std::string();
      return change == "-D" ? Kind::kDeleted : change == "-U" ? Kind::kUpdated : Kind::kAdded;
    };
    for (const Kind kind : {Kind::kAdded, Kind::kUpdated, Kind::kDeleted}) {
      std::vector<const table::Row*> part;
      for (size_t i = 0; i < rows.size(); ++i) {
        if (kind_of(i) == kind) part.push_back(&rows[i]);
      }
      if (part.empty()) continue;
      MINK_ASSIGN_OR_RETURN(auto batch_part, table::RowsToBatch(part, schema, types));
      MINK_RETURN_IF_ERROR(each(InputBatch{batch_part, kind == Kind::kAdded ? 1 : -1, kind == Kind::kDeleted}));
    }
    return Status::Ok();
  }

  table::TableStore* const tables_;
  const std::shared_ptr<const table::ResolvedTable> table_;
  const arrow::SchemaPtr schema_;
  const std::vector<std::string> columns_;
  const bool from_latest_;
};

// A topic's records as JSON objects of the declared columns, converted by DuckDB.
class KafkaJsonInput final : public TableInput {
 public:
  KafkaJsonInput(table::TableStore* tables, std::shared_ptr<const table::ResolvedTable> table, JsonRecords records,
                 bool from_latest)
      : TableInput(tables, std::move(table), records.schema(), {"value"}, from_latest), records_(std::move(records)) {}

  int64_t skipped() const override { return records_.skipped(); }

 protected:
  Status Deliver(const arrow::RecordBatchPtr& batch, bool /*changelog*/,
                 const std::function<Status(const InputBatch&)>& each) override {
    return records_.Decode(batch, each);
  }

 private:
  JsonRecords records_;
};

class JoinedInput final : public PipelineInput {
 public:
  JoinedInput(std::unique_ptr<PipelineInput> left, std::unique_ptr<PipelineInput> right)
      : left_(std::move(left)), right_(std::move(right)) {}
  const arrow::SchemaPtr& schema() const override { return left_->schema(); }
  int64_t skipped() const override { return left_->skipped() + right_->skipped(); }
  Result<Positions> Start() override {
    MINK_ASSIGN_OR_RETURN(Positions left, left_->Start());
    MINK_ASSIGN_OR_RETURN(Positions right, right_->Start());
    return Merge(std::move(left), right);
  }
  Result<Positions> End(const Positions& from, int64_t now_ms) override {
    auto [left_from, right_from] = Split(from);
    MINK_ASSIGN_OR_RETURN(Positions left, left_->End(left_from, now_ms));
    MINK_ASSIGN_OR_RETURN(Positions right, right_->End(right_from, now_ms));
    return Merge(std::move(left), right);
  }
  Status Read(const Positions& from, const Positions& to,
              const std::function<Status(const InputBatch&)>& each) override {
    auto [left_from, right_from] = Split(from);
    auto [left_to, right_to] = Split(to);
    MINK_RETURN_IF_ERROR(left_->Read(left_from, left_to, each));
    return right_->Read(right_from, right_to, [&](const InputBatch& in) {
      InputBatch right = in;
      right.side = 1;
      return each(right);
    });
  }

 private:
  static constexpr char kRight[] = "right:";
  static Positions Merge(Positions left, const Positions& right) {
    for (const auto& [k, v] : right) left[kRight + k] = v;
    return left;
  }
  static std::pair<Positions, Positions> Split(const Positions& p) {
    Positions left, right;
    for (const auto& [k, v] : p) {
      if (k.rfind(kRight, 0) == 0) {
        right[k.substr(sizeof(kRight) - 1)] = v;
      } else {
        left[k] = v;
      }
    }
    return {left, right};
  }

  std::unique_ptr<PipelineInput> left_, right_;
};

std::vector<ColumnDef> ColumnsOf(const json& definition) {
  std::vector<ColumnDef> out;
  for (const auto& c : definition.value("columns", json::array())) {
    out.push_back(ColumnDef{c.at(0).get<std::string>(), c.at(1).get<std::string>(), c.at(2).get<bool>()});
  }
  return out;
}

}  // namespace

// DuckDB's query turning the records of `__kafka_records` (a `value` column) into the columns.
std::string JsonRecords::DecodeSql(const std::vector<ColumnDef>& columns) {
  json structure = json::object();
  for (const auto& c : columns) structure[c.name] = c.type;
  std::string select, required;
  for (const auto& c : columns) {
    select += (select.empty() ? "" : ", ") + std::string("j.") + sql::QuoteIdentifier(c.name) + " AS " + sql::QuoteIdentifier(c.name);
    if (c.not_null) required += " AND j." + sql::QuoteIdentifier(c.name) + " IS NOT NULL";
  }
  // CASE evaluates json_transform only on the rows that are JSON objects (it throws on others);
  // values that do not convert to a column's type become null.
  return "SELECT " + select + " FROM (SELECT CASE WHEN json_valid(t) AND json_type(t) = 'OBJECT' THEN json_transform(t, " +
         sql::QuoteLiteral(structure.dump()) + ") END AS j FROM (SELECT TRY(decode(value)) AS t FROM __kafka_records)) " +
         "WHERE j IS NOT NULL" + required;
}

Result<JsonRecords> JsonRecords::Make(sql::Session* session, const std::vector<ColumnDef>& columns) {
  MINK_ASSIGN_OR_RETURN(auto schema, DeclaredSchema(*session, columns));
  return JsonRecords(session, std::move(schema), DecodeSql(columns));
}

Status JsonRecords::Decode(const arrow::RecordBatchPtr& values, const std::function<Status(const InputBatch&)>& each) {
  MINK_RETURN_IF_ERROR(session_->RegisterBatches("__kafka_records", values->schema(), {values}));
  MINK_ASSIGN_OR_RETURN(auto decoded, session_->Collect(sql_));
  int64_t kept = 0;
  for (const auto& d : decoded) {
    kept += d->num_rows();
    // DuckDB's answer has the declared columns; the schema carries their names and types.
    MINK_ASSIGN_OR_RETURN(auto typed, arrow::RecordBatch::Make(schema_, d->num_rows(), d->columns()));
    if (d->num_rows() > 0) MINK_RETURN_IF_ERROR(each(InputBatch{typed, 1}));
  }
  skipped_ += values->num_rows() - kept;
  return Status::Ok();
}

std::optional<WatermarkDef> DeclaredWatermark(const metadata::State& state, const std::string& name) {
  auto it = state.continuous().find(name);
  if (it == state.continuous().end() || it->second.kind != "source") return std::nullopt;
  const json d = json::parse(it->second.definition, nullptr, false);
  if (!d.is_object()) return std::nullopt;
  if (d.contains("watermark")) return WatermarkDef{d["watermark"].value("column", ""), d["watermark"].value("expression", "")};
  if (d.value("connector", "") == "GENERATOR") return WatermarkDef{"ts", ""};
  return std::nullopt;
}

std::unique_ptr<PipelineInput> JoinInputs(std::unique_ptr<PipelineInput> left, std::unique_ptr<PipelineInput> right) {
  return std::make_unique<JoinedInput>(std::move(left), std::move(right));
}

Result<arrow::SchemaPtr> DeclaredSchema(sql::Session& session, const std::vector<ColumnDef>& columns) {
  if (columns.empty()) return InvalidArgumentError("no columns are declared");
  std::string select;
  for (const auto& c : columns) {
    select += (select.empty() ? "" : ", ") + std::string("CAST(NULL AS ") + c.type + ") AS " + sql::QuoteIdentifier(c.name);
  }
  auto answer = session.Execute("SELECT " + select + " LIMIT 0");
  if (!answer.ok()) return InvalidArgumentError("the declared columns: " + answer.status().message());
  std::vector<arrow::Field> fields;
  for (size_t i = 0; i < columns.size(); ++i) {
    const auto& f = (*answer)->schema()->field(static_cast<int>(i));
    MINK_RETURN_IF_ERROR(LogicalTypeOfArrow(*f.type()).status().WithContext("column " + columns[i].name));
    fields.push_back(f.WithNullable(!columns[i].not_null));
  }
  return arrow::SchemaPtr(std::make_shared<arrow::Schema>(std::move(fields)));
}

Result<std::unique_ptr<PipelineInput>> MakeInput(const metadata::State& state, const std::string& name,
                                                 table::TableStore* tables, sql::Session* session) {
  auto it = state.continuous().find(name);
  if (it == state.continuous().end()) return NotFoundError(name + " is not a source, stream or view");
  const json definition = json::parse(it->second.definition, nullptr, false);
  if (!definition.is_object()) return InternalError(name + "'s definition is not JSON");
  if (it->second.kind == "stream" || it->second.kind == "view") {
    const std::string table_name = OutputTableName(name);
    MINK_ASSIGN_OR_RETURN(auto table, tables->Resolve(table_name));
    std::vector<std::string> columns = definition.value("columns", json::array()).get<std::vector<std::string>>();
    std::vector<arrow::Field> fields;
    for (const auto& c : columns) {
      const int i = table->d.schema.Find(c);
      if (i < 0) return InternalError(table_name + " has no column " + c);
      fields.push_back(table->schema->field(i));
    }
    return std::unique_ptr<PipelineInput>(new TableInput(
        tables, table, std::make_shared<arrow::Schema>(std::move(fields)), std::move(columns), false));
  }
  if (it->second.kind != "source") return InvalidArgumentError(name + " is a sink: nothing reads a sink");
  const std::string connector = definition.value("connector", "");
  const json options = definition.value("options", json::object());
  std::vector<std::pair<std::string, std::string>> option_list;
  for (const auto& [k, v] : options.items()) option_list.emplace_back(k, v.get<std::string>());
  auto option = [&](const std::string& key) {
    for (const auto& [k, v] : options.items()) {
      std::string lower = k;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      if (lower == key) return v.get<std::string>();
    }
    return std::string();
  };
  if (connector == "GENERATOR") {
    MINK_ASSIGN_OR_RETURN(auto source, GeneratorSource::Make(option_list, definition.value("start_ms", int64_t{0})));
    return std::unique_ptr<PipelineInput>(new GeneratorInput(std::move(source)));
  }
  const std::string startup = option("startup.mode");
  if (!startup.empty() && startup != "earliest" && startup != "latest") {
    return InvalidArgumentError("source " + name + ": startup.mode '" + startup +
                                "' is not supported (earliest or latest: the pipeline keeps its own positions)");
  }
  const bool from_latest = startup == "latest";
  if (connector == "MINK") {
    MINK_ASSIGN_OR_RETURN(auto table, tables->Resolve(option("table")));
    return std::unique_ptr<PipelineInput>(new TableInput(tables, table, table->schema, {}, from_latest));
  }
  if (connector == "KAFKA") {
    auto records = JsonRecords::Make(session, ColumnsOf(definition));
    if (!records.ok()) return InvalidArgumentError("source " + name + ": " + records.status().message());
    if (definition.value("external", false)) {
      // A Kafka outside this cluster, through librdkafka (external_kafka.h).
      return MakeExternalKafkaInput(option("bootstrap.servers"), option("topic"), std::move(*records), from_latest);
    }
    MINK_ASSIGN_OR_RETURN(auto table, tables->Resolve("kafka." + option("topic")));
    return std::unique_ptr<PipelineInput>(new KafkaJsonInput(tables, table, std::move(*records), from_latest));
  }
  return InvalidArgumentError("source " + name + ": connector " + connector + " cannot be read");
}

}  // namespace mink::stream
