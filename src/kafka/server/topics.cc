#include "kafka/server/topics.h"

#include "arrow_format/array.h"
#include "arrow_format/nested_builder.h"
#include "table/arrow_rows.h"

namespace mink::kafka {

Status ValidateTopicName(const std::string& name) {
  if (name.empty() || name.size() > 249 || name == "." || name == "..") {
    return InvalidArgumentError("topic name '" + name + "' must be 1-249 characters");
  }
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) {
      return InvalidArgumentError("topic name '" + name + "' may only contain [a-zA-Z0-9._-]");
    }
  }
  if (name.rfind("__", 0) == 0) {
    return InvalidArgumentError("topic name '" + name + "' must not start with __");
  }
  return Status::Ok();
}

namespace {

table::TableSpec TopicSpec(int32_t partitions) {
  table::TableSpec spec;
  spec.columns = {"key BYTES", "value BYTES", "headers ARRAY<ROW<key STRING, value BYTES>>",
                  "timestamp TIMESTAMP_LTZ(3)"};
  spec.bucket_count = partitions;
  spec.options["table.writer.sequence-per-record"] = "true";
  return spec;
}

}  // namespace

const arrow::SchemaPtr& TopicSchema() {
  static const arrow::SchemaPtr schema = [] {
    table::TableSpec spec = TopicSpec(1);
    auto d = table::MakeDescriptor(spec);
    return table::ToArrowSchema(d->schema);
  }();
  return schema;
}

Result<bool> TopicCatalog::IsTopic(const std::string& topic) const {
  MINK_ASSIGN_OR_RETURN(arrow::SchemaPtr schema, tables_->TableSchema(TableName(topic)));
  return schema->Equals(*TopicSchema(), false);
}

Result<int32_t> TopicCatalog::Partitions(const std::string& topic) const {
  MINK_ASSIGN_OR_RETURN(table::TableInfo info, tables_->DescribeTable(TableName(topic)));
  if (info.descriptor.has_primary_key() || info.descriptor.partitioned() ||
      !table::ToArrowSchema(info.descriptor.schema)->Equals(*TopicSchema(), false)) {
    return FailedPreconditionError("table " + TableName(topic) +
                                   " is not a Kafka topic (it needs the columns key BYTES, value "
                                   "BYTES, headers, timestamp TIMESTAMP_LTZ(3))");
  }
  return info.descriptor.bucket_count;
}

Status TopicCatalog::Create(const std::string& topic, int32_t partitions,
                            const std::vector<std::pair<std::string, std::string>>& configs) {
  MINK_RETURN_IF_ERROR(ValidateTopicName(topic));
  if (partitions <= 0) partitions = default_partitions_;
  table::TableSpec spec = TopicSpec(partitions);
  for (const auto& [name, value] : configs) {
    if (name == "retention.ms") {
      spec.options["table.log.ttl"] = value == "-1" ? "0" : value;
    } else if (name == "compression.type") {
      if (value == "zstd") spec.options["table.log.arrow.compression.type"] = "zstd";
      else if (value == "uncompressed") spec.options["table.log.arrow.compression.type"] = "none";
    }
    // Other topic configs (cleanup.policy, segment.*, ...) have no meaning here; accepted.
  }
  Status db = tables_->CreateDatabase(kKafkaDatabase);
  if (!db.ok() && db.code() != StatusCode::kAlreadyExists) return db;
  return tables_->CreateTable(TableName(topic), spec).status();
}

Result<int32_t> TopicCatalog::Ensure(const std::string& topic) {
  auto existing = Partitions(topic);
  if (existing.ok() || existing.status().code() != StatusCode::kNotFound) return existing;
  Status created = Create(topic, default_partitions_);
  if (!created.ok() && created.code() != StatusCode::kAlreadyExists) return created;
  return Partitions(topic);
}

Status TopicCatalog::Delete(const std::string& topic) {
  MINK_RETURN_IF_ERROR(Partitions(topic).status());
  return tables_->DropTable(TableName(topic));
}

std::vector<std::string> TopicCatalog::List() const {
  std::vector<std::string> topics;
  auto tables = tables_->ListTables(kKafkaDatabase);
  if (!tables.ok()) return topics;
  for (const auto& t : *tables) {
    std::string topic = t.substr(std::string(kKafkaDatabase).size() + 1);
    if (Partitions(topic).ok()) topics.push_back(topic);
  }
  return topics;
}

int64_t TopicCatalog::RetentionMs(const std::string& topic) const {
  auto info = tables_->DescribeTable(TableName(topic));
  if (!info.ok()) return -1;
  return info->descriptor.log_ttl_ms == 0 ? -1 : info->descriptor.log_ttl_ms;
}

