#pragma once
// Engine: an embedded DuckDB (sql::Database) with the cluster attached as the `mink` catalog
// (tables are mink.<database>.<table>). This header and the ones it includes are free of DuckDB:
// the DuckDB code lives in a few facade .cc files (engine.cc, catalog.cc, scan.cc, pushdown.cc).
//
// Errors are sql::Database's: SQL errors are InvalidArgument with DuckDB's message, which names
// the position ("LINE 1: ... ^"); an unreachable node is Unavailable; an interrupted query is
// Cancelled; anything else is Internal.
//
// Threading: an Engine is shared; a Session is used by one thread at a time.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "arrow_format/type.h"
#include "base/result.h"
#include "client/action.h"
#include "client/cluster.h"
#include "query/scan_report.h"
#include "sql/database.h"

namespace mink::query {

struct EngineOptions {
  std::string bootstrap = client::kDefaultBootstrap;
  int threads = 0;  // DuckDB worker threads; 0: DuckDB's default (one per core)
  // Locked down (sql::Database::LockDown): no file, URL or extension, the configuration fixed
  // (so the mink_* switches cannot be SET either). Off only for tests and benchmarks.
  bool lock_down = true;
  bool allow_local_files = false;  // locked down, but files are the local user's to use
  uint64_t memory_bytes = 0;                  // 0: DuckDB's default (80% of the RAM)
  sql::StatementTimeout timeout;              // each statement's limit (0: none)
  // Who the engine's own sessions read as (client::Cluster::Connect): unset, the environment
  // (MINK_TOKEN, MINK_USER); "" nobody (`mink-query serve`: its callers' sessions read as them).
  std::optional<std::string> authorization;
};

// The SQL interfaces are sql::Database's (src/sql/database.h).
using sql::LoadedDuckDBVersion;
using sql::PreparedStatement;
using sql::ResultStream;
using sql::Session;
inline constexpr const char* kDuckDBVersion = sql::kDuckDBVersion;

class Engine {
 public:
  // Starts DuckDB (extension auto-install and auto-load off), checks its source id, attaches
  // the cluster and locks the database down. Does not contact the cluster yet.
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  virtual ~Engine() = default;

  virtual Result<std::unique_ptr<Session>> Connect() = 0;
  // A session whose reads of the mink catalog go through `as` (a client of the same cluster
  // that says who a caller is), so the nodes check that caller's rights.
  virtual Result<std::unique_ptr<Session>> ConnectAs(std::shared_ptr<client::Cluster> as) = 0;
  virtual client::Cluster& cluster() = 0;
  // The scans of past queries (drained by the caller).
  virtual ScanRecorder& scans() = 0;
};

}  // namespace mink::query
