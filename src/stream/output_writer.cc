#include "stream/output_writer.h"


#include "arrow_json/arrow_to_json.h"
#include "table/arrow_rows.h"

namespace mink::stream {
namespace {

// The batch without its first column (a global aggregate's hidden key).
Result<arrow::RecordBatchPtr> WithoutFirstColumn(const arrow::RecordBatchPtr& batch) {
  std::vector<arrow::Field> fields(batch->schema()->fields().begin() + 1, batch->schema()->fields().end());
  std::vector<arrow::ArrayDataPtr> columns(batch->columns().begin() + 1, batch->columns().end());
  return arrow::RecordBatch::Make(std::make_shared<arrow::Schema>(std::move(fields)), batch->num_rows(),
                                  std::move(columns));
}

}  // namespace

Result<std::unique_ptr<OutputWriter>> OutputWriter::Make(table::TableStore* tables, std::string table,
                                                         OutputLayout layout, bool kafka_json, int64_t writer,
                                                         int64_t next_sequence, const Clock* clock) {
  std::unique_ptr<OutputWriter> w(new OutputWriter());
  w->tables_ = tables;
  w->table_ = std::move(table);
  w->layout_ = std::move(layout);
  w->kafka_json_ = kafka_json;
  w->writer_ = writer;
  w->next_sequence_ = next_sequence;
  w->clock_ = clock;
  MINK_ASSIGN_OR_RETURN(w->resolved_, tables->Resolve(w->table_));
  w->target_keyed_ = !w->resolved_->pk.empty();
  w->per_record_ = w->resolved_->d.sequence_per_record;
  return w;
}

Status OutputWriter::EnsureWriter() {
  if (writer_ >= 0) return Status::Ok();
  MINK_ASSIGN_OR_RETURN(writer_, tables_->InitWriter());
  return Status::Ok();
}

Status OutputWriter::Send(table::WriteMode mode, const arrow::RecordBatchPtr& batch) {
  MINK_RETURN_IF_ERROR(EnsureWriter());
  table::WriteRequest request;
  request.table = table_;
  request.mode = mode;
  request.writer_id = writer_;
  // Sequences wrap at 2^31, as a Kafka producer's do.
  request.sequence = static_cast<int32_t>(next_sequence_ & 0x7fffffff);
  MINK_RETURN_IF_ERROR(tables_->Write(request, {batch}).status().WithContext("writing " + table_));
  next_sequence_ += per_record_ ? batch->num_rows() : 1;
  return Status::Ok();
}

Status OutputWriter::Write(const std::vector<Row>& upserts, const std::vector<Row>& deletes) {
  if (kafka_json_) {
    if (upserts.empty() && deletes.empty()) return Status::Ok();
    MINK_ASSIGN_OR_RETURN(auto records, KafkaRecords(upserts, deletes));
    return Send(table::WriteMode::kUpsert, records);
  }
  if (!upserts.empty()) {
    MINK_ASSIGN_OR_RETURN(auto batch, layout_.ToBatch(upserts));
    // A sink's table has the query's columns only, not a global aggregate's hidden key.
    if (layout_.hidden_key && resolved_->d.schema.Find(kHiddenKey) < 0) {
      MINK_ASSIGN_OR_RETURN(batch, WithoutFirstColumn(batch));
    }
    MINK_RETURN_IF_ERROR(Send(table::WriteMode::kUpsert, batch));
  }
  if (!deletes.empty() && target_keyed_ && layout_.keyed()) {
    MINK_ASSIGN_OR_RETURN(auto batch, layout_.KeysBatch(deletes));
    MINK_RETURN_IF_ERROR(Send(table::WriteMode::kDelete, batch));
  }
  return Status::Ok();
}

Result<std::vector<JsonRecord>> JsonRecordsOf(const OutputLayout& layout, const std::vector<Row>& upserts,
                                             const std::vector<Row>& deletes) {
  std::vector<JsonRecord> records;
  auto append = [&](const std::vector<Row>& rows, bool tombstones) -> Status {
    if (rows.empty()) return Status::Ok();
    MINK_ASSIGN_OR_RETURN(auto values, layout.ToBatch(rows));
    if (layout.hidden_key) {
      MINK_ASSIGN_OR_RETURN(values, WithoutFirstColumn(values));
    }
    MINK_ASSIGN_OR_RETURN(auto row_json, arrow_json::RowFormatter::Make(*values));
    std::optional<arrow_json::RowFormatter> key_json;
    if (layout.keyed() && !layout.hidden_key) {
      MINK_ASSIGN_OR_RETURN(auto keys, layout.KeysBatch(rows));
      MINK_ASSIGN_OR_RETURN(key_json, arrow_json::RowFormatter::Make(*keys));
    }
    for (int64_t i = 0; i < values->num_rows(); ++i) {
      JsonRecord record;
      if (key_json) {
        record.key.emplace();
        key_json->AppendJsonRow(i, &*record.key);
      }
      if (!tombstones) {
        record.value.emplace();
        row_json.AppendJsonRow(i, &*record.value);
      }
      records.push_back(std::move(record));
    }
    return Status::Ok();
  };
  MINK_RETURN_IF_ERROR(append(upserts, false));
  MINK_RETURN_IF_ERROR(append(deletes, true));
  return records;
}

Result<arrow::RecordBatchPtr> OutputWriter::KafkaRecords(const std::vector<Row>& upserts,
                                                         const std::vector<Row>& deletes) {
  MINK_ASSIGN_OR_RETURN(auto records, JsonRecordsOf(layout_, upserts, deletes));
  const int64_t now = clock_->NowMillis();
  std::vector<table::Row> rows;
  for (auto& r : records) {
    table::Row row(resolved_->types.size());  // key, value, headers, timestamp
    if (r.key) row[0] = table::Value::Bytes(std::move(*r.key));
    if (r.value) row[1] = table::Value::Bytes(std::move(*r.value));
    row[2] = table::Value::List({});
    row[3] = table::Value::Int(now);
    rows.push_back(std::move(row));
  }
  std::vector<const table::Row*> pointers;
  for (const auto& r : rows) pointers.push_back(&r);
  return table::RowsToBatch(pointers, resolved_->schema, resolved_->types);
}

}  // namespace mink::stream
