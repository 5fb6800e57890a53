// mink_scan: the table function behind every table of the `mink` catalog. Each bucket endpoint is
// one DoGet (projection in the ticket: only the columns the query uses leave storage), unless the
// filters name whole primary keys: then the scan is one lookup of those keys (a DoExchange at the
// bootstrap node, which asks the owners) instead of a read of every row. DuckDB
// threads claim endpoints one by one and, once every endpoint has a reader, share the open
// streams batch by batch. Batches are exported through the Arrow C data interface and converted
// by DuckDB's own Arrow scan code, which references our buffers instead of copying rows. Filters
// DuckDB pushes into the scan are removed from its plan, so every one of them is applied here.

// DuckDB first (see duckdb_internal.h).
#include "query/duckdb_internal.h"
// (blank line: keeps the order above under clang-format)

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "arrow_format/c_bridge.h"
#include "arrow_format/ipc.h"
#include "flight/client/exchange_batches.h"
#include "duckdb/execution/expression_executor.hpp"
#include "duckdb/planner/expression/bound_conjunction_expression.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/table_filter.hpp"
#include "duckdb/storage/statistics/numeric_stats.hpp"

namespace mink::query::internal {
namespace {

using duckdb::ClientContext;
using duckdb::idx_t;

struct EndpointStream {
  std::mutex mu;
  std::unique_ptr<flight::FlightStreamReader> reader;
  arrow::IpcDecoder decoder;
  bool finished = false;
};

// What one stream of the scan reads: a bucket endpoint, or the rows of `lookup_keys`.
struct Slot {
  client::Endpoint endpoint;
  std::shared_ptr<EndpointStream> stream;
  bool done = false;
  arrow::RecordBatchPtr lookup_keys;
};

struct ScanGlobalState : public duckdb::GlobalTableFunctionState {
  ~ScanGlobalState() override {
    if (recorder == nullptr) return;
    report.batches = batches.load();
    report.rows = rows.load();
    report.bytes = bytes.load();
    recorder->Add(report);
  }
  idx_t MaxThreads() const override { return max_threads; }

  std::shared_ptr<ScanRecorder> recorder;
  std::mutex mu;
  std::vector<Slot> slots;
  size_t next_unclaimed = 0;
  size_t next_shared = 0;
  std::string table;
  bool snapshot = false;
  duckdb::vector<duckdb::column_t> column_ids;  // per output position (virtual columns as ROW_ID)
  std::vector<std::string> output_names;     // per output position; empty for virtual columns
  std::vector<std::string> request_columns;  // the DoGet projection
  std::string placeholder;                   // a received column for virtual positions
  arrow::SchemaPtr output_schema;            // the exported batch: one field per position
  std::unique_ptr<duckdb::Expression> filter;  // every pushed-down filter, over positions
  std::vector<table::LakeFilter> lake_filters;  // union reads: what the lake's reads apply
  idx_t max_threads = 1;
  std::atomic<int64_t> batches{0};
  std::atomic<int64_t> rows{0};
  std::atomic<int64_t> bytes{0};
  ScanReport report;
};

struct ScanLocalState : public duckdb::LocalTableFunctionState {
  explicit ScanLocalState(ClientContext& context)
      : arrow(duckdb::make_uniq<duckdb::ArrowArrayWrapper>(), context) {}

