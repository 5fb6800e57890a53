#include "lake/warehouse.h"

#include <filesystem>
#include <fstream>
#include <functional>

#include "object_store/storage_uri.h"

namespace mink::lake {

Result<std::unique_ptr<Warehouse>> Warehouse::Open(const std::string& storage_uri,
                                                   const std::string& key_prefix,
                                                   std::string cache_dir) {
  MINK_ASSIGN_OR_RETURN(object_store::StorageUri uri, object_store::StorageUri::Parse(storage_uri));
  std::unique_ptr<Warehouse> w(new Warehouse());
  MINK_ASSIGN_OR_RETURN(w->store_, object_store::OpenObjectStore(uri));
  w->key_prefix_ = key_prefix;
  w->cache_dir_ = std::move(cache_dir);
  if (uri.scheme == "file") {
    std::error_code ec;
    const std::string root = std::filesystem::absolute(uri.location, ec).lexically_normal().string();
    w->local_root_ = root;
    w->base_uri_ = "file://" + root + "/" + key_prefix;
  } else if (uri.scheme == "s3") {
    auto prefix = uri.options.find("prefix");
    w->base_uri_ = "s3://" + uri.location +
                   (prefix == uri.options.end() ? "" : "/" + prefix->second) + "/" + key_prefix;
  } else {
    w->base_uri_ = uri.scheme + "://" + uri.location + "/" + key_prefix;
  }
  return w;
}

Status Warehouse::Put(const std::string& key, std::string_view bytes) {
  return store_->Put(key_prefix_ + "/" + key, bytes);
}

Result<std::string> Warehouse::KeyOf(const std::string& uri) const {
  if (uri.rfind(base_uri_ + "/", 0) != 0 || uri.size() == base_uri_.size() + 1) {
    return InvalidArgumentError(uri + " is not in the warehouse " + base_uri_);
  }
  std::string key = uri.substr(base_uri_.size() + 1);
  while (!key.empty() && key.back() == '/') key.pop_back();
  MINK_RETURN_IF_ERROR(object_store::ValidateKey(key_prefix_ + "/" + key));
  return key;
}

Result<std::string> Warehouse::Read(const std::string& uri) {
  MINK_ASSIGN_OR_RETURN(std::string key, KeyOf(uri));
  return store_->Get(key_prefix_ + "/" + key);
}

Status Warehouse::Write(const std::string& uri, std::string_view bytes) {
  MINK_ASSIGN_OR_RETURN(std::string key, KeyOf(uri));
  return Put(key, bytes);
}

Result<size_t> Warehouse::DeleteUnder(const std::string& uri) {
  MINK_ASSIGN_OR_RETURN(std::string key, KeyOf(uri));
  MINK_ASSIGN_OR_RETURN(auto objects, store_->List(key_prefix_ + "/" + key + "/"));
  for (const auto& o : objects) MINK_RETURN_IF_ERROR(store_->Delete(o.key));
  return objects.size();
}

Result<std::vector<std::string>> Warehouse::ListUnder(const std::string& uri) {
  MINK_ASSIGN_OR_RETURN(std::string key, KeyOf(uri));
  MINK_ASSIGN_OR_RETURN(auto objects, store_->List(key_prefix_ + "/" + key + "/"));
  std::vector<std::string> out;
  for (const auto& o : objects) out.push_back(base_uri_ + o.key.substr(key_prefix_.size()));
  return out;
}

Status Warehouse::Delete(const std::string& uri) {
  MINK_ASSIGN_OR_RETURN(std::string key, KeyOf(uri));
  if (local_root_.empty()) {
    std::error_code ec;
    std::filesystem::remove(CachePath(uri), ec);
  }
  return store_->Delete(key_prefix_ + "/" + key);
}

Result<std::string> Warehouse::LocalPath(const std::string& uri) {
  if (uri.rfind(base_uri_ + "/", 0) != 0) {
    return InvalidArgumentError("lake file " + uri + " is not in the warehouse " + base_uri_);
  }
  const std::string key = key_prefix_ + uri.substr(base_uri_.size());
  if (!local_root_.empty()) return local_root_ + "/" + key;
  // Fetched once: a lake file never changes after it is written.
  const std::string path = CachePath(uri);
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::filesystem::exists(path)) return path;
  MINK_ASSIGN_OR_RETURN(std::string bytes, store_->Get(key));
  std::filesystem::create_directories(cache_dir_);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return UnavailableError("cannot write the lake cache file " + tmp);
  }
  std::filesystem::rename(tmp, path);
  return path;
}

}  // namespace mink::lake
