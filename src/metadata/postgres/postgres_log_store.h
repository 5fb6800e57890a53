#pragma once
// The PostgreSQL backend of the command log (`postgres://user:pass@host:port/db`).

#include <memory>
#include <string>

#include "metadata/log_store.h"

namespace mink::metadata {

class PostgresLogStore {
 public:
  static Result<std::unique_ptr<LogStore>> Open(const std::string& url);
};

}  // namespace mink::metadata
