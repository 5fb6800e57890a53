#pragma once
// Metadata commands of continuous SQL (docs/streaming-sql.md): its catalog objects. A SOURCE,
// STREAM, MATERIALIZED VIEW or SINK is kept by name with the statement that created it and a
// definition (JSON) the stream layer owns and reads back; `inputs` are the objects it reads, so
// none is dropped while another reads it.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mink::metadata {

struct CreateContinuousObject {
  static constexpr std::string_view kKind = "continuous.create";
  std::string name;
  std::string kind;        // "source", "stream", "view" or "sink"
  std::string statement;   // as it was written
  std::string definition;  // JSON of the stream layer
  std::vector<std::string> inputs;
  bool replace = false;  // CREATE OR REPLACE: an object of the same kind may be replaced

  bool operator==(const CreateContinuousObject&) const = default;
};

struct DropContinuousObject {
  static constexpr std::string_view kKind = "continuous.drop";
  std::string name;
  std::string kind;  // what the DROP statement named: it must be the object's kind

  bool operator==(const DropContinuousObject&) const = default;
};

// A pipeline's progress (a stream's, view's or sink's; src/stream/pipeline.h): epoch `epoch` is done, its
// output written, and `progress` (JSON of the stream layer: source positions, the next epoch's
// input, the operator state's object, the writers) is where the pipeline continues. Epochs
// follow one another by one, so of two nodes running one pipeline only one commits each epoch;
// the other is refused and stops.
struct CommitContinuousProgress {
  static constexpr std::string_view kKind = "continuous.progress";
  std::string name;
  int64_t epoch = 0;
  std::string progress;

  bool operator==(const CommitContinuousProgress&) const = default;
};

}  // namespace mink::metadata