  duckdb::ArrowScanLocalState arrow;
  std::shared_ptr<EndpointStream> stream;
  size_t slot = 0;
  idx_t length = 0;  // rows of the current batch
  std::vector<int> positions;  // output position -> column of the received batch
  std::unique_ptr<duckdb::ExpressionExecutor> executor;
  duckdb::SelectionVector sel{STANDARD_VECTOR_SIZE};
};

// Picks a stream for a thread: an endpoint nobody reads yet, else one still open (shared).
bool Claim(ScanGlobalState& g, ScanLocalState& l) {
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.next_unclaimed < g.slots.size()) {
    l.slot = g.next_unclaimed++;
    g.slots[l.slot].stream = std::make_shared<EndpointStream>();
    l.stream = g.slots[l.slot].stream;
    return true;
  }
  for (size_t i = 0; i < g.slots.size(); ++i) {
    size_t s = (g.next_shared + i) % g.slots.size();
    if (!g.slots[s].done && g.slots[s].stream != nullptr) {
      g.next_shared = s + 1;
      l.slot = s;
      l.stream = g.slots[s].stream;
      return true;
    }
  }
  return false;
}

void Release(ScanGlobalState& g, ScanLocalState& l) {
  std::lock_guard<std::mutex> lock(g.mu);
  g.slots[l.slot].done = true;
  l.stream.reset();
}

// The rows of the keys, looked up at the bootstrap node (which asks the owners): one batch.
arrow::RecordBatchPtr LookUp(const ScanBindData& bind, ScanGlobalState& g,
                             const arrow::RecordBatch& keys) {
  const std::string what = "looking up " + std::to_string(keys.num_rows()) + " keys of " + g.table;
  nlohmann::json command = {{"table", g.table}, {"lookup", "key"}, {"columns", g.request_columns}};
  auto client = ValueOrThrow(bind.cluster->ClientFor(""), what);
  auto exchange =
      ValueOrThrow(flight::BatchExchange::Open(*client, command.dump(), *keys.schema()), what);
  auto rows = ValueOrThrow(exchange->Call(keys), what);
  Status finished = exchange->Finish();
  if (!finished.ok()) throw duckdb::IOException("mink: %s: %s", what, finished.message());
  g.batches += 1;
  g.rows += rows->num_rows();
  return rows;
}

// Reads the next batch of the local stream; null at its end.
arrow::RecordBatchPtr ReadBatch(const ScanBindData& bind, ScanGlobalState& g, ScanLocalState& l) {
  EndpointStream& s = *l.stream;
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.finished) return nullptr;
  if (const auto& keys = g.slots[l.slot].lookup_keys) {
    s.finished = true;
    return LookUp(bind, g, *keys);
  }
  const client::Endpoint& endpoint = g.slots[l.slot].endpoint;
  const std::string where = g.table + (endpoint.partition ? " partition " + *endpoint.partition : "") +
                            " bucket " + std::to_string(endpoint.bucket);
  if (s.reader == nullptr) {
    client::ScanTicket ticket{g.table,           g.snapshot,      g.request_columns,
                      endpoint.partition, endpoint.bucket, endpoint.end,
                      !g.snapshot && bind.compressed, bind.tiered(), g.lake_filters};
    auto client = ValueOrThrow(bind.cluster->ClientFor(endpoint.location), "reading " + where);
    s.reader = ValueOrThrow(client->DoGet(client::EncodeTicket(ticket)), "reading " + where);
  }
  while (true) {
    flight::FlightData data;
    bool more = ValueOrThrow(s.reader->Next(&data), "reading " + where);
    if (!more) {
      s.finished = true;
      s.reader.reset();
      return nullptr;
    }
    g.bytes += static_cast<int64_t>(data.data_header.size() + data.body.size());
    arrow::BufferPtr body = arrow::Buffer::FromString(std::move(data.body));
    auto decoded = ValueOrThrow(s.decoder.Decode(data.data_header, std::move(body)),
                                "decoding " + where);
    if (decoded.kind != arrow::IpcDecoder::Kind::kRecordBatch) continue;
    g.batches += 1;
    g.rows += decoded.batch->num_rows();
    return decoded.batch;
  }
}

// Makes the next batch current; false when every stream is exhausted.
bool NextBatch(const ScanBindData& bind, ScanGlobalState& g, ScanLocalState& l) {
  while (true) {
    if (l.stream == nullptr && !Claim(g, l)) return false;
    arrow::RecordBatchPtr batch = ReadBatch(bind, g, l);
    if (batch == nullptr) {
      Release(g, l);
      continue;
    }
    if (batch->num_rows() == 0) continue;
    const arrow::Schema& received = *batch->schema();
    std::vector<arrow::ArrayDataPtr> columns;
    for (const auto& name : g.output_names) {
      int index = received.GetFieldIndex(name.empty() ? g.placeholder : name);
      if (index < 0) {
        throw duckdb::IOException("mink: %s: the node sent no column \"%s\"", g.table,
                                  name.empty() ? g.placeholder : name);
      }
      columns.push_back(batch->Column(index));
    }
    auto exported = duckdb::make_uniq<duckdb::ArrowArrayWrapper>();
    auto output = ValueOrThrow(
        arrow::RecordBatch::Make(g.output_schema, batch->num_rows(), std::move(columns)),
        "reading " + g.table);
    Status st = arrow::ExportRecordBatch(output, &exported->arrow_array, nullptr);
    if (!st.ok()) throw duckdb::IOException("mink: %s: %s", g.table, st.message());
    l.arrow.Reset();
    l.arrow.chunk = duckdb::shared_ptr<duckdb::ArrowArrayWrapper>(exported.release());
    l.length = static_cast<idx_t>(batch->num_rows());
    return true;
  }
}

