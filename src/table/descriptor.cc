#include "table/descriptor.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "base/strings.h"

namespace mink::table {

using nlohmann::json;

namespace {

std::vector<int> Indexes(const TableSchema& schema, const std::vector<std::string>& names) {
  std::vector<int> out;
  for (const auto& n : names) out.push_back(schema.Find(n));
  return out;
}

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

const std::set<std::string>& AggregateFunctions() {
  static const std::set<std::string> fns = {
      "sum", "product", "max", "min", "last_value", "last_value_ignore_nulls", "first_value",
      "first_value_ignore_nulls", "listagg", "string_agg", "bool_and", "bool_or"};
  return fns;
}

bool PartitionTypeAllowed(const LogicalType& t) {
  return !t.IsNested() && t.kind != TypeKind::kDecimal && t.kind != TypeKind::kTimestampLtz;
}

}  // namespace

bool IsReservedColumnName(const std::string& name) {
  static const std::set<std::string> reserved = {"__offset", "__timestamp", "__bucket",
                                                 "__change", "_change_type", "_log_offset",
                                                 "_commit_timestamp"};
  return reserved.count(name) > 0;
}

const TableSchema* TableDescriptor::SchemaById(int32_t schema_id) const {
  if (schema_id == schema.schema_id) return &schema;
  for (const auto& s : past_schemas) {
    if (s.schema_id == schema_id) return &s;
  }
  return nullptr;
}

std::vector<int> TableDescriptor::PrimaryKeyIndexes() const { return Indexes(schema, primary_key); }
std::vector<int> TableDescriptor::PartitionKeyIndexes() const {
  return Indexes(schema, partition_keys);
}
std::vector<int> TableDescriptor::BucketKeyIndexes() const { return Indexes(schema, bucket_keys); }

Result<TableDescriptor> MakeDescriptor(const TableSpec& spec) {
  TableDescriptor d;
  if (spec.columns.empty()) return InvalidArgumentError("a table needs at least one column");
  for (const auto& text : spec.columns) {
    MINK_ASSIGN_OR_RETURN(Column c, ParseColumn(text));
    if (IsReservedColumnName(c.name)) {
      return InvalidArgumentError("column name '" + c.name + "' is reserved");
    }
    if (d.schema.Find(c.name) >= 0) {
      return InvalidArgumentError("column '" + c.name + "' is defined twice");
    }
    c.id = d.next_column_id++;
    d.schema.columns.push_back(std::move(c));
  }
  auto check_known = [&](const std::vector<std::string>& names, const std::string& what) -> Status {
    std::set<std::string> seen;
    for (const auto& n : names) {
      if (d.schema.Find(n) < 0) {
        return InvalidArgumentError(what + " column '" + n + "' is not a column of the table");
      }
      if (!seen.insert(n).second) return InvalidArgumentError(what + " column '" + n + "' is listed twice");
    }
    return Status::Ok();
  };
  MINK_RETURN_IF_ERROR(check_known(spec.primary_key, "primary key"));
  MINK_RETURN_IF_ERROR(check_known(spec.partition_by, "partition"));
  MINK_RETURN_IF_ERROR(check_known(spec.bucket_key, "bucket key"));
  d.primary_key = spec.primary_key;
  d.partition_keys = spec.partition_by;

  for (const auto& k : d.primary_key) {
    Column& c = d.schema.columns[static_cast<size_t>(d.schema.Find(k))];
    if (c.type.IsNested()) {
      return InvalidArgumentError("primary key column '" + k + "' cannot be " + c.type.ToString());
    }
    c.not_null = true;  // primary-key columns are never null
    c.type.nullable = false;
  }
  for (const auto& p : d.partition_keys) {
    const Column& c = d.schema.columns[static_cast<size_t>(d.schema.Find(p))];
    if (!PartitionTypeAllowed(c.type)) {
      return InvalidArgumentError("partition column '" + p + "' cannot be " + c.type.ToString());
    }
    if (d.has_primary_key() && !Contains(d.primary_key, p)) {
      return InvalidArgumentError("partition column '" + p +
                                  "' must be part of the primary key of a primary-key table");
    }
  }
  if (!spec.bucket_key.empty()) {
    for (const auto& b : spec.bucket_key) {
      if (Contains(d.partition_keys, b)) {
        return InvalidArgumentError("bucket key column '" + b + "' must not be a partition column");
      }
      if (d.has_primary_key() && !Contains(d.primary_key, b)) {
        return InvalidArgumentError("bucket key column '" + b +
                                    "' must be part of the primary key");
      }
      const Column& c = d.schema.columns[static_cast<size_t>(d.schema.Find(b))];
      if (c.type.IsNested()) {
        return InvalidArgumentError("bucket key column '" + b + "' cannot be " + c.type.ToString());
      }
    }
    d.bucket_keys = spec.bucket_key;
  } else if (d.has_primary_key()) {
    for (const auto& k : d.primary_key) {
      if (!Contains(d.partition_keys, k)) d.bucket_keys.push_back(k);
    }
    if (d.bucket_keys.empty()) {
      return InvalidArgumentError("the primary key has no column besides the partition columns");
    }
  }
  if (spec.bucket_count < 0 || spec.bucket_count > 4096) {
    return InvalidArgumentError("bucket count must be 1..4096");
  }
  d.bucket_count = spec.bucket_count == 0 ? 1 : spec.bucket_count;

  std::map<std::string, std::string> options = spec.options;
  d.options = options;
  auto take = [&](const std::string& key) -> std::string {
    auto it = options.find(key);
    if (it == options.end()) return "";
    std::string v = it->second;
    options.erase(it);
    return v;
  };
  const std::string bucket_function = take("bucket.function");
  if (!bucket_function.empty()) {
    MINK_ASSIGN_OR_RETURN(d.bucket_function, ParseBucketFunction(bucket_function));
  }
  // Tiering into the lake (docs/lake.md): Fluss's table.datalake.* options.
  if (std::string lake = take("table.datalake.enabled"); !lake.empty()) {
    MINK_ASSIGN_OR_RETURN(d.lake_enabled, ParseBool(lake));
  }
  const std::string lake_format = take("table.datalake.format");
  if (!lake_format.empty() && lake_format != "iceberg") {
    return InvalidArgumentError("table.datalake.format must be iceberg, not '" + lake_format + "'");
  }
  if (std::string freshness = take("table.datalake.freshness"); !freshness.empty()) {
    MINK_ASSIGN_OR_RETURN(auto ms, ParseDuration(freshness));
    if (ms.count() < 100) {
      return InvalidArgumentError("table.datalake.freshness must be at least 100ms");
    }
    d.lake_freshness_ms = ms.count();
  }
  if (std::string compaction = take("table.datalake.auto-compaction"); !compaction.empty()) {
    MINK_ASSIGN_OR_RETURN(d.lake_auto_compaction, ParseBool(compaction));
  }
  if (d.lake_enabled) {
    // A lake table buckets rows as Iceberg's bucket transform does, so a Mink bucket is one
    // Iceberg bucket partition; that transform hashes one column.
    if (d.has_primary_key() && d.primary_key.size() - d.partition_keys.size() != 1) {
      return InvalidArgumentError(
          "a tiered primary-key table has a single-column primary key (besides its partition "
          "columns): Iceberg's bucket transform hashes one column");
    }
    if (!bucket_function.empty() && d.bucket_function != BucketFunction::kIceberg) {
      return InvalidArgumentError("a tiered table buckets rows as Iceberg does: bucket.function "
                                  "must be iceberg (the default when tiered)");
    }
    if (!d.bucket_keys.empty()) d.bucket_function = BucketFunction::kIceberg;
    for (const auto& name : d.partition_keys) {
      const TypeKind k = d.schema.columns[static_cast<size_t>(d.schema.Find(name))].type.kind;
      if (k != TypeKind::kString && k != TypeKind::kBoolean && k != TypeKind::kDate &&
          k != TypeKind::kTinyInt && k != TypeKind::kSmallInt && k != TypeKind::kInt &&
          k != TypeKind::kBigInt) {
        return InvalidArgumentError("partition column '" + name + "' of a tiered table must be "
                                    "STRING, BOOLEAN, DATE or an integer (an Iceberg identity "
                                    "partition of its values)");
      }
    }
    for (const auto& c : d.schema.columns) {
      if (c.type.IsNested()) {
        return InvalidArgumentError("column '" + c.name + "' is " + c.type.ToString() +
                                    ": ARRAY, MAP and ROW columns cannot be tiered yet");
      }
      if ((c.type.kind == TypeKind::kTimestamp || c.type.kind == TypeKind::kTimestampLtz ||
           c.type.kind == TypeKind::kTime) &&
          c.type.precision > 6) {
        return InvalidArgumentError("column '" + c.name + "' is " + c.type.ToString() +
                                    ": Iceberg v2 keeps times to the microsecond (precision 6 at "
                                    "most)");
      }
    }
  }
  if (d.bucket_function == BucketFunction::kIceberg && d.bucket_keys.size() != 1) {
    return InvalidArgumentError("Iceberg bucketing needs exactly one bucket-key column");
  }
  std::string engine = take("table.merge-engine");
  if (!engine.empty() && !d.has_primary_key()) {
    return InvalidArgumentError("a merge engine needs a primary-key table");
  }
  if (engine.empty() || engine == "default" || engine == "last_row") {
    d.merge_engine = MergeEngineKind::kDefault;
  } else if (engine == "first_row") {
    d.merge_engine = MergeEngineKind::kFirstRow;
  } else if (engine == "versioned") {
    d.merge_engine = MergeEngineKind::kVersioned;
    d.version_column = take("table.merge-engine.versioned.ver-column");
    int idx = d.schema.Find(d.version_column);
    if (idx < 0) {
      return InvalidArgumentError("the versioned merge engine needs "
                                  "table.merge-engine.versioned.ver-column naming a column");
    }
    TypeKind k = d.schema.columns[static_cast<size_t>(idx)].type.kind;
    if (k != TypeKind::kInt && k != TypeKind::kBigInt && k != TypeKind::kTimestamp &&
        k != TypeKind::kTimestampLtz) {
      return InvalidArgumentError("version column '" + d.version_column +
                                  "' must be INT, BIGINT, TIMESTAMP or TIMESTAMP_LTZ");
    }
  } else if (engine == "aggregation") {
    d.merge_engine = MergeEngineKind::kAggregation;
  } else {
    return InvalidArgumentError("unknown merge engine '" + engine +
                                "' (default, first_row, versioned, aggregation)");
  }
  for (auto it = options.begin(); it != options.end();) {
    const std::string& key = it->first;
    if (key.rfind("fields.", 0) == 0 && key.size() > 11 && key.substr(key.size() - 4) == ".agg") {
      std::string column = key.substr(7, key.size() - 11);
      if (d.merge_engine != MergeEngineKind::kAggregation) {
        return InvalidArgumentError("aggregate functions need table.merge-engine=aggregation");
      }
      if (d.schema.Find(column) < 0) {
        return InvalidArgumentError("option " + key + " names an unknown column");
      }
      if (Contains(d.primary_key, column)) {
        return InvalidArgumentError("primary key column '" + column + "' cannot be aggregated");
      }
      if (!AggregateFunctions().count(it->second)) {
        return InvalidArgumentError("unknown aggregate function '" + it->second + "' for " + column);
      }
      d.aggregations[column] = it->second;
      it = options.erase(it);
    } else {
      ++it;
    }
  }
  // fields.<col>.listagg.delimiter (Fluss's fields.<col>.<fn>.<param>), also spelled
  // fields.<col>.listagg-delimiter; string_agg is listagg's other name.
  for (auto it = options.begin(); it != options.end();) {
    const std::string& key = it->first;
    std::string column;
    for (const char* suffix : {".listagg.delimiter", ".listagg-delimiter", ".string_agg.delimiter"}) {
      const std::string sfx = suffix;
      if (key.rfind("fields.", 0) == 0 && key.size() > 7 + sfx.size() &&
          key.compare(key.size() - sfx.size(), sfx.size(), sfx) == 0) {
        column = key.substr(7, key.size() - 7 - sfx.size());
      }
    }
    if (column.empty()) {
      ++it;
      continue;
    }
    auto fn = d.aggregations.find(column);
    if (fn == d.aggregations.end() || (fn->second != "listagg" && fn->second != "string_agg")) {
      return InvalidArgumentError("option " + key + " needs fields." + column +
                                  ".agg=listagg (or string_agg)");
    }
    d.listagg_delimiters[column] = it->second;
    it = options.erase(it);
  }
  if (std::string image = take("table.changelog.image"); !image.empty()) {
    if (!d.has_primary_key()) return InvalidArgumentError("table.changelog.image needs a primary key");
    if (image == "full" || image == "FULL") d.changelog_image = ChangelogImage::kFull;
    else if (image == "wal" || image == "WAL") d.changelog_image = ChangelogImage::kWal;
    else return InvalidArgumentError("table.changelog.image must be full or wal");
    if (d.changelog_image == ChangelogImage::kWal &&
        d.merge_engine == MergeEngineKind::kAggregation) {
      return InvalidArgumentError("the wal changelog image cannot be used with the aggregation engine");
    }
  }
  // first_row and versioned ignore deletes unless told otherwise; ALLOW is refused for them.
  if (d.merge_engine == MergeEngineKind::kFirstRow || d.merge_engine == MergeEngineKind::kVersioned) {
    d.delete_behavior = DeleteBehavior::kIgnore;
  }
  if (std::string del = take("table.delete.behavior"); !del.empty()) {
    if (!d.has_primary_key()) return InvalidArgumentError("table.delete.behavior needs a primary key");
    if (del == "allow" || del == "ALLOW") d.delete_behavior = DeleteBehavior::kAllow;
    else if (del == "ignore" || del == "IGNORE") d.delete_behavior = DeleteBehavior::kIgnore;
    else if (del == "disable" || del == "DISABLE") d.delete_behavior = DeleteBehavior::kDisable;
    else return InvalidArgumentError("table.delete.behavior must be allow, ignore or disable");
    if (d.delete_behavior == DeleteBehavior::kAllow &&
        (d.merge_engine == MergeEngineKind::kFirstRow ||
         d.merge_engine == MergeEngineKind::kVersioned)) {
      return InvalidArgumentError("deletes cannot be allowed with the first_row or versioned engine");
    }
  }
  if (std::string ttl = take("table.log.ttl"); !ttl.empty()) {
    MINK_ASSIGN_OR_RETURN(auto ms, ParseDuration(ttl));
    d.log_ttl_ms = ms.count();
  }
  // auto-increment.fields (Fluss's name; also table.auto-increment.fields): one INT or BIGINT
  // column of a primary-key table, outside every key, that the table fills for each new key.
  std::string auto_increment = take("auto-increment.fields");
  if (std::string alias = take("table.auto-increment.fields"); !alias.empty()) auto_increment = alias;
  const std::string cache = take("table.auto-increment.cache-size");
  if (!auto_increment.empty()) {
    if (!d.has_primary_key()) {
      return InvalidArgumentError("an auto-increment column needs a primary-key table");
    }
    if (auto_increment.find(',') != std::string::npos) {
      return InvalidArgumentError("a table has at most one auto-increment column, not '" +
                                  auto_increment + "'");
    }
    const int i = d.schema.Find(auto_increment);
    if (i < 0) {
      return InvalidArgumentError("auto-increment column '" + auto_increment +
                                  "' is not a column of the table");
    }
    const TypeKind k = d.schema.columns[static_cast<size_t>(i)].type.kind;
    if (k != TypeKind::kInt && k != TypeKind::kBigInt) {
      return InvalidArgumentError("auto-increment column '" + auto_increment +
                                  "' must be INT or BIGINT");
    }
    for (const auto* keys : {&d.primary_key, &d.partition_keys, &d.bucket_keys}) {
      if (std::find(keys->begin(), keys->end(), auto_increment) != keys->end()) {
        return InvalidArgumentError("auto-increment column '" + auto_increment +
                                    "' cannot be part of the primary, partition or bucket key");
      }
    }
    if (d.aggregations.count(auto_increment)) {
      return InvalidArgumentError("auto-increment column '" + auto_increment +
                                  "' cannot have an aggregate function");
    }
    d.auto_increment_column = auto_increment;
  }
  if (!cache.empty()) {
    if (auto_increment.empty()) {
      return InvalidArgumentError("table.auto-increment.cache-size needs an auto-increment column");
    }
    MINK_ASSIGN_OR_RETURN(int64_t size, ParseInt64(cache));
    if (size < 1 || size > 100'000'000) {
      return InvalidArgumentError("table.auto-increment.cache-size must be 1..100000000");
    }
    d.auto_increment_cache_size = size;
  }
  if (std::string per_record = take("table.writer.sequence-per-record"); !per_record.empty()) {
    MINK_ASSIGN_OR_RETURN(d.sequence_per_record, ParseBool(per_record));
  }
  if (std::string c = take("table.log.arrow.compression.type"); !c.empty()) {
    std::string lower;
    for (char ch : c) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
    if (lower != "none" && lower != "lz4" && lower != "lz4_frame" && lower != "zstd") {
      return InvalidArgumentError("table.log.arrow.compression.type must be none, lz4 or zstd");
    }
  }
  if (!options.empty()) {
    return InvalidArgumentError("unknown table option '" + options.begin()->first + "'");
  }
  return d;
}

std::string TableDescriptor::ToJson() const {
  auto columns_of = [](const TableSchema& s) {
    json columns = json::array();
    for (const auto& c : s.columns) {
      columns.push_back(
          {{"name", c.name}, {"type", c.type.ToString()}, {"not_null", c.not_null}, {"id", c.id}});
    }
    return columns;
  };
  json past = json::array();
  for (const auto& s : past_schemas) {
    past.push_back({{"schema_id", s.schema_id}, {"columns", columns_of(s)}});
  }
  json j = {{"columns", columns_of(schema)},
            {"schema_id", schema.schema_id},
            {"past_schemas", past},
            {"next_column_id", next_column_id},
            {"primary_key", primary_key},
            {"partition_keys", partition_keys},
            {"bucket_keys", bucket_keys},
            {"bucket_count", bucket_count},
            {"bucket_function", std::string(BucketFunctionName(bucket_function))},
            {"merge_engine", static_cast<int>(merge_engine)},
            {"version_column", version_column},
            {"aggregations", aggregations},
            {"auto_increment_column", auto_increment_column},
            {"lake_enabled", lake_enabled},
            {"lake_freshness_ms", lake_freshness_ms},
            {"lake_auto_compaction", lake_auto_compaction},
            {"auto_increment_cache_size", auto_increment_cache_size},
            {"listagg_delimiters", listagg_delimiters},
            {"changelog_image", static_cast<int>(changelog_image)},
            {"delete_behavior", static_cast<int>(delete_behavior)},
            {"log_ttl_ms", log_ttl_ms},
            {"sequence_per_record", sequence_per_record},
            {"options", options}};
  return j.dump();
}

Result<TableDescriptor> TableDescriptor::FromJson(const std::string& text) {
  try {
    json j = json::parse(text);
    TableDescriptor d;
    // Tables made before column ids have ids 0, 1, ... in column order (and one schema).
    auto parse_columns = [](const json& list, TableSchema* out) -> Status {
      for (const auto& c : list) {
        MINK_ASSIGN_OR_RETURN(LogicalType t, ParseType(c.at("type").get<std::string>()));
        Column col{c.at("name").get<std::string>(), t, c.at("not_null").get<bool>(),
                   c.value("id", static_cast<int32_t>(out->columns.size()))};
        col.type.nullable = !col.not_null;
        out->columns.push_back(std::move(col));
      }
      return Status::Ok();
    };
    MINK_RETURN_IF_ERROR(parse_columns(j.at("columns"), &d.schema));
    d.schema.schema_id = j.at("schema_id").get<int32_t>();
    for (const auto& p : j.value("past_schemas", json::array())) {
      TableSchema s;
      s.schema_id = p.at("schema_id").get<int32_t>();
      MINK_RETURN_IF_ERROR(parse_columns(p.at("columns"), &s));
      d.past_schemas.push_back(std::move(s));
    }
    int32_t next_id = 0;
    for (const auto& c : d.schema.columns) next_id = std::max(next_id, c.id + 1);
    d.next_column_id = j.value("next_column_id", next_id);
    d.primary_key = j.at("primary_key").get<std::vector<std::string>>();
    d.partition_keys = j.at("partition_keys").get<std::vector<std::string>>();
    d.bucket_keys = j.at("bucket_keys").get<std::vector<std::string>>();
    d.bucket_count = j.at("bucket_count").get<int32_t>();
    MINK_ASSIGN_OR_RETURN(d.bucket_function,
                          ParseBucketFunction(j.at("bucket_function").get<std::string>()));
    d.merge_engine = static_cast<MergeEngineKind>(j.at("merge_engine").get<int>());
    d.version_column = j.at("version_column").get<std::string>();
    d.aggregations = j.at("aggregations").get<std::map<std::string, std::string>>();
    d.auto_increment_column = j.value("auto_increment_column", std::string());
    d.lake_enabled = j.value("lake_enabled", false);
    d.lake_freshness_ms = j.value("lake_freshness_ms", int64_t{180'000});
    d.lake_auto_compaction = j.value("lake_auto_compaction", false);
    d.auto_increment_cache_size = j.value("auto_increment_cache_size", int64_t{100'000});
    d.listagg_delimiters =
        j.value("listagg_delimiters", std::map<std::string, std::string>{});
    d.changelog_image = static_cast<ChangelogImage>(j.at("changelog_image").get<int>());
    d.delete_behavior = static_cast<DeleteBehavior>(j.at("delete_behavior").get<int>());
    d.log_ttl_ms = j.at("log_ttl_ms").get<int64_t>();
    d.sequence_per_record = j.value("sequence_per_record", false);
    d.options = j.at("options").get<std::map<std::string, std::string>>();
    return d;
  } catch (const std::exception& e) {
    return DataLossError(std::string("table descriptor does not parse: ") + e.what());
  }
}

}  // namespace mink::table
