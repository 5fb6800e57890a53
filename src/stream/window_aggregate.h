#pragma once
// WindowAggregate: a keyed aggregate over event-time windows, closed by the watermark
// (`GROUP BY key, tumble(ts, size)` ... `EMIT ON WINDOW CLOSE`). Windows are [start, end):
//   - tumble(size [, offset]): one window per row, starts at offset + k * size;
//   - hop(slide, size): size / slide windows per row, starts at k * slide;
//   - session(gap): per key, rows closer than `gap` share a window [first row, last row + gap);
//     a row that bridges two sessions merges them.
// A window closes when the watermark reaches its end; its results come out in (end, key) order
// and its state is dropped. A row whose windows have all closed is late: dropped and counted
// (decision 0014: late rows are dropped and counted by default). Rows carry a weight: +1 added,
// -1 retracted (a changelog's update-before or delete); a window whose rows were all retracted
// gives no result. Times are in the units the caller uses (microseconds in queries).
//
// Not thread-safe; one pipeline owns it.

#include <cstdint>
#include <map>
#include <memory>
#include <string_view>
#include <string>
#include <vector>

#include "base/result.h"
#include "stream/accumulator.h"
#include "stream/scalar.h"

namespace mink::stream {

enum class WindowKind { kTumble, kHop, kSession };

struct WindowSpec {
  WindowKind kind = WindowKind::kTumble;
  int64_t size = 0;    // tumble, hop
  int64_t slide = 0;   // hop
  int64_t gap = 0;     // session
  int64_t offset = 0;  // tumble: where windows start, modulo size

  static WindowSpec Tumble(int64_t size, int64_t offset = 0) { return {WindowKind::kTumble, size, 0, 0, offset}; }
  static WindowSpec Hop(int64_t slide, int64_t size) { return {WindowKind::kHop, size, slide, 0, 0}; }
  static WindowSpec Session(int64_t gap) { return {WindowKind::kSession, 0, 0, gap, 0}; }
  // InvalidArgument naming what is wrong: a size or gap not positive, a slide larger than the
  // size, or a size not a multiple of the slide.
  Status Check() const;
};

struct Window {
  int64_t start = 0;
  int64_t end = 0;
  auto operator<=>(const Window&) const = default;
};

// The tumbling or hopping windows that hold event time `t`, oldest first.
std::vector<Window> WindowsOf(const WindowSpec& spec, int64_t t);

struct WindowResult {
  std::vector<Scalar> key;
  Window window;
  std::vector<Scalar> values;  // one per aggregate

  bool operator==(const WindowResult&) const = default;
};

class WindowAggregate {
 public:
  WindowAggregate(WindowSpec spec, std::vector<AggregateKind> aggregates)
      : spec_(spec), aggregates_(std::move(aggregates)) {}

  // Adds a row of group `key` at event time `time` with one input per aggregate. False when it
  // is late (dropped and counted). FailedPrecondition when a retraction finds nothing to
  // retract (the row is then not applied to any window).
  Result<bool> Add(const std::vector<Scalar>& key, int64_t time, const std::vector<Scalar>& inputs,
                   int64_t weight = 1);
  // Moves the watermark to `watermark` (never back) and closes the windows ending at or before
  // it: their results, in (end, key, start) order.
  std::vector<WindowResult> Advance(int64_t watermark);

  // Its whole state as checkpoint bytes (docs/formats/continuous-state.md).
  std::string Checkpoint() const;
  // The aggregate a checkpoint holds; DataLoss for bytes that are not one, InvalidArgument for
  // one of another window or other aggregates than `spec` and `aggregates`.
  static Result<std::unique_ptr<WindowAggregate>> Restore(std::string_view bytes, const WindowSpec& spec,
                                                          const std::vector<AggregateKind>& aggregates);

  int64_t watermark() const { return watermark_; }
  int64_t late_rows() const { return late_rows_; }
  size_t open_windows() const;

 private:
  struct Group {
    std::vector<Accumulator> accumulators;
    int64_t rows = 0;
  };
  // Open windows by (end, key, start): the front closes first.
  struct OpenKey {
    int64_t end;
    std::vector<Scalar> key;
    int64_t start;
    bool operator<(const OpenKey& o) const;
  };

  Group NewGroup() const;
  Status Apply(Group* group, const std::vector<Scalar>& inputs, int64_t weight) const;
  Result<bool> AddToSession(const std::vector<Scalar>& key, int64_t time, const std::vector<Scalar>& inputs,
                            int64_t weight);

  struct KeyOrder {
    bool operator()(const std::vector<Scalar>& a, const std::vector<Scalar>& b) const;
  };

  const WindowSpec spec_;
  const std::vector<AggregateKind> aggregates_;
  int64_t watermark_ = INT64_MIN;
  int64_t late_rows_ = 0;
  std::map<OpenKey, Group> open_;
  // Session windows: each key's open sessions, start -> end (they never overlap).
  std::map<std::vector<Scalar>, std::map<int64_t, int64_t>, KeyOrder> sessions_;
};

}  // namespace mink::stream
