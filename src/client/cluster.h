#pragma once
// Cluster: a client of a Mink cluster over the JSON-over-Flight API of docs/flight-api.md,
// through one bootstrap node: databases, tables, table descriptions (describe-table), the
// endpoints of a table (GetFlightInfo: one per bucket, with the owner's location), column
// statistics (column-stats), and one FlightClient per node address for the DoGets.
// Thread-safe: one Cluster can be shared by every thread of a client (mink-query's DuckDB
// catalog and its scan threads share one).

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "arrow_format/type.h"
#include "base/result.h"
#include "client/table_description.h"
#include "flight/client/flight_client.h"
#include "table/column_stats.h"
#include "table/requests.h"

namespace mink::client {

// A table as a client sees it.
struct TableMeta {
  std::string database;
  std::string table;
  TableDescription description;
  arrow::SchemaPtr schema;  // the Arrow schema of a full row, columns in table order

  std::string full_name() const { return database + "." + table; }
};

// One bucket of a table to read with DoGet.
struct Endpoint {
  std::optional<std::string> partition;  // partition name (values joined by '$'), if partitioned
  int32_t bucket = 0;
  std::string location;        // grpc://host:port; empty: the bootstrap node
  std::optional<int64_t> end;  // read the log below this offset only (see ColumnStats)
};

class Cluster {
 public:
  // Checks the address; connects lazily (the first call reports an unreachable node). Calls say
  // who the client is with `authorization` (an "authorization" header: "Basic ...", "Bearer
  // ..."; "" says nothing), or, without it, as the environment says (AuthorizationHeaders).
  static Result<std::shared_ptr<Cluster>> Connect(const std::string& bootstrap,
                                                  std::optional<std::string> authorization = std::nullopt);

  const std::string& bootstrap() const { return bootstrap_; }

  Result<std::vector<std::string>> ListDatabases();
  // Table names (without the database), sorted.
  Result<std::vector<std::string>> ListTables(const std::string& database);
  // Null when the table does not exist.
  Result<std::shared_ptr<const TableMeta>> DescribeTable(const std::string& database,
                                                         const std::string& table);
  // Every bucket of the table (partition by partition), with the node that owns it.
  Result<std::vector<Endpoint>> Endpoints(const std::string& database, const std::string& table);
  // Per bucket of a log table: min/max and null count of its integer-valued columns, as the
  // node computed them (table::BucketColumnStats, columns in the order of the answer).
  Result<std::vector<table::BucketColumnStats>> ColumnStats(const std::string& database,
                                                            const std::string& table);
  // Changes a table: the body of the alter-table action (docs/flight-api.md), "table" included.
  Status AlterTable(const nlohmann::json& body);
  // Continuous SQL statements carried out by the node (the continuous-sql action): one answer
  // per statement, in order.
  Result<nlohmann::json> ContinuousSql(const std::string& sql);
  // The client for a node ("" = the bootstrap node).
  Result<std::shared_ptr<flight::FlightClient>> ClientFor(const std::string& location);

 private:
  Cluster(std::string bootstrap, std::optional<std::string> authorization)
      : bootstrap_(std::move(bootstrap)), authorization_(std::move(authorization)) {}
  // RunAction on the bootstrap node; Unavailable names the node.
  Result<nlohmann::json> Action(const std::string& type, const nlohmann::json& body);

  std::string bootstrap_;
  const std::optional<std::string> authorization_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<flight::FlightClient>> clients_;  // by host:port
};

// The JSON DoGet ticket of one endpoint.
struct ScanTicket {
  std::string table;      // database.table
  bool snapshot = false;  // primary-key tables read their KV snapshot
  std::vector<std::string> columns;
  std::optional<std::string> partition;
  int32_t bucket = 0;
  std::optional<int64_t> end;  // log mode: stop before this offset
  bool compressed = false;     // log mode: batches may come compressed as stored
  bool lake = false;           // a tiered table: the lake plus the log after it (union mode)
  std::vector<table::LakeFilter> lake_filters;  // union mode: pushed into the lake's Parquet reads
};
std::string EncodeTicket(const ScanTicket& ticket);

// The column-stats answer, parsed: {"buckets": [{"partition"?, "bucket", "end", "rows",
// "columns": [{"name", "nulls", "min"?, "max"?}]}]}. A column without both "min" and "max" has
// no non-null value (has_values false). Internal when the answer is malformed.
Result<std::vector<table::BucketColumnStats>> ParseColumnStats(const nlohmann::json& answer);

}  // namespace mink::client
