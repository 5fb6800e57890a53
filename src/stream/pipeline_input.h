#pragma once
// PipelineInput: what a pipeline reads, addressed by positions so that an epoch's input can be
// read again exactly (docs/streaming-sql.md, Delivery). Positions are named numbers: a
// GENERATOR's next `seq`; a table's next offset per bucket ("b0", "p3/b1"). Three kinds:
//   - GENERATOR: the rows due by now (generator_source.h);
//   - a Mink table (a MINK source, or the output table of the stream or view a query reads): its
//     log, or a primary-key table's changelog, whose updates and deletes come as retractions
//     (weight -1) of the rows before;
//   - a Kafka topic of this cluster (the table kafka.<topic>) with FORMAT JSON: each record's
//     value is a JSON object whose fields DuckDB converts to the declared columns; a record that
//     is not such an object, or lacks a NOT NULL column, is skipped and counted.
// Batches come in a fixed order (bucket by bucket, by offset), so an epoch read again gives the
// operators the same rows in the same order.
//
// Not thread-safe; one pipeline owns it.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "metadata/state.h"
#include "sql/database.h"
#include "stream/statement.h"
#include "table/table_store.h"

namespace mink::stream {

using Positions = std::map<std::string, int64_t>;

struct InputBatch {
  arrow::RecordBatchPtr batch;  // columns of the input's schema
  int64_t weight = 1;           // +1 added rows, -1 retracted ones
  bool deleted = false;         // retracted rows that were deleted (-D), not updated (-U)
  int side = 0;                 // an interval join's: 0 the left input, 1 the right
};

class PipelineInput {
 public:
  virtual ~PipelineInput() = default;
  virtual const arrow::SchemaPtr& schema() const = 0;
  // Where a new pipeline starts.
  virtual Result<Positions> Start() = 0;
  // Where the input ends now, reading from `from`.
  virtual Result<Positions> End(const Positions& from, int64_t now_ms) = 0;
  // Hands every batch in [from, to) to `each`, in the fixed order.
  virtual Status Read(const Positions& from, const Positions& to,
                      const std::function<Status(const InputBatch&)>& each) = 0;
  // Records skipped as malformed (a Kafka JSON input's), since this reader was made.
  virtual int64_t skipped() const { return 0; }
};

// The input of a query reading `name` (a source, or a stream or view whose output table it
// reads). `session` is the pipeline's DuckDB session (JSON decoding); InvalidArgument or NotFound
// naming what cannot be read.
Result<std::unique_ptr<PipelineInput>> MakeInput(const metadata::State& state, const std::string& name,
                                                 table::TableStore* tables, sql::Session* session);

// The watermark `name` declares (WATERMARK FOR ...; a GENERATOR's rows come in order: its ts);
// none for a source without one, a stream or a view.
std::optional<WatermarkDef> DeclaredWatermark(const metadata::State& state, const std::string& name);

// Two inputs read as one (an interval join's): the right one's positions prefixed "right:", its
// batches after the left one's in an epoch, marked side 1. Its schema is the left one's.
std::unique_ptr<PipelineInput> JoinInputs(std::unique_ptr<PipelineInput> left, std::unique_ptr<PipelineInput> right);

// Kafka records whose values are JSON objects of declared columns, as rows (DuckDB's
// json_transform): a value that is not UTF-8, not a JSON object, or lacks a NOT NULL column is
// skipped and counted. Uses the pipeline's session (the view __kafka_records).
class JsonRecords {
 public:
  static Result<JsonRecords> Make(sql::Session* session, const std::vector<ColumnDef>& columns);
  // The rows of `values` (a batch with a binary or string column `value`).
  Status Decode(const arrow::RecordBatchPtr& values, const std::function<Status(const InputBatch&)>& each);
  const arrow::SchemaPtr& schema() const { return schema_; }
  int64_t skipped() const { return skipped_; }

 private:
  JsonRecords(sql::Session* session, arrow::SchemaPtr schema, std::string sql)
      : session_(session), schema_(std::move(schema)), sql_(std::move(sql)) {}
  static std::string DecodeSql(const std::vector<ColumnDef>& columns);

  sql::Session* session_;
  arrow::SchemaPtr schema_;
  std::string sql_;
  int64_t skipped_ = 0;
};

// The Arrow schema of the declared columns (DuckDB's types for them).
Result<arrow::SchemaPtr> DeclaredSchema(sql::Session& session, const std::vector<ColumnDef>& columns);

}  // namespace mink::stream
