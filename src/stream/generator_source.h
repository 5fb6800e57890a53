#pragma once
// GeneratorSource: the GENERATOR connector (`CREATE SOURCE ticks FROM GENERATOR
// ('rows.per.second' = '10')`): rows (seq BIGINT, ts TIMESTAMP, value DOUBLE) at a fixed rate,
// seq from 0. Row `seq` is due at `start_ms + seq / rate` seconds and carries that instant as
// its `ts`; its value is a function of seq alone. So the rows from any position are the same
// every time: the source replays from a checkpoint's position exactly (its position is the next
// seq), which is what at-least-once and exactly-once pipelines need of a source.
//
// Not thread-safe; one pipeline owns it.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"

namespace mink::stream {

class GeneratorSource {
 public:
  // Options as CREATE SOURCE gives them: `rows.per.second` (1-10,000,000; default 1). The
  // source's rows start at `start_ms` (when it was created, kept in its definition).
  static Result<GeneratorSource> Make(const std::vector<std::pair<std::string, std::string>>& options,
                                      int64_t start_ms);

  static arrow::SchemaPtr Schema();

  // The rows due by `now_ms` from the current position, at most `max_rows` (nullptr when none
  // is due); the position moves past them.
  Result<arrow::RecordBatchPtr> Poll(int64_t now_ms, int64_t max_rows);

  int64_t position() const { return next_seq_; }
  void Seek(int64_t seq) { next_seq_ = seq; }
  int64_t rows_per_second() const { return rate_; }
  // When row `seq` is due (its ts), in microseconds.
  int64_t DueMicros(int64_t seq) const;
  // How many rows are due by `now_ms` (the position the source's end is at then).
  int64_t DueBy(int64_t now_ms) const;

 private:
  GeneratorSource(int64_t rate, int64_t start_ms) : rate_(rate), start_ms_(start_ms) {}

  int64_t rate_;
  int64_t start_ms_;
  int64_t next_seq_ = 0;
};

}  // namespace mink::stream
