#pragma once
// Incremental KV snapshots of a working copy (kv_store.h) in the object store.
//
// A snapshot is a manifest object plus the SST files it names. An SST never changes once
// written, so a file the object store already holds for the bucket (from the snapshot before,
// or from the one a working copy was restored from) is named again, not uploaded again: the
// bytes a snapshot uploads follow what changed since the last one, not the size of the state.
// The manifest carries the small files of the checkpoint inline (CURRENT, MANIFEST-*,
// OPTIONS-*), the changelog offset the state covers, the schema id of its rows and the bucket's
// writer states. Layout: docs/formats/kv-snapshot.md.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "kv/kv_store.h"
#include "object_store/object_store.h"

namespace mink::kv {

inline constexpr std::string_view kManifestMagic = "MKKV0004";

struct SnapshotManifest {
  int64_t offset = 0;      // the state after every changelog record below this
  int32_t schema_id = 0;   // of the rows (values)
  std::string writers;     // the bucket's writer states (a WriterStates checkpoint)
  std::vector<std::pair<std::string, StoredFile>> files;        // local name -> object
  std::vector<std::pair<std::string, std::string>> inline_files;  // local name -> bytes
};

// Whether `data` is a manifest (rather than a snapshot of the format before).
bool IsManifest(std::string_view data);
std::string EncodeManifest(const SnapshotManifest& manifest);
// DataLoss naming `object_key` when the bytes are damaged.
Result<SnapshotManifest> DecodeManifest(std::string_view data, const std::string& object_key);

struct UploadedSnapshot {
  SnapshotManifest manifest;
  uint64_t uploaded_bytes = 0;  // of the files uploaded now (the rest were in the store)
  uint64_t state_bytes = 0;     // of every file the snapshot names
  std::vector<std::string> new_keys;  // the objects uploaded now
};

// Uploads the files of `checkpoint` the object store does not hold yet (per
// store.stored_files()) under kv/<stream>/<lineage>/<number>-<random>.sst, several at once, and returns the
// manifest naming all of them. `offset`, `schema_id` and `writers` go into the manifest.
Result<UploadedSnapshot> UploadCheckpoint(object_store::ObjectStore* objects, KvEnvironment* env,
                                          const KvStore& store, const Checkpoint& checkpoint,
                                          int64_t offset, int32_t schema_id, std::string writers);

struct RestoreStats {
  uint64_t files = 0;
  uint64_t fetched_files = 0;  // the rest came from the cache directory
  uint64_t fetched_bytes = 0;
};

// A working copy of the snapshot `manifest` of stream `stream_id`: its files fetched in parallel
// (or taken from the cache directory, where they stay for the next restore), each checked
// against its size and checksum, and opened.
Result<std::shared_ptr<KvStore>> RestoreSnapshot(object_store::ObjectStore* objects,
                                                 KvEnvironment* env, uint64_t stream_id,
                                                 const SnapshotManifest& manifest,
                                                 RestoreStats* stats);

// Removes the cached files of stream `stream_id` that `manifest` (its newest snapshot) does not
// name: they belong to snapshots gone by.
void PruneCachedFiles(KvEnvironment* env, uint64_t stream_id, const SnapshotManifest& manifest);

}  // namespace mink::kv
