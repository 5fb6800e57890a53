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

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "arrow_format/type.h"
#include "base/result.h"

namespace duckdb {
class DBConfig;
class DuckDB;
}  // namespace duckdb

namespace mink::sql {

// The DuckDB build Mink is written against: version and source id, checked at start-up.
inline constexpr char kDuckDBVersion[] = "v1.4.4";
inline constexpr char kDuckDBSourceId[] = "6ddac802ff";

// "v1.4.4 6ddac802ff" of the library actually loaded.
std::string LoadedDuckDBVersion();

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
  // Makes `batches` (of `schema`) readable as the temporary view `name` of this session, read
  // without a copy through the Arrow C stream interface; kept until the session ends or the
  // name is registered again.
  virtual Status RegisterBatches(const std::string& name, arrow::SchemaPtr schema,
                                 std::vector<arrow::RecordBatchPtr> batches) = 0;
  // Runs statements that return nothing to read (COPY, CREATE, SET); the first error.
  Status Run(const std::string& sql);
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
  virtual Result<std::unique_ptr<Session>> Connect() = 0;
  // The DuckDB instance, for the facade code that extends it.
  virtual duckdb::DuckDB& duckdb() = 0;
};

}  // namespace mink::sql
