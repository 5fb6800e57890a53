#include "lake/iceberg.h"

#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "lake/avro.h"
#include "table/partition_name.h"

namespace mink::lake {

using nlohmann::json;
using table::TypeKind;

namespace {

Result<std::string> IcebergType(const table::LogicalType& t, const std::string& column) {
  switch (t.kind) {
    case TypeKind::kBoolean: return std::string("boolean");
    case TypeKind::kTinyInt:
    case TypeKind::kSmallInt:
    case TypeKind::kInt: return std::string("int");
    case TypeKind::kBigInt: return std::string("long");
    case TypeKind::kFloat: return std::string("float");
    case TypeKind::kDouble: return std::string("double");
    case TypeKind::kDecimal:
      return "decimal(" + std::to_string(t.precision) + ", " + std::to_string(t.scale) + ")";
    case TypeKind::kString: return std::string("string");
    case TypeKind::kBytes: return std::string("binary");
    case TypeKind::kDate: return std::string("date");
    case TypeKind::kTime: return std::string("time");
    case TypeKind::kTimestamp: return std::string("timestamp");
    case TypeKind::kTimestampLtz: return std::string("timestamptz");
    default:
      return InvalidArgumentError("column '" + column + "' is " + t.ToString() +
                                  ", which the lake does not take yet");
  }
}

// Days since 1970-01-01 of "YYYY-MM-DD".
Result<int64_t> DaysOf(const std::string& text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') {
    return InvalidArgumentError("not a date: " + text);
  }
  MINK_ASSIGN_OR_RETURN(int64_t y, ParseInt64(text.substr(0, 4)));
  MINK_ASSIGN_OR_RETURN(int64_t m, ParseInt64(text.substr(5, 2)));
  MINK_ASSIGN_OR_RETURN(int64_t d, ParseInt64(text.substr(8, 2)));
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void EncodePartitionValue(avro::Encoder& e, const IcebergPartitionField& f,
                          const std::optional<table::Value>& v) {
  if (!v || v->is_null()) {
    e.Null();
    return;
  }
  e.Branch(1);
  if (f.avro_type == "string") e.String(v->bytes());
  else if (f.avro_type == "boolean") e.Boolean(v->bool_value());
  else if (f.avro_type == "long") e.Long(v->int_value());
  else e.Int(static_cast<int32_t>(v->int_value()));
}

json Optional(json type) { return json::array({"null", std::move(type)}); }

}  // namespace

Result<LakeLayout> LakeLayout::Of(const table::TableDescriptor& d) {
  LakeLayout l;
  l.schema_id_ = d.schema.schema_id;
  l.bucket_count_ = d.bucket_count;
  for (const auto& c : d.schema.columns) {
    MINK_ASSIGN_OR_RETURN(std::string type, IcebergType(c.type, c.name));
    l.fields_.push_back(IcebergField{c.id + 1, c.name, type, c.not_null, c.type});
    l.last_column_id_ = std::max(l.last_column_id_, c.id + 1);
  }
  for (const auto& pk : d.primary_key) {
    l.identifier_ids_.push_back(d.schema.columns[static_cast<size_t>(d.schema.Find(pk))].id + 1);
  }
  // Earlier schemas, for readers of earlier snapshots: the same field ids, the types of then.
  for (const auto& past : d.past_schemas) {
    json fields = json::array();
    bool representable = true;
    for (const auto& c : past.columns) {
      auto type = IcebergType(c.type, c.name);
      if (!type.ok()) {
        representable = false;
        break;
      }
      fields.push_back({{"id", c.id + 1}, {"name", c.name}, {"required", c.not_null}, {"type", *type}});
    }
    if (!representable) continue;
    json schema = {{"type", "struct"}, {"schema-id", past.schema_id}, {"fields", fields}};
    if (!l.identifier_ids_.empty()) schema["identifier-field-ids"] = l.identifier_ids_;
    l.past_schemas_.push_back(schema.dump());
  }
  int32_t next_id = 1000;
  for (const auto& name : d.partition_keys) {
    const table::Column& c = d.schema.columns[static_cast<size_t>(d.schema.Find(name))];
    IcebergPartitionField p;
    p.source_id = c.id + 1;
    p.field_id = next_id++;
    p.name = name;
    p.transform = "identity";
    switch (c.type.kind) {
      case TypeKind::kString: p.avro_type = "string"; break;
      case TypeKind::kBoolean: p.avro_type = "boolean"; break;
      case TypeKind::kBigInt: p.avro_type = "long"; break;
      case TypeKind::kDate:
        p.avro_type = "int";
        p.logical_type = "date";
        break;
      case TypeKind::kTinyInt:
      case TypeKind::kSmallInt:
      case TypeKind::kInt: p.avro_type = "int"; break;
      default:
        return InvalidArgumentError("partition column '" + name + "' is " + c.type.ToString() +
                                    ", which the lake does not partition by");
    }
    l.partition_.push_back(std::move(p));
  }
  if (d.bucket_keys.size() == 1) {
    const table::Column& c =
        d.schema.columns[static_cast<size_t>(d.schema.Find(d.bucket_keys.front()))];
    IcebergPartitionField p;
    p.source_id = c.id + 1;
    p.field_id = next_id++;
    p.name = c.name + "_bucket";
    p.transform = "bucket[" + std::to_string(d.bucket_count) + "]";
    p.avro_type = "int";
    p.is_bucket = true;
    l.partition_.push_back(std::move(p));
  }
  return l;
}

std::string LakeLayout::SchemaJson() const {
  json fields = json::array();
  for (const auto& f : fields_) {
    fields.push_back({{"id", f.id}, {"name", f.name}, {"required", f.required}, {"type", f.type}});
  }
  json schema = {{"type", "struct"}, {"schema-id", schema_id_}, {"fields", fields}};
  if (!identifier_ids_.empty()) schema["identifier-field-ids"] = identifier_ids_;
  return schema.dump();
}

std::string LakeLayout::PartitionFieldsJson() const {
  json fields = json::array();
  for (const auto& p : partition_) {
    fields.push_back({{"source-id", p.source_id},
                      {"field-id", p.field_id},
                      {"name", p.name},
                      {"transform", p.transform}});
  }
  return fields.dump();
}

Result<std::vector<std::optional<table::Value>>> LakeLayout::PartitionValues(
    const std::string& partition_name, int32_t bucket) const {
  std::vector<std::optional<table::Value>> values;
  std::vector<std::string> parts =
      partition_name.empty() ? std::vector<std::string>{} : table::SplitPartitionName(partition_name);
  size_t next_part = 0;
  for (const auto& p : partition_) {
    if (p.is_bucket) {
      values.emplace_back(table::Value::Int(bucket));
      continue;
    }
    if (next_part >= parts.size()) {
      return InvalidArgumentError("partition '" + partition_name + "' has too few values");
    }
    const std::string& text = parts[next_part++];
    if (p.avro_type == "string") {
      values.emplace_back(table::Value::Bytes(text));
    } else if (p.avro_type == "boolean") {
      values.emplace_back(table::Value::Bool(text == "true"));
    } else if (p.logical_type == "date") {
      MINK_ASSIGN_OR_RETURN(int64_t days, DaysOf(text));
      values.emplace_back(table::Value::Int(days));
    } else {
      MINK_ASSIGN_OR_RETURN(int64_t v, ParseInt64(text));
      values.emplace_back(table::Value::Int(v));
    }
  }
  return values;
}

Result<std::pair<std::string, int32_t>> LakeLayout::PartitionOf(
    const std::vector<std::optional<table::Value>>& values) const {
  if (values.size() != partition_.size()) {
    return InvalidArgumentError("it has " + std::to_string(values.size()) + " partition values, the spec " +
                                std::to_string(partition_.size()));
  }
  int32_t bucket = 0;
  table::Row row;  // the partition columns' values, rendered as the table layer names partitions
  std::vector<int> columns;
  std::vector<table::LogicalType> types;
  for (size_t i = 0; i < partition_.size(); ++i) {
    const IcebergPartitionField& p = partition_[i];
    const std::optional<table::Value>& v = values[i];
    if (p.is_bucket) {
      if (!v || v->kind() != table::Value::Kind::kInt || v->int_value() < 0 || v->int_value() >= bucket_count_) {
        return InvalidArgumentError("it has no bucket of the table's " + std::to_string(bucket_count_));
      }
      bucket = static_cast<int32_t>(v->int_value());
      continue;
    }
    if (!v) return InvalidArgumentError("its " + p.name + " is null, which no Mink partition holds");
    table::LogicalType type;
    type.kind = p.avro_type == "string"    ? TypeKind::kString
                : p.avro_type == "boolean" ? TypeKind::kBoolean
                : p.logical_type == "date" ? TypeKind::kDate
                                           : TypeKind::kBigInt;
    columns.push_back(static_cast<int>(row.size()));
    row.push_back(*v);
    types.push_back(std::move(type));
  }
  std::string name;
  if (!columns.empty()) {
    MINK_ASSIGN_OR_RETURN(name, table::PartitionName(row, columns, types));
  }
  return std::make_pair(std::move(name), bucket);
}

std::string LakeLayout::Manifest(int32_t content, int64_t snapshot_id,
                                 const std::vector<ManifestEntry>& entries) const {
  json partition_fields = json::array();
  for (const auto& p : partition_) {
    json type = p.logical_type.empty() ? json(p.avro_type)
                                       : json{{"type", p.avro_type}, {"logicalType", p.logical_type}};
    partition_fields.push_back(
        {{"name", p.name}, {"type", Optional(type)}, {"default", nullptr}, {"field-id", p.field_id}});
  }
  json data_file = {
      {"type", "record"},
      {"name", "r2"},
      {"fields",
       json::array(
           {{{"name", "content"}, {"type", "int"}, {"field-id", 134}},
            {{"name", "file_path"}, {"type", "string"}, {"field-id", 100}},
            {{"name", "file_format"}, {"type", "string"}, {"field-id", 101}},
            {{"name", "partition"},
             {"type", {{"type", "record"}, {"name", "r102"}, {"fields", partition_fields}}},
             {"field-id", 102}},
            {{"name", "record_count"}, {"type", "long"}, {"field-id", 103}},
            {{"name", "file_size_in_bytes"}, {"type", "long"}, {"field-id", 104}},
            {{"name", "equality_ids"},
             {"type", Optional({{"type", "array"}, {"items", "int"}, {"element-id", 136}})},
             {"default", nullptr},
             {"field-id", 135}}})}};
  json schema = {
      {"type", "record"},
      {"name", "manifest_entry"},
      {"fields",
       json::array({{{"name", "status"}, {"type", "int"}, {"field-id", 0}},
                    {{"name", "snapshot_id"}, {"type", Optional("long")}, {"default", nullptr}, {"field-id", 1}},
                    {{"name", "sequence_number"}, {"type", Optional("long")}, {"default", nullptr}, {"field-id", 3}},
                    {{"name", "file_sequence_number"}, {"type", Optional("long")}, {"default", nullptr}, {"field-id", 4}},
                    {{"name", "data_file"}, {"type", data_file}, {"field-id", 2}}})}};
  avro::ContainerWriter file(schema.dump(), {{"schema", SchemaJson()},
                                             {"schema-id", std::to_string(schema_id_)},
                                             {"partition-spec", PartitionFieldsJson()},
                                             {"partition-spec-id", "0"},
                                             {"format-version", "2"},
                                             {"content", content == 0 ? "data" : "deletes"}});
  for (const auto& entry : entries) {
    avro::Encoder e;
    if (entry.existing_snapshot_id != 0) {
      e.Int(0);  // EXISTING: where it came from, as it was
      e.Branch(1);
      e.Long(entry.existing_snapshot_id);
      e.Branch(1);
      e.Long(entry.existing_sequence_number);
      e.Branch(1);
      e.Long(entry.existing_sequence_number);
    } else {
      e.Int(1);  // ADDED
      e.Branch(1);
      e.Long(snapshot_id);
      if (entry.added_sequence_number != 0) {
        e.Branch(1);  // its own data sequence number; the file sequence number is inherited
        e.Long(entry.added_sequence_number);
      } else {
        e.Null();  // sequence numbers: inherited from the manifest list
      }
      e.Null();
    }
    e.Int(entry.content);
    e.String(entry.path);
    e.String("PARQUET");
    for (size_t i = 0; i < partition_.size(); ++i) {
      EncodePartitionValue(e, partition_[i], i < entry.partition.size() ? entry.partition[i]
                                                                        : std::nullopt);
    }
    e.Long(entry.record_count);
    e.Long(entry.size);
    if (entry.content == 2) {
      e.Branch(1);
      e.ArrayStart(static_cast<int64_t>(entry.equality_ids.size()));
      for (int32_t id : entry.equality_ids) e.Int(id);
      e.ArrayEnd();
    } else {
      e.Null();
    }
    file.Append(e.bytes());
  }
  return file.Finish();
}

std::string LakeLayout::ManifestList(int64_t snapshot_id, int64_t parent_id,
                                     int64_t sequence_number,
                                     const std::vector<metadata::LakeManifest>& manifests) {
  auto field = [](const char* name, json type, int id, bool optional = false) {
    json f = {{"name", name}, {"type", optional ? Optional(std::move(type)) : std::move(type)},
              {"field-id", id}};
    if (optional) f["default"] = nullptr;
    return f;
  };
  json summary = {{"type", "record"},
                  {"name", "r508"},
                  {"fields", json::array({field("contains_null", "boolean", 509),
                                          field("contains_nan", "boolean", 518, true),
                                          field("lower_bound", "bytes", 510, true),
                                          field("upper_bound", "bytes", 511, true)})}};
  json schema = {
      {"type", "record"},
      {"name", "manifest_file"},
      {"fields",
       json::array({field("manifest_path", "string", 500), field("manifest_length", "long", 501),
                    field("partition_spec_id", "int", 502), field("content", "int", 517),
                    field("sequence_number", "long", 515), field("min_sequence_number", "long", 516),
                    field("added_snapshot_id", "long", 503), field("added_files_count", "int", 504),
                    field("existing_files_count", "int", 505), field("deleted_files_count", "int", 506),
                    field("added_rows_count", "long", 512), field("existing_rows_count", "long", 513),
                    field("deleted_rows_count", "long", 514),
                    field("partitions", {{"type", "array"}, {"items", summary}, {"element-id", 508}}, 507,
                          true),
                    field("key_metadata", "bytes", 519, true)})}};
  avro::ContainerWriter file(
      schema.dump(), {{"snapshot-id", std::to_string(snapshot_id)},
                      {"parent-snapshot-id", parent_id == 0 ? "null" : std::to_string(parent_id)},
                      {"sequence-number", std::to_string(sequence_number)},
                      {"format-version", "2"}});
  for (const auto& m : manifests) {
    avro::Encoder e;
    e.String(m.path);
    e.Long(m.length);
    e.Int(0);
    e.Int(m.content);
    e.Long(m.sequence_number);
    e.Long(m.min_sequence_number);
    e.Long(m.snapshot_id);
    e.Int(m.added_files);
    e.Int(m.existing_files);
    e.Int(0);
    e.Long(m.added_rows);
    e.Long(m.existing_rows);
    e.Long(0);
    e.Null();
    e.Null();
    file.Append(e.bytes());
  }
  return file.Finish();
}

std::string SnapshotJson(const metadata::LakeSnapshot& s) {
  json snapshot = {{"snapshot-id", s.snapshot_id},
                   {"sequence-number", s.sequence_number},
                   {"timestamp-ms", s.timestamp_ms},
                   {"manifest-list", s.manifest_list},
                   {"summary", s.summary},
                   {"schema-id", s.schema_id}};
  if (s.parent_id != 0) snapshot["parent-snapshot-id"] = s.parent_id;
  return snapshot.dump();
}

std::string LakeLayout::TableMetadata(const metadata::LakeTableState& lake) const {
  json partition_fields = json::parse(PartitionFieldsJson());
  json schemas = json::array();
  for (const auto& past : past_schemas_) schemas.push_back(json::parse(past));
  schemas.push_back(json::parse(SchemaJson()));
  json snapshots = json::array(), snapshot_log = json::array(), metadata_log = json::array();
  for (const auto& s : lake.snapshots) {
    snapshots.push_back(json::parse(SnapshotJson(s)));
    snapshot_log.push_back({{"snapshot-id", s.snapshot_id}, {"timestamp-ms", s.timestamp_ms}});
  }
  for (const auto& [file, ms] : lake.metadata_log) {
    metadata_log.push_back({{"metadata-file", file}, {"timestamp-ms", ms}});
  }
  json metadata = {{"format-version", 2},
                   {"table-uuid", lake.table_uuid},
                   {"location", lake.location},
                   {"last-sequence-number", lake.sequence_number},
                   {"last-updated-ms", lake.last_updated_ms},
                   {"last-column-id", last_column_id_},
                   {"current-schema-id", schema_id_},
                   {"schemas", schemas},
                   {"default-spec-id", 0},
                   {"partition-specs", json::array({{{"spec-id", 0}, {"fields", partition_fields}}})},
                   {"last-partition-id", last_partition_id()},
                   {"default-sort-order-id", 0},
                   {"sort-orders", json::array({{{"order-id", 0}, {"fields", json::array()}}})},
                   {"properties", {{"write.format.default", "parquet"}}},
                   {"snapshots", snapshots},
                   {"snapshot-log", snapshot_log},
                   {"metadata-log", metadata_log}};
  if (lake.snapshot_id != 0) {
    metadata["current-snapshot-id"] = lake.snapshot_id;
    metadata["refs"] = {{"main", {{"snapshot-id", lake.snapshot_id}, {"type", "branch"}}}};
  }
  return metadata.dump(2);
}

}  // namespace mink::lake
