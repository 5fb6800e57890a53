#pragma once
// Pipeline: one stream, materialised view or sink running (docs/streaming-sql.md, Pipelines and
// delivery). A sink's pipeline reads the output table of what it sends on and writes its rows to
// the sink's target, with no query. A pipeline reads its input in epochs; each epoch
//   1. reads the input from the positions the last commit left to the end that commit promised
//      (so an epoch read again after a crash is the same rows: pipeline_input.h),
//   2. runs the continuous query over them and advances the watermark,
//   3. writes the answer's rows to the output table (continuous.<name>), or a sink's rows to its
//      target, as idempotent writes (output_writer.h: the sequences continue from the last
//      commit), so a repeated epoch writes nothing twice,
//   4. stores the operators' state as an object (continuous/<name>/...) and commits the
//      progress (`continuous.progress`: the positions, the next epoch's end, the watermark, the
//      state's object, the writer and its next sequence) in one metadata command.
// A crash anywhere repeats at most the epoch that was not committed, with the same input and
// the same sequences: the output tables see each row once (exactly-once), and sinks into Kafka
// topics of this cluster too. Epochs follow one another by one in the metadata log, so of two
// nodes running one pipeline only one commits; the other's commit fails (FailedPrecondition)
// and it stops.
//
// Not thread-safe: the runner (runner.h) calls one pipeline from one thread at a time.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "metadata/metadata_log.h"
#include "object_store/object_store.h"
#include "sql/database.h"
#include "stream/continuous_query.h"
#include "stream/output_table.h"
#include "stream/output_writer.h"
#include "stream/pipeline_input.h"
#include "stream/watermark.h"
#include "table/table_store.h"

namespace mink::stream {

struct PipelineContext {
  metadata::MetadataLog* meta = nullptr;
  table::TableStore* tables = nullptr;
  object_store::ObjectStore* store = nullptr;  // the operators' state
  sql::Database* db = nullptr;
  int32_t node_id = 0;
  const Clock* clock = SystemClock::Get();
  // Tests: called at "written" (an epoch's output written, nothing committed); an error there
  // fails the epoch as a crash at that point would.
  std::function<Status(const std::string& step)> fault;
};

// A pipeline's counters, as its last commit has them.
struct PipelineStats {
  int64_t epoch = 0;
  int64_t watermark = INT64_MIN;
  int64_t late_rows = 0;
  int64_t skipped_records = 0;
  int64_t rows_in = 0;
  int64_t rows_out = 0;
};

class Pipeline {
 public:
  // The pipeline of stream or view `name`, continuing from its last commit.
  static Result<std::unique_ptr<Pipeline>> Open(const std::string& name, const PipelineContext& context);
  ~Pipeline();

  // Runs one epoch if there is input (or a promise of input to make); whether it committed one.
  // An error leaves the pipeline unusable: open it again (the epoch will be repeated).
  Result<bool> RunEpoch();

  const std::string& name() const { return name_; }
  PipelineStats stats() const { return stats_; }

 private:
  Pipeline(std::string name, PipelineContext context) : name_(std::move(name)), context_(std::move(context)) {}
  Status Load();
  // A sink's input rows: additions are upserts, deleted rows deletes (a view's -U is dropped).
  Status SinkRows(const InputBatch& in, std::vector<Row>* upserts, std::vector<Row>* deletes);
  Status Commit(const std::string& state_key);

  const std::string name_;
  const PipelineContext context_;
  std::unique_ptr<sql::Session> session_;  // decodes the input (Kafka JSON)
  std::unique_ptr<PipelineInput> input_;
  std::unique_ptr<ContinuousQuery> query_;  // null for a sink
  std::unique_ptr<SourceWatermark> watermark_;
  std::unique_ptr<SourceWatermark> right_watermark_;  // an interval join's right input's
  OutputLayout layout_;
  std::unique_ptr<RowWriter> writer_;
  std::unique_ptr<OutputWriter> late_writer_;  // LATE DATA TO's table, when given

  // The progress of the last commit.
  Positions positions_, next_;
  std::string state_key_;
  PipelineStats stats_;
  int64_t skipped_before_ = 0;  // records skipped before this run (the input counts its own)
};

// The object holding a pipeline's operator state after `epoch`.
std::string PipelineStateKey(const std::string& name, int64_t epoch, int32_t node_id);

}  // namespace mink::stream
