#pragma once
// Continuous SQL in mink-query's exec and shell (docs/streaming-sql.md): a script's streaming
// statements (CREATE SOURCE, CREATE STREAM, ..., SUBSCRIBE) go to the node, its queries to
// DuckDB. The node's answers print as JSON objects (json) or lines (table); SUBSCRIBE follows the
// stream's or view's output table over Flight and prints each change until interrupted.

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "client/cluster.h"
#include "query/output.h"
#include "sql/database.h"
#include "stream/statement.h"

namespace mink::query {

struct ScriptStatement {
  std::string text;
  std::optional<stream::Statement> continuous;  // set for a streaming statement
};

// A script's statements: split by the streaming statements' parser when it has one of them,
// else as DuckDB splits it.
Result<std::vector<ScriptStatement>> SplitScript(sql::Session& session, const std::string& script);

// When every statement of `sql` is one the node carries out (not SUBSCRIBE, which follows):
// runs them there and answers how many; nullopt for SQL that is DuckDB's.
Result<std::optional<int64_t>> RunContinuousUpdate(client::Cluster& cluster, const std::string& sql);

// Runs a streaming statement on the node and prints its answers.
Status RunContinuous(client::Cluster& cluster, const stream::Statement& statement, OutputFormat format);

}  // namespace mink::query