duckdb::unique_ptr<duckdb::GlobalTableFunctionState> InitGlobal(
    ClientContext& context, duckdb::TableFunctionInitInput& input) {
  const auto& bind = input.bind_data->Cast<ScanBindData>();
  const client::TableMeta& meta = *bind.meta;
  auto g = duckdb::make_uniq<ScanGlobalState>();
  g->recorder = bind.recorder;
  if (g->recorder != nullptr) g->recorder->Begin();
  g->table = meta.full_name();
  g->snapshot = bind.snapshot();

  std::string explanation;
  arrow::RecordBatchPtr lookup_keys = g->snapshot ? LookupKeys(bind, &explanation) : nullptr;
  if (lookup_keys != nullptr) {
    g->slots.push_back(Slot{client::Endpoint{}, nullptr, false, lookup_keys});
    g->report.keys = lookup_keys->num_rows();
  } else {
    std::vector<bool> keep = SelectEndpoints(context, bind, bind.endpoints, &explanation);
    for (size_t i = 0; i < bind.endpoints.size(); ++i) {
      if (keep[i]) g->slots.push_back(Slot{bind.endpoints[i], nullptr, false, nullptr});
    }
  }

  const auto& columns = meta.description.columns;
  std::vector<arrow::Field> fields;
  for (duckdb::column_t id : input.column_ids) {
    if (id < columns.size()) {
      g->column_ids.push_back(id);
      g->output_names.push_back(columns[id].name);
      fields.push_back(meta.schema->field(static_cast<int>(id)));
      if (std::find(g->request_columns.begin(), g->request_columns.end(), columns[id].name) ==
          g->request_columns.end()) {
        g->request_columns.push_back(columns[id].name);
      }
    } else {
      g->column_ids.push_back(duckdb::COLUMN_IDENTIFIER_ROW_ID);
      g->output_names.emplace_back();
    }
  }
  // Virtual columns only (count(*)): read the narrowest column to count rows.
  if (g->request_columns.empty() && !columns.empty()) {
    int best = 0;
    for (size_t i = 0; i < columns.size(); ++i) {
      int width = meta.schema->field(static_cast<int>(i)).type()->byte_width();
      int best_width = meta.schema->field(best).type()->byte_width();
      if (width > 0 && (best_width == 0 || width < best_width)) best = static_cast<int>(i);
    }
    g->request_columns.push_back(columns[static_cast<size_t>(best)].name);
  }
  g->placeholder = g->request_columns.empty() ? "" : g->request_columns.front();
  for (size_t i = 0; i < g->output_names.size(); ++i) {
    if (g->output_names[i].empty()) {
      int index = meta.schema->GetFieldIndex(g->placeholder);
      fields.insert(fields.begin() + static_cast<std::ptrdiff_t>(i),
                    meta.schema->field(index).WithName("__virtual" + std::to_string(i)));
    }
  }
  g->output_schema = std::make_shared<arrow::Schema>(std::move(fields));

  // Every filter DuckDB pushed down, as one expression over output positions. Optional and
  // dynamic filters are left out: DuckDB checks optional ones again above the scan, and dynamic
  // ones (join and top-N bounds) only save work.
  duckdb::vector<duckdb::unique_ptr<duckdb::Expression>> parts;
  if (input.filters) {
    for (auto& [position, filter] : input.filters->filters) {
      if (filter->filter_type == duckdb::TableFilterType::OPTIONAL_FILTER ||
          filter->filter_type == duckdb::TableFilterType::DYNAMIC_FILTER) {
        continue;
      }
      duckdb::column_t id = input.column_ids[position];
      duckdb::LogicalType type =
          id < bind.types.size() ? bind.types[id] : duckdb::LogicalType(duckdb::LogicalType::BIGINT);
      duckdb::BoundReferenceExpression ref(type, position);
      parts.push_back(filter->ToExpression(ref));
    }
  }
  if (input.filters && bind.tiered()) {
    g->lake_filters = LakeFilters(bind, *input.filters, input.column_ids);
    for (const auto& f : g->lake_filters) {
      std::string text = f.column + " " + f.op;
      for (size_t i = 0; i < f.values.size(); ++i) text += (i ? ", " : " ") + f.values[i];
      g->report.lake_filters.push_back(std::move(text));
    }
  }
  if (parts.size() == 1) {
    g->filter = std::move(parts[0]);
  } else if (parts.size() > 1) {
    auto conjunction = duckdb::make_uniq<duckdb::BoundConjunctionExpression>(
        duckdb::ExpressionType::CONJUNCTION_AND);
    for (auto& p : parts) conjunction->children.push_back(std::move(p));
    g->filter = std::move(conjunction);
  }

  g->max_threads = std::max<idx_t>(1, duckdb::TaskScheduler::GetScheduler(context).NumberOfThreads());
  if (g->slots.empty()) g->max_threads = 1;
  g->report.table = "mink." + g->table;
  g->report.mode = lookup_keys != nullptr ? "lookup"
                   : bind.tiered()        ? "union"
                   : g->snapshot          ? "snapshot"
                                          : "log";
  g->report.columns = g->request_columns;
  g->report.buckets_total = static_cast<int64_t>(bind.endpoints.size());
  g->report.buckets_read = lookup_keys != nullptr ? 0 : static_cast<int64_t>(g->slots.size());
  return g;
}

