#pragma once
// Object keys. Every key is written once and never reused: WAL objects carry the node, the node
// process epoch (allocated by the metadata log) and a per-process sequence; stream objects the
// stream, their first offset and the same triple.

#include <cstdint>
#include <cstdio>
#include <string>

namespace mink::storage {

inline constexpr char kWalPrefix[] = "wal/";
inline constexpr char kStreamPrefix[] = "streams/";
inline constexpr char kKvPrefix[] = "kv/";  // KV snapshots of primary-key buckets
// Idempotent writers of a stream as its owner handed it over: writers/<stream>/<stream epoch>.
inline constexpr char kWritersPrefix[] = "writers/";

inline std::string WritersCheckpointKey(uint64_t stream_id, int64_t stream_epoch) {
  return std::string(kWritersPrefix) + std::to_string(stream_id) + "/" +
         std::to_string(stream_epoch);
}

inline std::string WalObjectKey(int32_t node_id, int64_t node_epoch, uint64_t seq) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "wal/n%d/e%lld/%012llu", node_id,
                static_cast<long long>(node_epoch), static_cast<unsigned long long>(seq));
  return buf;
}

inline std::string StreamObjectKey(uint64_t stream_id, int64_t start_offset, int32_t node_id,
                                   int64_t node_epoch, uint64_t seq) {
  char buf[128];
  std::snprintf(buf, sizeof(buf), "streams/%llu/%020lld-n%de%llds%llu",
                static_cast<unsigned long long>(stream_id), static_cast<long long>(start_offset),
                node_id, static_cast<long long>(node_epoch), static_cast<unsigned long long>(seq));
  return buf;
}

// A KV snapshot of the lake rows of an attached Iceberg table (`table_uuid`) for the bucket of
// index `bucket_index` of a table being created, written by a node process before the create
// commits it; `unique` (the time in nanoseconds) keeps retried creates apart.
inline std::string AttachedKvSnapshotKey(const std::string& table_uuid, int32_t bucket_index, int32_t node_id,
                                         int64_t node_epoch, int64_t unique) {
  return std::string(kKvPrefix) + "attach/" + table_uuid + "/" + std::to_string(bucket_index) + "-" +
         std::to_string(node_id) + "e" + std::to_string(node_epoch) + "t" + std::to_string(unique);
}

inline bool IsWalKey(const std::string& key) { return key.rfind(kWalPrefix, 0) == 0; }

}  // namespace mink::storage
