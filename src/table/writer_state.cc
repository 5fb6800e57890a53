#include "table/writer_state.h"

#include <string>

namespace mink::table {

Result<std::optional<WrittenBatch>> WriterStates::Check(int64_t writer_id, int32_t sequence,
                                                        bool strict) const {
  auto it = writers_.find(writer_id);
  // A writer without state (new, or its batches expired) may start at any sequence.
  if (it == writers_.end() || it->second.empty()) return std::optional<WrittenBatch>();
  for (const auto& b : it->second) {
    if (b.sequence == sequence) return std::optional<WrittenBatch>(b);
  }
  int32_t last = it->second.back().Last();
  bool in_order = strict ? (sequence == last + 1 || (last == INT32_MAX && sequence == 0))
                         : sequence > last;
  if (!in_order) {
    return OutOfRangeError("out of order batch sequence for writer " + std::to_string(writer_id) +
                           ": " + std::to_string(sequence) + " (incoming), " +
                           std::to_string(last) + " (last written)");
  }
  return std::optional<WrittenBatch>();
}

void WriterStates::Record(int64_t writer_id, const WrittenBatch& batch) {
  auto& batches = writers_[writer_id];
  batches.push_back(batch);
  while (batches.size() > kKept) batches.pop_front();
}

}  // namespace mink::table
