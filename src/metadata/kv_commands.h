#pragma once
// Metadata commands of the KV snapshots domain: the snapshots of primary-key buckets' KV state.
// A command's `kKind` names it in the log; commands.h has the variant of every command and
// their JSON bodies; the state machine validates and applies them (state.h).

#include <cstdint>
#include <string>
#include <string_view>

namespace mink::metadata {

// A KV snapshot of a primary-key bucket: the KV state after every changelog record below
// `offset`. The previous snapshot object of the stream is released.
struct CommitKvSnapshot {
  static constexpr std::string_view kKind = "kv.snapshot";
  uint64_t stream_id = 0;
  std::string key;
  int32_t bucket_id = 0;
  uint64_t size = 0;
  int64_t offset = 0;

  bool operator==(const CommitKvSnapshot&) const = default;
};

}  // namespace mink::metadata
