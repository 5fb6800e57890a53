#pragma once
// Database: an embedded DuckDB (the pinned build scripts/setup fetches), seen through Arrow:
// SQL in, Arrow record batches out, and Arrow batches in as views. mink-query builds its engine
// on it and the lake writes and reads Parquet with it. This header and the ones it includes are
// free of DuckDB; only src/sql/*.cc and the query layer's facade files include DuckDB's headers.
//
// Errors: SQL errors are InvalidArgument (parser, binder, catalog, conversion and constraint
// errors) with DuckDB's message; I/O errors are Unavailable; an interrupted query is Cancelled;
// anything else is Internal. DuckDB's exceptions never cross this interface.
//
// Threading: a Database is shared; a Session (one DuckDB connection) is used by one thread at
// a time, and so are its results and prepared statements, which must not outlive it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "arrow_format/type.h"
#include "base/result.h"

namespace duckdb {
class ClientContext;
class DBConfig;
class DuckDB;
}  // namespace duckdb

namespace mink::sql {

// The DuckDB build Mink is written against: version and source id, checked at start-up.
inline constexpr char kDuckDBVersion[] = "v1.4.4";
inline constexpr char kDuckDBSourceId[] = "6ddac802ff";

// "v1.4.4 6ddac802ff" of the library actually loaded.
std::string LoadedDuckDBVersion();

// What SQL from callers may spend on a locked-down Database (Database::LockDown).
struct SqlLimits {
  uint64_t memory_bytes = 0;  // DuckDB's memory_limit; 0: DuckDB's default (80% of the RAM)
  int threads = 0;            // worker threads; 0: as opened
  uint64_t spill_bytes = 0;   // max_temp_directory_size; 0: nothing spills to disk
  std::string time_zone;      // every session's TimeZone, set before the lock ("": DuckDB's)
  // Directories whose files SQL may still read and write; URLs and extensions stay refused.
  std::vector<std::string> allowed_directories;
  // Every file the process may open (a local user's own tool): external access stays on, so
  // files are read and written as that user; a URL still needs an extension, and none is loaded
  // or can be (auto-install and auto-load are off, the configuration locked).
  bool local_files = false;
};

// A time limit on each statement of a session (Session::SetTimeout).
struct StatementTimeout {
  std::chrono::milliseconds limit{0};  // 0: none
  std::string setting;                 // what sets it, named in the error ("sql.timeout")
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
  // Interrupts each later statement (its execution and the fetch of its rows) that runs past
  // the limit, failing it as DeadlineExceeded. For sessions that run callers' SQL.
  virtual void SetTimeout(const StatementTimeout& timeout) = 0;
  // Makes `batches` (of `schema`) readable as the temporary view `name` of this session, read
  // without a copy through the Arrow C stream interface; kept until the session ends or the
  // name is registered again.
  virtual Status RegisterBatches(const std::string& name, arrow::SchemaPtr schema,
                                 std::vector<arrow::RecordBatchPtr> batches) = 0;
  // Refuses (PermissionDenied, naming the kind) a script with a statement other than a query
  // (SELECT, or EXPLAIN of one): for callers who may only read.
  virtual Status CheckQueriesOnly(const std::string& sql) = 0;
  // Runs statements that return nothing to read (COPY, CREATE, SET); the first error.
  Status Run(const std::string& sql);
  // Sets the session's TimeZone unless it has it already (a locked database refuses any SET,
  // and LockDown gave its sessions theirs).
  Status UseTimeZone(const std::string& zone);
  // Runs a query and collects every batch of its rows.
  Result<std::vector<arrow::RecordBatchPtr>> Collect(const std::string& sql);
};

struct DatabaseOptions {
  int threads = 0;  // DuckDB worker threads; 0: DuckDB's default (one per core)
  // Called with DuckDB's configuration before the database starts (a storage extension).
  std::function<void(duckdb::DBConfig&)> configure;
};

class Database {
 public:
  // An in-memory DuckDB with extension auto-install and auto-load off, after checking that the
  // loaded library is the pinned build.
  static Result<std::unique_ptr<Database>> Open(const DatabaseOptions& options = {});
  virtual ~Database() = default;
  Result<std::unique_ptr<Session>> Connect() { return Connect(nullptr); }
  // A session whose DuckDB client context `prepare` sees first (to register state the facade
  // code reads back, e.g. whom the session reads as).
  virtual Result<std::unique_ptr<Session>> Connect(
      const std::function<void(duckdb::ClientContext&)>& prepare) = 0;
  // Makes the database safe for strangers' SQL, for good: no file, URL or extension (DuckDB's
  // external access off: read_csv, COPY, ATTACH of a file, INSTALL and LOAD are refused as
  // PermissionDenied), its configuration locked (SET of a DuckDB option is refused), and the
  // limits applied. Call after whatever setup needs more (an ATTACH of a storage extension).
  virtual Status LockDown(const SqlLimits& limits) = 0;
  // The DuckDB instance, for the facade code that extends it.
  virtual duckdb::DuckDB& duckdb() = 0;
};

}  // namespace mink::sql