duckdb::unique_ptr<duckdb::LocalTableFunctionState> InitLocal(
    duckdb::ExecutionContext& context, duckdb::TableFunctionInitInput&,
    duckdb::GlobalTableFunctionState* global) {
  auto& g = global->Cast<ScanGlobalState>();
  auto l = duckdb::make_uniq<ScanLocalState>(context.client);
  l->arrow.column_ids = g.column_ids;
  if (g.filter) l->executor = duckdb::make_uniq<duckdb::ExpressionExecutor>(context.client, *g.filter);
  return l;
}

void Scan(ClientContext&, duckdb::TableFunctionInput& input, duckdb::DataChunk& output) {
  const auto& bind = input.bind_data->Cast<ScanBindData>();
  auto& g = input.global_state->Cast<ScanGlobalState>();
  auto& l = input.local_state->Cast<ScanLocalState>();
  while (true) {
    if (l.arrow.chunk_offset >= l.length) {
      if (!NextBatch(bind, g, l)) return;  // empty output: the scan is done
    }
    idx_t size = std::min<idx_t>(STANDARD_VECTOR_SIZE, l.length - l.arrow.chunk_offset);
    output.SetCardinality(size);
    duckdb::ArrowTableFunction::ArrowToDuckDB(l.arrow, bind.arrow_table->GetColumns(), output, 0,
                                              true);
    for (idx_t i = 0; i < g.column_ids.size(); ++i) {
      if (g.output_names[i].empty()) {
        output.data[i].SetVectorType(duckdb::VectorType::CONSTANT_VECTOR);
        duckdb::ConstantVector::SetNull(output.data[i], true);
      }
    }
    l.arrow.chunk_offset += size;
    if (l.executor) {
      idx_t selected = l.executor->SelectExpression(output, l.sel);
      if (selected == 0) {
        output.Reset();
        continue;
      }
      if (selected < size) output.Slice(l.sel, selected);
    }
    return;
  }
}

duckdb::InsertionOrderPreservingMap<std::string> ToString(
    duckdb::TableFunctionToStringInput& input) {
  duckdb::InsertionOrderPreservingMap<std::string> result;
  const auto& bind = input.bind_data->Cast<ScanBindData>();
  result["Table"] = "mink." + bind.meta->full_name();
  if (!bind.lookup.empty()) {
    result["Read"] = "lookup (primary-key table)";
    result["Keys"] = bind.lookup;
    return result;
  }
  result["Read"] = bind.tiered()     ? "lake + log (tiered table)"
                   : bind.snapshot() ? "KV snapshot (primary-key table)"
                                     : "log";
  result["Buckets"] = bind.pruning.empty() ? std::to_string(bind.endpoints.size()) + " (all)"
                                          : bind.pruning;
  return result;
}

