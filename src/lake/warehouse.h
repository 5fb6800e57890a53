#pragma once
// Warehouse: where lake tables' files live: an object store (file://, s3://, mem://) under a key
// prefix, and the URI Iceberg metadata names the same place by ("file:///abs/dir/lake",
// "s3://bucket/lake"). DuckDB reads only local files, so a file of a store that is not a local
// directory is fetched once into a cache directory (lake files never change).
//
// Thread-safe.

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "object_store/object_store.h"

namespace mink::lake {

class Warehouse {
 public:
  // `storage_uri` as --storage-uri takes it; the warehouse is the part of that store under
  // `key_prefix` ("lake"). Files fetched for reading go under `cache_dir`.
  static Result<std::unique_ptr<Warehouse>> Open(const std::string& storage_uri,
                                                 const std::string& key_prefix,
                                                 std::string cache_dir);

  // The URI of `key` (relative to the warehouse).
  std::string Uri(const std::string& key) const { return base_uri_ + "/" + key; }
  const std::string& base_uri() const { return base_uri_; }
  Status Put(const std::string& key, std::string_view bytes);
  // The key (relative to the warehouse) of `uri`; InvalidArgument when it is elsewhere.
  Result<std::string> KeyOf(const std::string& uri) const;
  // The bytes of the object at `uri` (NotFound when there is none); written at `uri`.
  Result<std::string> Read(const std::string& uri);
  Status Write(const std::string& uri, std::string_view bytes);
  // Removes every object under `uri` (a table's location); how many.
  Result<size_t> DeleteUnder(const std::string& uri);
  // The URIs of the objects under `uri` (a table's location).
  Result<std::vector<std::string>> ListUnder(const std::string& uri);
  // Removes the object at `uri` (and the copy fetched for reading it); a missing one is OK.
  Status Delete(const std::string& uri);
  // A local file that holds the object at `uri` (one of this warehouse's).
  Result<std::string> LocalPath(const std::string& uri);

 private:
  Warehouse() = default;
  // Where a file of a store that is not a local directory is fetched to.
  std::string CachePath(const std::string& uri) const {
    return cache_dir_ + "/" + std::to_string(std::hash<std::string>{}(uri)) + "-" +
           std::filesystem::path(uri).filename().string();
  }
  std::shared_ptr<object_store::ObjectStore> store_;
  std::string key_prefix_;
  std::string base_uri_;
  std::string local_root_;  // the store's directory when it is a file store, else ""
  std::string cache_dir_;
  std::mutex mutex_;
};

}  // namespace mink::lake
