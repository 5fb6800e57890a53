#pragma once
// Engine: DuckDB with the cluster attached as the `mink` catalog (tables are
// mink.<database>.<table>). This header and the ones it includes are free of DuckDB: the
// DuckDB code lives in a few facade .cc files (engine.cc, catalog.cc, scan.cc, pushdown.cc).
//
// Errors: SQL errors are InvalidArgument (parser, binder, catalog, conversion and constraint
// errors) with DuckDB's message, which names the position ("LINE 1: ... ^"); an unreachable
// node is Unavailable; an interrupted query is Cancelled; anything else is Internal. DuckDB's
// exceptions never cross this interface.
//
// Threading: an Engine is shared; a Session (one DuckDB connection) is used by one thread at a
// time, and so are its results and prepared statements, which must not outlive it.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "arrow_format/type.h"
#include "base/result.h"
#include "client/action.h"
#include "client/cluster.h"
#include "query/scan_report.h"

namespace mink::query {

// The DuckDB build mink-query is written against: version and source id, checked at start-up.
inline constexpr char kDuckDBVersion[] = "v1.4.4";
inline constexpr char kDuckDBSourceId[] = "6ddac802ff";

struct EngineOptions {
  std::string bootstrap = client::kDefaultBootstrap;
  int threads = 0;  // DuckDB worker threads; 0: DuckDB's default (one per core)
};

// The rows of one statement as Arrow record batches. Types DuckDB has and Mink's Arrow does not
// (INTERVAL, UUID, ENUM, UNION, BIT, ...) come as utf8 text.
class ResultStream {
 public:
  virtual ~ResultStream() = default;
  virtual const arrow::SchemaPtr& schema() const = 0;
  // False for statements that return nothing to show (SET, CREATE ... in memory, ...).
  virtual bool returns_rows() const = 0;
  // The next batch, or null at the end.
  virtual Result<arrow::RecordBatchPtr> Next() = 0;
};

class PreparedStatement {
 public:
  virtual ~PreparedStatement() = default;
  virtual const arrow::SchemaPtr& result_schema() const = 0;
  // One field per parameter ($1, $2, ... or ?), typed as DuckDB resolved them (utf8 if unknown).
  virtual const arrow::SchemaPtr& parameter_schema() const = 0;
  // Runs the statement with the parameters taken from `row` of `parameters` (one column per
  // parameter, in order), or without parameters when `parameters` is null.
  virtual Result<std::unique_ptr<ResultStream>> Execute(const arrow::RecordBatchPtr& parameters,
                                                        int64_t row) = 0;
};

class Session {
 public:
  virtual ~Session() = default;
  // Splits a script into its statements (texts without the trailing ';').
  virtual Result<std::vector<std::string>> SplitStatements(const std::string& sql) = 0;
  // Runs one statement (or several: the last one's rows are returned).
  virtual Result<std::unique_ptr<ResultStream>> Execute(const std::string& sql) = 0;
  virtual Result<std::unique_ptr<PreparedStatement>> Prepare(const std::string& sql) = 0;
  // Makes the running query fail as Cancelled (safe from another thread).
  virtual void Interrupt() = 0;
};

class Engine {
 public:
  // Starts DuckDB (extension auto-install and auto-load off), checks its source id and
  // attaches the cluster. Does not contact the cluster yet.
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  virtual ~Engine() = default;

  virtual Result<std::unique_ptr<Session>> Connect() = 0;
  virtual client::Cluster& cluster() = 0;
  // The scans of past queries (drained by the caller).
  virtual ScanRecorder& scans() = 0;
};

// "v1.4.4 6ddac802ff" of the library actually loaded.
std::string LoadedDuckDBVersion();

}  // namespace mink::query
