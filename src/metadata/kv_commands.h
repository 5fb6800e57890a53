#pragma once
// Metadata commands of the KV snapshots domain: the snapshots of primary-key buckets' KV state.
// A command's `kKind` names it in the log; commands.h has the variant of every command and
// their JSON bodies; the state machine validates and applies them (state.h).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mink::metadata {

// A file a KV snapshot shares with other snapshots of its bucket (an SST of the working copy):
// each snapshot that names it holds a reference, and it is deleted after the last goes.
struct KvSnapshotFile {
  std::string key;
  uint64_t size = 0;

  bool operator==(const KvSnapshotFile&) const = default;
};

// A KV snapshot of a primary-key bucket: the KV state after every changelog record below
// `offset`, in the object `key` (the manifest) and the `files` it names. The previous snapshot
// of the stream is released: its object, and its reference on each of its files.
struct CommitKvSnapshot {
  static constexpr std::string_view kKind = "kv.snapshot";
  uint64_t stream_id = 0;
  std::string key;
  int32_t bucket_id = 0;
  uint64_t size = 0;
  int64_t offset = 0;
  std::vector<KvSnapshotFile> files;  // none: the whole state is in `key` (the format before)
  // The stream's epoch the writer holds: a snapshot of an owner since replaced is refused, so a
  // stale node never names files the new owner's snapshots released (0: not checked).
  int64_t stream_epoch = 0;

  bool operator==(const CommitKvSnapshot&) const = default;
};

}  // namespace mink::metadata
