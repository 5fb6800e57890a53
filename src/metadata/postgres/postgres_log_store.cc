#include "metadata/postgres/postgres_log_store.h"

namespace mink::metadata {

Result<std::unique_ptr<LogStore>> PostgresLogStore::Open(const std::string& url) {
  return UnimplementedError("postgres backend is being written: " + url);
}

}  // namespace mink::metadata
