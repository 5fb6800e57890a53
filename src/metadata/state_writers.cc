// The writers domain of the state machine: ids of idempotent writers.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "metadata/state.h"

namespace mink::metadata {

Status State::CheckCommand(const AllocateWriterId& c) const {
    if (c.writer_id != next_writer_id_) return AbortedError("writer id is not the next id");
    return Status::Ok();
  }

void State::ApplyCommand(const AllocateWriterId& c, int64_t /*time_ms*/) { next_writer_id_ = c.writer_id + 1; }

}  // namespace mink::metadata
