#pragma once
// SqlEndpoint: continuous SQL over HTTP (`POST /api/v1/sql`, docs/streaming-sql.md, HTTP API).
// The body is {"sql": "..."}: one or more statements. Streaming statements are carried out by
// the Catalog; a query (SELECT ...) is answered by DuckDB over the streams and views it names,
// read from their output tables at that moment (a view's current rows, a stream's log). The
// answer is one JSON object per statement (a single statement: the object alone):
//   {"result_type":"query","data":[{"rows_seen":"46","last_seq":"45"}]}
//   {"result_type":"CREATE SOURCE","object_name":"ticks"}
//   {"result_type":"metadata","data":[{"name":"ticks","sql":"..."}]}
// 64-bit integers are strings, so that JavaScript's JSON parser keeps them exact. A statement
// that fails answers 400 {"error": "..."} (statements before it stay done).
//
// WebSockets on /ws/<name> follow a stream's or view's changes (subscription.h).
//
// Thread-safe: each request has its own DuckDB session.

#include <string>
#include <vector>

#include "base/result.h"
#include "http/api_server.h"
#include "stream/catalog.h"

namespace mink::stream {

class SqlEndpoint {
 public:
  // `db` runs the queries (locked down by the node: sql::Database::LockDown); each is stopped
  // after `timeout`.
  SqlEndpoint(Catalog* catalog, metadata::MetadataLog* meta, table::TableStore* tables, sql::Database* db,
              sql::StatementTimeout timeout = {})
      : catalog_(catalog), meta_(meta), tables_(tables), db_(db), timeout_(std::move(timeout)) {}

  // Each statement's answer as JSON text, in order.
  Result<std::vector<std::string>> Execute(const std::string& sql, int64_t now_ms);
  // The HTTP API: POST /api/v1/sql; other paths are 404.
  http::ServerResponse Handle(const http::ServerRequest& request);
  // The HTTP API's WebSockets: GET /ws/<name> subscribes to a stream or view (subscription.h).
  void Subscribe(const http::ServerRequest& request, http::WebSocket& socket);

 private:
  Result<std::string> Query(const std::string& sql);

  Catalog* const catalog_;
  metadata::MetadataLog* const meta_;
  table::TableStore* const tables_;
  sql::Database* const db_;
  const sql::StatementTimeout timeout_;
};

// A streaming statement's answer as JSON text ({"result_type", "object_name"[, "data"]}).
std::string StatementResultJson(const StatementResult& result);

}  // namespace mink::stream
