#include "object_store/storage_uri.h"

#include <mutex>

#include "base/strings.h"
#include "object_store/file_store.h"
#include "object_store/latency_store.h"
#include "object_store/memory_store.h"
#include "object_store/s3/s3_store.h"

namespace mink::object_store {
namespace {

Result<std::string> PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%') {
      if (i + 2 >= text.size()) {
        return InvalidArgumentError("bad percent escape in '" + std::string(text) + "'");
      }
      MINK_ASSIGN_OR_RETURN(std::string byte, HexDecode(text.substr(i + 1, 2)));
      out += byte;
      i += 2;
    } else if (text[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace

Result<StorageUri> StorageUri::Parse(std::string_view text) {
  auto fail = [&](const std::string& why) {
    return InvalidArgumentError("storage URI '" + std::string(text) + "': " + why +
                                " (expected <bucket-id>@<scheme>://<location>, e.g. "
                                "-2@file://./data/objects)");
  };
  size_t at = text.find('@');
  size_t sep = text.find("://");
  if (at == std::string_view::npos || sep == std::string_view::npos || at > sep) {
    return fail("missing bucket id or scheme");
  }
  StorageUri uri;
  auto id = ParseInt64(text.substr(0, at));
  if (!id.ok() || *id < INT32_MIN || *id > INT32_MAX) return fail("bucket id is not an integer");
  uri.bucket_id = static_cast<int32_t>(*id);
  uri.scheme = std::string(text.substr(at + 1, sep - at - 1));
  std::string_view rest = text.substr(sep + 3);
  size_t q = rest.find('?');
  std::string_view location = rest.substr(0, q);
  if (q != std::string_view::npos) {
    for (const std::string& pair : Split(rest.substr(q + 1), '&')) {
      if (pair.empty()) continue;
      size_t eq = pair.find('=');
      if (eq == std::string::npos) return fail("option '" + pair + "' has no value");
      MINK_ASSIGN_OR_RETURN(std::string key, PercentDecode(pair.substr(0, eq)));
      MINK_ASSIGN_OR_RETURN(std::string value, PercentDecode(pair.substr(eq + 1)));
      uri.options[key] = value;
    }
  }
  if (location.empty()) return fail("location is empty");
  uri.location = std::string(location);
  if (uri.scheme != "file" && uri.scheme != "s3" && uri.scheme != "mem") {
    return fail("unknown scheme '" + uri.scheme + "' (supported: file, s3, mem)");
  }
  return uri;
}

std::string StorageUri::ToString() const {
  std::string out = std::to_string(bucket_id) + "@" + scheme + "://" + location;
  char sep = '?';
  for (const auto& [k, v] : options) {
    if (k == "access-key" || k == "secret-key" || k == "session-token") continue;
    out += sep + k + "=" + v;
    sep = '&';
  }
  return out;
}

StorageUri StorageUri::WalDefault() const {
  StorageUri wal = *this;
  wal.bucket_id = bucket_id - 1;
  return wal;
}

Result<std::shared_ptr<ObjectStore>> OpenObjectStore(const StorageUri& uri) {
  if (auto it = uri.options.find("latency"); it != uri.options.end()) {
    // A cloud's latency over any backend (LatencyStore), for measuring.
    MINK_ASSIGN_OR_RETURN(LatencyProfile profile, LatencyProfile::Named(it->second));
    StorageUri backend = uri;
    backend.options.erase("latency");
    MINK_ASSIGN_OR_RETURN(auto inner, OpenObjectStore(backend));
    return std::shared_ptr<ObjectStore>(
        std::make_shared<LatencyStore>(std::move(inner), std::move(profile)));
  }
  if (uri.scheme == "file") {
    MINK_ASSIGN_OR_RETURN(auto store, FileStore::Open(uri.location));
    return std::shared_ptr<ObjectStore>(std::move(store));
  }
  if (uri.scheme == "mem") {
    // One shared store per name, so two "nodes" in a test see the same objects.
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<MemoryStore>> stores;
    std::lock_guard<std::mutex> lock(mutex);
    auto& store = stores[uri.location];
    if (!store) store = std::make_shared<MemoryStore>(uri.location);
    return std::shared_ptr<ObjectStore>(store);
  }
  if (uri.scheme == "s3") return OpenS3Store(uri);
  return InvalidArgumentError("unknown storage scheme '" + uri.scheme + "'");
}

}  // namespace mink::object_store
