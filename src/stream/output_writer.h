#pragma once
// OutputWriter: a pipeline's idempotent writes into one table: a stream's or view's output table,
// or a sink's target (a Mink table, or a Kafka topic of this cluster with the rows as JSON
// records). The pipeline's writer id of the table and the next sequence are part of the
// pipeline's committed progress, so an epoch written again after a crash uses the same
// sequences and the table drops what it already has. Each write takes one sequence, or one per
// record in a table whose writers number records (Kafka topics: Kafka producers' rule), which
// the table layer applies to every writer of that table.
//
// Kafka records: the row as a JSON object (arrow_json, timestamps as ISO text), no key; a keyed
// answer's (a view's) key columns as the record key, and a deleted row a tombstone (its key, no
// value).
//
// Not thread-safe; one pipeline owns it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "stream/output_table.h"
#include "table/table_store.h"

namespace mink::stream {

// Where a pipeline writes its rows: a Mink table (OutputWriter) or a Kafka outside Mink
// (external_kafka.h).
class RowWriter {
 public:
  virtual ~RowWriter() = default;
  // Rows that are new or changed (upserts), and rows that are gone (deletes).
  virtual Status Write(const std::vector<Row>& upserts, const std::vector<Row>& deletes) = 0;
  // What the first commit must hold before anything is written (a writer id).
  virtual Status Prepare() { return Status::Ok(); }
  virtual std::string target() const = 0;
  // The idempotent writer and its next sequence, for the commit (-1 and 0: none).
  virtual int64_t writer() const { return -1; }
  virtual int64_t next_sequence() const { return 0; }
};

// One Kafka record of a row: the row as a JSON object; a keyed answer's (a view's) key columns
// as the key, a deleted row a tombstone (a key and no value).
struct JsonRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
};
Result<std::vector<JsonRecord>> JsonRecordsOf(const OutputLayout& layout, const std::vector<Row>& upserts,
                                             const std::vector<Row>& deletes);

class OutputWriter final : public RowWriter {
 public:
  // Writes into `table` rows laid out as `layout` says; `kafka_json`: the table is a Kafka
  // topic's and gets JSON records. `writer` -1: one is allocated at the first write.
  static Result<std::unique_ptr<OutputWriter>> Make(table::TableStore* tables, std::string table,
                                                    OutputLayout layout, bool kafka_json, int64_t writer,
                                                    int64_t next_sequence, const Clock* clock);

  // Rows that are new or changed (upserts), and rows that are gone (a keyed table's deletes;
  // dropped for a log table).
  Status Write(const std::vector<Row>& upserts, const std::vector<Row>& deletes) override;
  // Allocates the writer id now (before anything is written).
  Status Prepare() override { return EnsureWriter(); }
  std::string target() const override { return table_; }
  int64_t writer() const override { return writer_; }
  int64_t next_sequence() const override { return next_sequence_; }

 private:
  OutputWriter() = default;
  Status EnsureWriter();
  Status Send(table::WriteMode mode, const arrow::RecordBatchPtr& batch);
  Result<arrow::RecordBatchPtr> KafkaRecords(const std::vector<Row>& upserts, const std::vector<Row>& deletes);

  table::TableStore* tables_ = nullptr;
  std::string table_;
  OutputLayout layout_;
  bool kafka_json_ = false;
  bool target_keyed_ = false;
  bool per_record_ = false;
  std::shared_ptr<const table::ResolvedTable> resolved_;
  int64_t writer_ = -1;
  int64_t next_sequence_ = 0;
  const Clock* clock_ = nullptr;
};

}  // namespace mink::stream
