#pragma once
// Metadata commands of the writers domain: ids of idempotent writers.
// A command's `kKind` names it in the log; commands.h has the variant of every command and
// their JSON bodies; the state machine validates and applies them (state.h).

#include <cstdint>
#include <string_view>

namespace mink::metadata {

// A writer id for idempotent writes; writer_id must be the next one.
struct AllocateWriterId {
  static constexpr std::string_view kKind = "writer.allocate";
  int64_t writer_id = 0;

  bool operator==(const AllocateWriterId&) const = default;
};

}  // namespace mink::metadata