duckdb::InsertionOrderPreservingMap<std::string> DynamicToString(
    duckdb::TableFunctionDynamicToStringInput& input) {
  duckdb::InsertionOrderPreservingMap<std::string> result;
  if (!input.global_state) return result;
  auto& g = input.global_state->Cast<ScanGlobalState>();
  result["Buckets Read"] = std::to_string(g.report.buckets_read) + " of " +
                           std::to_string(g.report.buckets_total);
  result["Batches Received"] = std::to_string(g.batches.load());
  result["Rows Received"] = std::to_string(g.rows.load());
  result["Bytes Received"] = std::to_string(g.bytes.load());
  return result;
}

}  // namespace

duckdb::unique_ptr<duckdb::FunctionData> ScanBindData::Copy() const {
  auto copy = duckdb::make_uniq<ScanBindData>();
  copy->cluster = cluster;
  copy->recorder = recorder;
  copy->meta = meta;
  copy->arrow_table = arrow_table;
  copy->types = types;
  copy->endpoints = endpoints;
  copy->bounds = bounds;
  copy->stats_rows = stats_rows;
  copy->compressed = compressed;
  copy->partition_predicates = partition_predicates;
  copy->key_values = key_values;
  copy->lookup = lookup;
  copy->pruning = pruning;
  return copy;
}

bool ScanBindData::Equals(const duckdb::FunctionData& other) const { return this == &other; }

std::shared_ptr<duckdb::ArrowTableSchema> MakeArrowTableSchema(duckdb::DBConfig& config,
                                                               const arrow::Schema& schema) {
  ArrowSchema c_schema;
  Status st = arrow::ExportSchema(schema, &c_schema);
  if (!st.ok()) throw duckdb::IOException("mink: table schema: %s", st.message());
  auto result = std::make_shared<duckdb::ArrowTableSchema>();
  try {
    duckdb::ArrowTableFunction::PopulateArrowTableSchema(config, *result, c_schema);
  } catch (...) {
    c_schema.release(&c_schema);
    throw;
  }
  c_schema.release(&c_schema);
  return result;
}

// Column statistics for the scan of a log table: asked before the endpoints are listed, and used
// only if every endpoint has them; each endpoint then reads its log below the statistics' end, so
// rows committed after bind time cannot fall outside the bounds DuckDB plans with.
namespace {
void AddColumnStats(const client::TableMeta& meta, ScanBindData& bind,
                    const std::vector<table::BucketColumnStats>& stats) {
  using BucketKey = std::pair<std::optional<std::string>, int32_t>;
  std::map<BucketKey, const table::BucketColumnStats*> by_bucket;
  for (const auto& b : stats) by_bucket[{b.partition, b.bucket}] = &b;
  std::vector<const table::BucketColumnStats*> matched;
  for (const auto& e : bind.endpoints) {
    auto it = by_bucket.find({e.partition, e.bucket});
    if (it == by_bucket.end()) return;  // a bucket created meanwhile: no statistics
    matched.push_back(it->second);
  }
  // Per matched bucket: its ranges by column name.
  std::vector<std::map<std::string, const table::ColumnRange*>> ranges(matched.size());
  for (size_t i = 0; i < matched.size(); ++i) {
    for (const auto& r : matched[i]->columns) ranges[i][r.column] = &r;
  }
  const auto& columns = meta.description.columns;
  bind.bounds.assign(columns.size(), ColumnBounds{});
  int64_t rows = 0;
  for (size_t i = 0; i < bind.endpoints.size(); ++i) {
    bind.endpoints[i].end = matched[i]->end;
    rows += matched[i]->rows;
  }
  bind.stats_rows = rows;
  for (size_t c = 0; c < columns.size(); ++c) {
    ColumnBounds bounds;
    bounds.known = true;
    for (const auto& bucket_ranges : ranges) {
      auto it = bucket_ranges.find(columns[c].name);
      if (it == bucket_ranges.end()) {
        bounds.known = false;
        break;
      }
      const table::ColumnRange& r = *it->second;
      bounds.has_null = bounds.has_null || r.null_count > 0;
      if (r.has_values) {
        bounds.min = bounds.min ? std::min(*bounds.min, r.min) : r.min;
        bounds.max = bounds.max ? std::max(*bounds.max, r.max) : r.max;
      }
    }
    bind.bounds[c] = bounds;
  }
}
}  // namespace

