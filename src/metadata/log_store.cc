#include "metadata/log_store.h"

#include "metadata/postgres/postgres_log_store.h"
#include "metadata/sqlite/sqlite_log_store.h"

namespace mink::metadata {

Result<std::unique_ptr<LogStore>> OpenLogStore(const std::string& url) {
  if (url.rfind("sqlite:", 0) == 0) {
    std::string path = url.substr(7);
    if (path.rfind("//", 0) == 0) path = path.substr(2);
    if (path.empty()) return InvalidArgumentError("metadata URL '" + url + "' has no path");
    MINK_ASSIGN_OR_RETURN(auto store, SqliteLogStore::Open(path));
    return std::unique_ptr<LogStore>(std::move(store));
  }
  if (url.rfind("postgres://", 0) == 0 || url.rfind("postgresql://", 0) == 0) {
    MINK_ASSIGN_OR_RETURN(auto store, PostgresLogStore::Open(url));
    return std::unique_ptr<LogStore>(std::move(store));
  }
  return InvalidArgumentError("metadata URL '" + url +
                              "' is neither sqlite:<path> nor postgres://...");
}

}  // namespace mink::metadata
