#pragma once
// SourceWatermark: a source's watermark from its declaration `WATERMARK FOR ts AS ts - INTERVAL
// '5' SECOND` (bounded out-of-orderness of five seconds; `WATERMARK FOR ts` alone: none). Each
// batch of the source gives DuckDB the highest value of the expression over its rows (in
// microseconds: the expression is a TIMESTAMP); the watermark is the highest seen so far, so it
// never moves back, and rows whose event time is below it when they arrive are late.
//
// Not thread-safe; one pipeline owns it (and its DuckDB session).

#include <cstdint>
#include <memory>
#include <string>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "sql/database.h"
#include "stream/statement.h"

namespace mink::stream {

class SourceWatermark {
 public:
  // The watermark of source `source` declared by `declared`; InvalidArgument (naming the
  // source) when DuckDB cannot evaluate the expression over the source's columns.
  static Result<std::unique_ptr<SourceWatermark>> Make(sql::Database* db, const std::string& source,
                                                       const WatermarkDef& declared, const arrow::SchemaPtr& schema);

  // Takes in a batch of the source; the watermark after it.
  Result<int64_t> Observe(const arrow::RecordBatchPtr& batch);
  // INT64_MIN before any row.
  int64_t watermark() const { return watermark_; }
  // Continues from a checkpoint's watermark.
  void Restore(int64_t watermark) { watermark_ = watermark; }

 private:
  SourceWatermark(std::unique_ptr<sql::Session> session, std::string source, std::string sql)
      : session_(std::move(session)), source_(std::move(source)), sql_(std::move(sql)) {}

  std::unique_ptr<sql::Session> session_;
  std::string source_;
  std::string sql_;  // the highest expression value of the registered batch, in microseconds
  int64_t watermark_ = INT64_MIN;
};

}  // namespace mink::stream
