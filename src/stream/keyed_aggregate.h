#pragma once
// KeyedAggregate: a keyed aggregate without windows, whose answer changes with every row: a
// materialised view's state (`SELECT key, COUNT(*), MAX(x) FROM s GROUP BY key`, or no key at
// all: one group) and `EMIT CHANGES`. Rows carry a weight (+1 added, -1 retracted), and
// TakeChanges hands out what changed since it was last called: per key, the row the view had
// (none for a new key) and the row it has now (none once every row of the key was retracted) —
// an upsert or a delete of the view's primary-key table, or a retraction and an insertion of a
// changelog. A key whose aggregates end where they started gives no change.
//
// Not thread-safe; one pipeline owns it.

#include <map>
#include <memory>
#include <string_view>
#include <optional>
#include <vector>

#include "base/result.h"
#include "stream/accumulator.h"
#include "stream/scalar.h"

namespace mink::stream {

struct KeyChange {
  std::vector<Scalar> key;
  std::optional<std::vector<Scalar>> before;  // the aggregates as last handed out
  std::optional<std::vector<Scalar>> after;   // as they are now

  bool operator==(const KeyChange&) const = default;
};

class KeyedAggregate {
 public:
  explicit KeyedAggregate(std::vector<AggregateKind> aggregates) : aggregates_(std::move(aggregates)) {}

  // Adds a row of group `key` with one input per aggregate. FailedPrecondition when a
  // retraction finds nothing to retract (and nothing changes).
  Status Add(const std::vector<Scalar>& key, const std::vector<Scalar>& inputs, int64_t weight = 1);
  // The keys that changed since the last call, in key order.
  std::vector<KeyChange> TakeChanges();

  size_t keys() const { return groups_.size(); }

  // Its whole state as checkpoint bytes (docs/formats/continuous-state.md), what was handed
  // out included, so the changes after a restore continue from it.
  std::string Checkpoint() const;
  // DataLoss for bytes that are not a checkpoint; InvalidArgument for other aggregates.
  static Result<std::unique_ptr<KeyedAggregate>> Restore(std::string_view bytes,
                                                         const std::vector<AggregateKind>& aggregates);

 private:
  struct KeyOrder {
    bool operator()(const std::vector<Scalar>& a, const std::vector<Scalar>& b) const;
  };
  struct Group {
    std::vector<Accumulator> accumulators;
    int64_t rows = 0;
    std::optional<std::vector<Scalar>> emitted;  // what TakeChanges last handed out
    bool dirty = false;
  };

  const std::vector<AggregateKind> aggregates_;
  std::map<std::vector<Scalar>, Group, KeyOrder> groups_;
};

}  // namespace mink::stream
