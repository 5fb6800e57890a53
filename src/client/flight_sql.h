#pragma once
// A Flight SQL client for one statement, as mink-query's service answers it (docs/query.md,
// Flight SQL): GetFlightInfo of a CommandStatementQuery, then DoGet of each endpoint's ticket.
// The node's console runs its SQL box through it.

#include <string>
#include <vector>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "flight/client/flight_client.h"

namespace mink::client {

struct SqlAnswer {
  arrow::SchemaPtr schema;
  std::vector<arrow::RecordBatchPtr> batches;
  bool truncated = false;  // more rows than asked for: the rest were not read
};

// Runs `sql` on the Flight SQL service at `address` (grpc://, grpc+tls://); at most `max_rows`
// rows are kept. The service's error (an SQL error, a refusal) as it answered it.
Result<SqlAnswer> RunFlightSql(const std::string& address, const std::string& sql,
                               const flight::FlightClientOptions& options, int64_t max_rows);

}  // namespace mink::client
