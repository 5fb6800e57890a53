#include "metadata/log_store.h"

#include <algorithm>

#include "metadata/postgres/postgres_log_store.h"
#include "metadata/sqlite/sqlite_log_store.h"

namespace mink::metadata {

std::vector<std::string_view> SplitSnapshot(std::string_view body) {
  std::vector<std::string_view> parts;
  size_t at = 0;
  while (at < body.size()) {
    size_t end = std::min(body.size(), at + kSnapshotPartBytes);
    // Back off over continuation bytes (10xxxxxx) so a multi-byte character stays whole.
    while (end < body.size() && end > at + 1 &&
           (static_cast<unsigned char>(body[end]) & 0xC0) == 0x80) {
      --end;
    }
    parts.push_back(body.substr(at, end - at));
    at = end;
  }
  return parts;
}

Result<std::unique_ptr<LogStore>> OpenLogStore(const std::string& url, bool listen) {
  if (url.rfind("sqlite:", 0) == 0) {
    std::string path = url.substr(7);
    if (path.rfind("//", 0) == 0) path = path.substr(2);
    if (path.empty()) return InvalidArgumentError("metadata URL '" + url + "' has no path");
    MINK_ASSIGN_OR_RETURN(auto store, SqliteLogStore::Open(path));
    return std::unique_ptr<LogStore>(std::move(store));
  }
  if (url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0) {
    MINK_ASSIGN_OR_RETURN(auto store, PostgresLogStore::Open(url, listen));
    return std::unique_ptr<LogStore>(std::move(store));
  }
  return InvalidArgumentError("metadata URL '" + url +
                              "' is neither sqlite:<path> nor postgres://...");
}

}  // namespace mink::metadata