duckdb::unique_ptr<ScanBindData> MakeScanBindData(
    ClientContext& context, std::shared_ptr<client::Cluster> cluster,
    std::shared_ptr<ScanRecorder> recorder, std::shared_ptr<const client::TableMeta> meta,
    std::shared_ptr<duckdb::ArrowTableSchema> arrow_table,
    std::vector<duckdb::LogicalType> types) {
  auto bind = duckdb::make_uniq<ScanBindData>();
  duckdb::Value compressed;
  bind->compressed = !context.TryGetCurrentSetting(kCompressedScanSetting, compressed) ||
                     compressed.IsNull() || compressed.GetValue<bool>();
  duckdb::Value use_stats;
  // A tiered table's rows are partly in the lake, which the log's statistics do not cover.
  bool with_stats = !meta->description.has_primary_key() && meta->description.lake_format.empty() &&
                    (!context.TryGetCurrentSetting(kColumnStatisticsSetting, use_stats) ||
                    use_stats.IsNull() || use_stats.GetValue<bool>());
  // Statistics are an optimisation: a node that cannot give them leaves the scan without them.
  Result<std::vector<table::BucketColumnStats>> stats = std::vector<table::BucketColumnStats>{};
  if (with_stats) stats = cluster->ColumnStats(meta->database, meta->table);  // before Endpoints
  bind->endpoints = ValueOrThrow(cluster->Endpoints(meta->database, meta->table),
                                 "listing the buckets of " + meta->full_name());
  if (with_stats && stats.ok()) AddColumnStats(*meta, *bind, *stats);
  bind->cluster = std::move(cluster);
  bind->recorder = std::move(recorder);
  bind->meta = std::move(meta);
  bind->arrow_table = std::move(arrow_table);
  bind->types = std::move(types);
  return bind;
}

