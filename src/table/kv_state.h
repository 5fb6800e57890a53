#pragma once
// KvState: the working copy of one primary-key bucket's state, key bytes -> encoded row
// (row_codec.h). It is never authoritative: it is rebuilt from the newest KV snapshot in the
// object store plus replay of the changelog after the snapshot's offset.
//
// Snapshot object layout (docs/formats/kv-snapshot.md): magic "MKKV0003", i64 offset (the
// changelog offset the state covers), u64 entry count, i32 schema id of the values, u32 size of
// the writers section, then entries in key order (varint key length, key, varint value length,
// value), the writers section (the bucket's idempotent writers, WriterStates' checkpoint), then
// a u32 CRC-32C of everything before it. "MKKV0002" (no writers) and "MKKV0001" snapshots (no
// schema id either: schema 0) still load.
//
// Not thread-safe: a bucket's writer serialises access.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/result.h"

namespace mink::table {

class KvState {
 public:
  const std::string* Get(const std::string& key) const {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second;
  }
  void Put(const std::string& key, std::string value);
  void Erase(const std::string& key);
  size_t size() const { return map_.size(); }
  size_t bytes() const { return bytes_; }
  const std::unordered_map<std::string, std::string>& entries() const { return map_; }

  // The snapshot object of the state, whose values are rows of schema `schema_id`, with the
  // bucket's `writers` (a WriterStates checkpoint; empty for none).
  std::string Snapshot(int64_t offset, int32_t schema_id, std::string_view writers) const;
  // DataLoss naming `key` when the object is damaged. `writers`: the writers section ("" in
  // snapshots without one).
  static Result<KvState> Load(std::string_view data, const std::string& object_key,
                              int64_t* offset, int32_t* schema_id, std::string* writers);

 private:
  std::unordered_map<std::string, std::string> map_;
  size_t bytes_ = 0;
};

}  // namespace mink::table