Result<arrow::RecordBatchPtr> RecordsToArrow(const DecodedBatch& batch) {
  const arrow::SchemaPtr& schema = TopicSchema();
  arrow::BinaryBuilder keys(arrow::Binary()), values(arrow::Binary());
  MINK_ASSIGN_OR_RETURN(auto headers_builder, arrow::MakeBuilder(schema->field(2).type()));
  auto* headers = static_cast<arrow::ListBuilder*>(headers_builder.get());
  auto* header = static_cast<arrow::StructBuilder*>(headers->value_builder());
  auto* header_keys = static_cast<arrow::BinaryBuilder*>(header->field_builder(0));
  auto* header_values = static_cast<arrow::BinaryBuilder*>(header->field_builder(1));
  arrow::TimestampBuilder timestamps(schema->field(3).type());
  const int64_t n = static_cast<int64_t>(batch.records.size());
  // Sized up front: the views give every length, so no builder grows (and copies) mid-batch.
  int64_t key_bytes = 0, value_bytes = 0;
  for (const RecordView& r : batch.records) {
    if (r.key) key_bytes += static_cast<int64_t>(r.key->size());
    if (r.value) value_bytes += static_cast<int64_t>(r.value->size());
  }
  keys.Reserve(n);
  keys.ReserveData(key_bytes);
  values.Reserve(n);
  values.ReserveData(value_bytes);
  headers->Reserve(n);
  timestamps.Reserve(n);
  for (const RecordView& r : batch.records) {
    if (r.key) MINK_RETURN_IF_ERROR(keys.Append(*r.key)); else keys.AppendNull();
    if (r.value) MINK_RETURN_IF_ERROR(values.Append(*r.value)); else values.AppendNull();
    headers->Append();
    for (const RecordHeaderView& h : batch.HeadersOf(r)) {
      header->Append();
      MINK_RETURN_IF_ERROR(header_keys->Append(h.key));
      if (h.value) MINK_RETURN_IF_ERROR(header_values->Append(*h.value)); else header_values->AppendNull();
    }
    timestamps.Append(r.timestamp);
  }
  std::vector<arrow::ArrayDataPtr> columns(4);
  MINK_ASSIGN_OR_RETURN(columns[0], keys.Finish());
  MINK_ASSIGN_OR_RETURN(columns[1], values.Finish());
  MINK_ASSIGN_OR_RETURN(columns[2], headers->Finish());
  MINK_ASSIGN_OR_RETURN(columns[3], timestamps.Finish());
  return arrow::RecordBatch::Make(schema, n, std::move(columns));
}

Status ArrowToRecordBatch(const arrow::RecordBatch& batch, int64_t base_offset,
                          int64_t producer_id, int16_t producer_epoch, int32_t base_sequence,
                          std::string* out) {
  if (batch.num_columns() != 4) return DataLossError("a topic batch needs 4 columns");
  const int64_t n = batch.num_rows();
  if (n == 0) return Status::Ok();
  arrow::BinaryArray keys(batch.Column(0)), values(batch.Column(1));
  arrow::ListArray headers(batch.Column(2));
  arrow::StructArray header(headers.values());
  arrow::BinaryArray header_keys(header.field(0)), header_values(header.field(1));
  arrow::Int64Array timestamps(batch.Column(3));
  // Written straight into `out`, sized from the columns: the bytes plus ~12 bytes of varints
  // per record (a caller that reserved the Arrow payload's size has room: Arrow spends 20).
  auto data_bytes = [](const arrow::BinaryArray& a) -> size_t {
    const int64_t len = a.length();
    return len == 0 ? 0 : static_cast<size_t>(a.value_offset(len) - a.value_offset(0));
  };
  const size_t expected = data_bytes(keys) + data_bytes(values) + data_bytes(header_keys) +
                          data_bytes(header_values) + static_cast<size_t>(n) * 12 +
                          static_cast<size_t>(header_keys.length()) * 10;
  const size_t start = out->size();
  auto fail = [&](Status s) {
    out->resize(start);
    return s;
  };
  RecordBatchAppender appender(out, expected);
  std::vector<RecordHeaderView> record_headers;
  for (int64_t i = 0; i < n; ++i) {
    record_headers.clear();
    if (!headers.IsNull(i)) {
      for (int32_t j = headers.value_offset(i); j < headers.value_offset(i + 1); ++j) {
        RecordHeaderView& h = record_headers.emplace_back();
        h.key = header_keys.GetView(j);
        if (!header_values.IsNull(j)) h.value = header_values.GetView(j);
      }
    }
    std::optional<std::string_view> key, value;
    if (!keys.IsNull(i)) key = keys.GetView(i);
    if (!values.IsNull(i)) value = values.GetView(i);
    Status added =
        appender.Add(timestamps.IsNull(i) ? 0 : timestamps.Value(i), key, value, record_headers);
    if (!added.ok()) return fail(added);
  }
  BatchOptions options;
  options.base_offset = base_offset;
  options.producer_id = producer_id;
  options.producer_epoch = producer_id >= 0 ? producer_epoch : -1;
  options.base_sequence = producer_id >= 0 ? base_sequence : -1;
  return appender.Finish(options);
}

}  // namespace mink::kafka