namespace {
int64_t DuckDBUnitsPerSecond(duckdb::LogicalTypeId id) {
  switch (id) {
    case duckdb::LogicalTypeId::TIMESTAMP_SEC: return 1;
    case duckdb::LogicalTypeId::TIMESTAMP_MS: return 1000;
    case duckdb::LogicalTypeId::TIME_NS:
    case duckdb::LogicalTypeId::TIMESTAMP_NS: return 1'000'000'000;
    default: return 1'000'000;  // TIME, TIMESTAMP, TIMESTAMP WITH TIME ZONE
  }
}

// `value` counted `from` units per second -> `to` units per second, rounded down or up (so that
// converted bounds still hold every converted value); false on overflow.
bool ToUnits(int64_t value, int64_t from, int64_t to, bool round_up, int64_t* out) {
  if (to >= from) return !__builtin_mul_overflow(value, to / from, out);
  int64_t d = from / to;
  int64_t q = value / d, r = value % d;
  if (r != 0 && (value < 0) != round_up) q += round_up ? 1 : -1;
  *out = q;
  return true;
}

duckdb::Value TemporalValue(duckdb::LogicalTypeId id, int64_t v) {
  using duckdb::Value;
  switch (id) {
    case duckdb::LogicalTypeId::TIME: return Value::TIME(duckdb::dtime_t(v));
    case duckdb::LogicalTypeId::TIME_NS: return Value::TIME_NS(duckdb::dtime_ns_t(v));
    case duckdb::LogicalTypeId::TIMESTAMP_SEC:
      return Value::TIMESTAMPSEC(duckdb::timestamp_sec_t(v));
    case duckdb::LogicalTypeId::TIMESTAMP_MS: return Value::TIMESTAMPMS(duckdb::timestamp_ms_t(v));
    case duckdb::LogicalTypeId::TIMESTAMP_NS: return Value::TIMESTAMPNS(duckdb::timestamp_ns_t(v));
    case duckdb::LogicalTypeId::TIMESTAMP_TZ: return Value::TIMESTAMPTZ(duckdb::timestamp_tz_t(v));
    default: return Value::TIMESTAMP(duckdb::timestamp_t(v));
  }
}

// The node's bounds of an integer-valued column as DuckDB statistics (TINYINT..BIGINT, DATE,
// TIME and TIMESTAMP).
duckdb::unique_ptr<duckdb::BaseStatistics> Statistics(ClientContext&,
                                                      const duckdb::FunctionData* bind_data,
                                                      duckdb::column_t column) {
  const auto& bind = bind_data->Cast<ScanBindData>();
  if (column >= bind.bounds.size() || !bind.bounds[column].known) return nullptr;
  const ColumnBounds& b = bind.bounds[column];
  if (!b.min || !b.max) return nullptr;
  const duckdb::LogicalType& type = bind.types[column];
  auto fits = [&](int64_t lo, int64_t hi) { return *b.min >= lo && *b.max <= hi; };
  duckdb::Value min, max;
  switch (type.id()) {
    case duckdb::LogicalTypeId::TINYINT:
      if (!fits(INT8_MIN, INT8_MAX)) return nullptr;
      min = duckdb::Value::TINYINT(static_cast<int8_t>(*b.min));
      max = duckdb::Value::TINYINT(static_cast<int8_t>(*b.max));
      break;
    case duckdb::LogicalTypeId::SMALLINT:
      if (!fits(INT16_MIN, INT16_MAX)) return nullptr;
      min = duckdb::Value::SMALLINT(static_cast<int16_t>(*b.min));
      max = duckdb::Value::SMALLINT(static_cast<int16_t>(*b.max));
      break;
    case duckdb::LogicalTypeId::INTEGER:
      if (!fits(INT32_MIN, INT32_MAX)) return nullptr;
      min = duckdb::Value::INTEGER(static_cast<int32_t>(*b.min));
      max = duckdb::Value::INTEGER(static_cast<int32_t>(*b.max));
      break;
    case duckdb::LogicalTypeId::BIGINT:
      min = duckdb::Value::BIGINT(*b.min);
      max = duckdb::Value::BIGINT(*b.max);
      break;
    case duckdb::LogicalTypeId::DATE:
      if (!fits(INT32_MIN, INT32_MAX)) return nullptr;
      min = duckdb::Value::DATE(duckdb::date_t(static_cast<int32_t>(*b.min)));
      max = duckdb::Value::DATE(duckdb::date_t(static_cast<int32_t>(*b.max)));
      break;
    case duckdb::LogicalTypeId::TIME:
    case duckdb::LogicalTypeId::TIME_NS:
    case duckdb::LogicalTypeId::TIMESTAMP_SEC:
    case duckdb::LogicalTypeId::TIMESTAMP_MS:
    case duckdb::LogicalTypeId::TIMESTAMP:
    case duckdb::LogicalTypeId::TIMESTAMP_NS:
    case duckdb::LogicalTypeId::TIMESTAMP_TZ: {
      // The node's values count the Mink type's units; DuckDB's column may count others.
      int64_t lo = 0, hi = 0;
      const int64_t from = bind.meta->description.columns[column].type.UnitsPerSecond();
      if (!ToUnits(*b.min, from, DuckDBUnitsPerSecond(type.id()), false, &lo) ||
          !ToUnits(*b.max, from, DuckDBUnitsPerSecond(type.id()), true, &hi)) {
        return nullptr;
      }
      min = TemporalValue(type.id(), lo);
      max = TemporalValue(type.id(), hi);
      break;
    }
    default:
      return nullptr;
  }
  auto stats = duckdb::NumericStats::CreateEmpty(type);
  duckdb::NumericStats::SetMin(stats, min);
  duckdb::NumericStats::SetMax(stats, max);
  stats.SetHasNoNull();
  if (b.has_null) stats.SetHasNull();
  return stats.ToUnique();
}

duckdb::unique_ptr<duckdb::NodeStatistics> Cardinality(ClientContext&,
                                                       const duckdb::FunctionData* bind_data) {
  const auto& bind = bind_data->Cast<ScanBindData>();
  if (!bind.stats_rows) return nullptr;
  return duckdb::make_uniq<duckdb::NodeStatistics>(static_cast<idx_t>(*bind.stats_rows));
}
}  // namespace

duckdb::TableFunction MakeScanFunction() {
  duckdb::TableFunction function("mink_scan", {}, Scan, nullptr, InitGlobal, InitLocal);
  function.projection_pushdown = true;
  function.filter_pushdown = true;
  function.filter_prune = false;
  function.pushdown_complex_filter = PushdownComplexFilter;
  function.to_string = ToString;
  function.dynamic_to_string = DynamicToString;
  function.statistics = Statistics;
  function.cardinality = Cardinality;
  return function;
}

}  // namespace mink::query::internal
