#pragma once
// The envelope of continuous SQL statements: CREATE SOURCE / STREAM / MATERIALIZED VIEW / SINK,
// DROP, SHOW, DESCRIBE, SUBSCRIBE, EXPLAIN (docs/streaming-sql.md). Only names, column
// definitions, watermarks, connector options and the emit clause are parsed here; a query is
// kept as text for DuckDB to parse (query_shape.h). Anything else is a plain query.
//
//   CREATE SOURCE trades (symbol VARCHAR NOT NULL, ts TIMESTAMP NOT NULL,
//                         WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
//     FROM KAFKA ('topic' = 'trades') FORMAT JSON;
//   CREATE STREAM s AS SELECT ... EMIT ON WINDOW CLOSE ALLOW LATENESS INTERVAL '10' SECOND
//     LATE DATA TO s_late;
//   CREATE SINK out FROM s INTO KAFKA ('topic' = 'minute-volume') FORMAT JSON;
//
// Keywords are case-insensitive; names keep their case unless quoted ("Name"). Errors name the
// line and what was expected there.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace mink::stream {

enum class StatementKind {
  kCreateSource,
  kCreateStream,
  kCreateView,  // CREATE MATERIALIZED VIEW
  kCreateSink,
  kDrop,
  kShow,
  kDescribe,
  kSubscribe,
  kExplain,
  kQuery,  // anything else: a batch query
};

// The kinds of catalog objects, as statements spell them.
enum class ObjectKind { kNone, kSource, kStream, kView, kSink };
const char* ObjectKindName(ObjectKind kind);  // "SOURCE", "STREAM", "MATERIALIZED VIEW", "SINK"

struct ColumnDef {
  std::string name;
  std::string type;  // as written, e.g. "DECIMAL(10, 2)"
  bool not_null = false;

  bool operator==(const ColumnDef&) const = default;
};

// WATERMARK FOR column [AS expression]: without AS, the watermark is the column itself.
struct WatermarkDef {
  std::string column;
  std::string expression;  // SQL text, e.g. "ts - INTERVAL '5' SECOND"; empty: the column

  bool operator==(const WatermarkDef&) const = default;
};

struct Statement {
  StatementKind kind = StatementKind::kQuery;
  ObjectKind object = ObjectKind::kNone;  // of CREATE, DROP, SHOW (SHOW SOURCES: kSource)
  std::string name;                       // the object's name (DROP, DESCRIBE, SUBSCRIBE too)
  bool or_replace = false;
  bool if_not_exists = false;
  bool if_exists = false;  // DROP
  std::vector<ColumnDef> columns;
  std::optional<WatermarkDef> watermark;
  std::string connector;  // upper case: KAFKA, MINK, GENERATOR
  std::vector<std::pair<std::string, std::string>> options;  // in order, values unquoted
  std::string format;                                         // upper case: JSON
  std::string from;                                           // a sink's FROM
  std::string query;  // CREATE STREAM/VIEW's query, EXPLAIN's statement, a plain query
  std::string emit;   // upper case words after EMIT: "ON WINDOW CLOSE", "CHANGES", ...
  std::string allowed_lateness;  // ALLOW LATENESS's interval as written: "INTERVAL '10' SECOND"
  std::string late_data_to;      // LATE DATA TO's name: the table continuous.<name> of late rows
  std::string text;   // the statement as written (without the final ';')
};

// The statements of `sql`, split at ';' outside quotes and parentheses (empty ones skipped).
Result<std::vector<Statement>> ParseStatements(std::string_view sql);
// Exactly one statement.
Result<Statement> ParseStatement(std::string_view sql);

// The value of option `key` (case-insensitive), if given.
std::optional<std::string> OptionOf(const Statement& s, std::string_view key);

}  // namespace mink::stream
