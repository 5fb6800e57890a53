#pragma once
// Catalog: continuous SQL's statements carried out against the metadata log (decision 0014):
// CREATE SOURCE / STREAM / MATERIALIZED VIEW / SINK become `continuous.create` commands with a
// definition (JSON, below), DROP a `continuous.drop`, SHOW and DESCRIBE read the state. Each
// statement is checked before anything is written: the connector and its options, the query's
// shape (DuckDB parses it; query_shape.h), and that what it reads exists.
//
// Definitions (the `definition` of the command):
//   source: {"connector": "GENERATOR"|"MINK"|"KAFKA", "options": {...}, "columns": [[name, type,
//            not_null], ...], "watermark": {"column", "expression"} (when declared),
//            "format": "JSON"|"", "start_ms": creation time (GENERATOR's rows start there)}
//   stream, view: {"query": text, "emit": words after EMIT, "source": name, "columns": [names],
//            "table": its output table (continuous.<name>, created with it, dropped with it),
//            "allowed_lateness_us": ALLOW LATENESS (0 without), "late_table": LATE DATA TO's
//            table continuous.<late name> (a log of the source's columns, created and dropped
//            with it; absent without)}
//   sink: {"from": name, "connector": ..., "options": {...}, "format": ...}
//
// Sources: GENERATOR (rows.per.second); MINK ('table' = 'db.table', an existing table); KAFKA
// ('topic'; with 'bootstrap.servers' that are not a Kafka listener of this cluster, a Kafka outside
// Mink through librdkafka, else the table kafka.<topic>). Sinks: MINK ('table') and KAFKA
// ('topic'), as sources; 'delivery.guarantee' = 'exactly-once' is refused for a Kafka outside
// Mink, which gets at least once.
//
// Thread-safe (the metadata log orders appends).

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "metadata/metadata_log.h"
#include "sql/database.h"
#include "stream/output_table.h"
#include "stream/query_shape.h"
#include "stream/statement.h"
#include "table/table_store.h"

namespace mink::stream {

// One statement's answer, as POST /api/v1/sql gives it: `result_type` (the statement, e.g.
// "CREATE SOURCE", or "metadata" for SHOW and DESCRIBE), the object's name, and rows of
// (column, text) pairs for SHOW and DESCRIBE.
struct StatementResult {
  std::string result_type;
  std::string object_name;
  std::vector<std::vector<std::pair<std::string, std::string>>> rows;
};

// What a CREATE STREAM or MATERIALIZED VIEW would run: its shape, its output table, its inputs.
struct QueryPlan {
  std::string kind;  // "stream" or "view"
  QueryShape shape;
  OutputLayout layout;
  std::vector<std::string> reads;
  int64_t allowed_lateness = 0;              // µs (ALLOW LATENESS)
  std::optional<OutputLayout> late_layout;   // LATE DATA TO's table
};

class Catalog {
 public:
  Catalog(metadata::MetadataLog* meta, table::TableStore* tables, sql::Database* db)
      : meta_(meta), tables_(tables), db_(db) {}

  // Carries out `statement` (not a plain query: those are the SQL engine's). `now_ms` is the
  // creation time recorded for a source.
  Result<StatementResult> Execute(const Statement& statement, int64_t now_ms);

 private:
  Result<StatementResult> CreateSource(const Statement& s, int64_t now_ms);
  // Checks a CREATE STREAM or VIEW (its query, what it reads, its output table) and plans it.
  Result<QueryPlan> Plan(const Statement& s) const;
  Result<StatementResult> CreateQuery(const Statement& s);
  // EXPLAIN CREATE STREAM|MATERIALIZED VIEW ...: the plan as (property, value) rows; nothing is written.
  Result<StatementResult> Explain(const Statement& s) const;
  Result<StatementResult> CreateSink(const Statement& s);
  Result<StatementResult> Drop(const Statement& s);
  StatementResult Show(const Statement& s) const;
  Result<StatementResult> Describe(const Statement& s) const;
  // Whether a KAFKA connector names a Kafka outside this cluster (external_kafka.h).
  bool IsExternal(const Statement& s) const;
  // InvalidArgument naming what the connector cannot do for `what`.
  Status CheckConnector(const Statement& s, const std::string& what) const;

  // Creates the output table of a stream or view (output_table.h), or of its late rows, named
  // `name` in the continuous database, replacing one left by an earlier object of that name.
  Status CreateOutputTable(const std::string& name, const OutputLayout& layout);
  // InvalidArgument when LATE DATA TO's name is taken by an object other than `owner` or by
  // another stream's late rows.
  Status CheckLateName(const std::string& owner, const std::string& late) const;

  metadata::MetadataLog* const meta_;
  table::TableStore* const tables_;
  sql::Database* const db_;
};

// "source", "stream", "view", "sink" (the metadata's kinds) of a statement's object.
std::string KindName(ObjectKind kind);

}  // namespace mink::stream
